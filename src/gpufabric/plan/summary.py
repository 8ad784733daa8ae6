"""Fabric facts read back from a plan's recorded resources, per cloud.

These read what the program actually registered (not the config), so the summary proves
the wiring: EFA devices per card, placement, storage zone, partitions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpufabric.plan.summary_azure import summarise_azure
from gpufabric.plan.summary_gcp import summarise_gcp
from gpufabric.plan.summary_more import summarise_nebius, summarise_oci
from gpufabric.plan.summary_storage import storage_facts

if TYPE_CHECKING:
    from gpufabric.plan.runner import Plan

Facts = list[tuple[str, str]]


def fabric_summary(plan: Plan) -> Facts:
    cloud = plan.outputs.get("inventory", {}).get("cloud", "")
    summarise = SUMMARIES.get(cloud)
    if summarise is None:
        return []
    return summarise(plan) + storage_facts(plan.config)


def _aws(plan: Plan) -> Facts:
    cfg = plan.config
    facts: Facts = []
    templates = plan.of_type("aws:ec2/launchTemplate:LaunchTemplate")
    for lt in templates:
        nics: list[dict[str, Any]] = lt.inputs.get("networkInterfaces", [])
        efa_cards = sorted(
            n["networkCardIndex"] for n in nics if n.get("interfaceType") in ("efa", "efa-only")
        )
        facts.append(
            (
                "EFA devices per node",
                f"{len(efa_cards)} on network cards {_ranges(efa_cards)} "
                f"({', '.join(sorted({n['interfaceType'] for n in nics}))})",
            )
        )
        meta = lt.inputs.get("metadataOptions", {})
        facts.append(("IMDS", f"httpTokens={meta.get('httpTokens')}"))
    groups = plan.of_type("aws:ec2/placementGroup:PlacementGroup")
    facts.append(
        (
            "Placement",
            ", ".join(f"{g.name} (strategy {g.inputs.get('strategy')})" for g in groups) or "none",
        )
    )
    cap = cfg.capacity
    facts.append(("Capacity", cap.type + (f" {cap.reservation_id}" if cap.reservation_id else "")))
    asgs = plan.of_type("aws:autoscaling/group:Group")
    instances = plan.of_type("aws:ec2/instance:Instance")
    if asgs:
        facts.append(
            (
                "Node group",
                f"Auto Scaling group, {asgs[0].inputs.get('desiredCapacity')} x {cfg.instance_type}",
            )
        )
    else:
        facts.append(("Node group", f"{len(instances)} instances of {cfg.instance_type}"))
    subnets = {s.id: s for s in plan.of_type("aws:ec2/subnet:Subnet")}
    facts.append(
        (
            "Partitions",
            ", ".join(
                f"{s.inputs.get('tags', {}).get('gpufabric:partition')} {s.inputs.get('cidrBlock')}"
                for s in subnets.values()
            ),
        )
    )
    for fs in plan.of_type("aws:fsx/lustreFileSystem:LustreFileSystem"):
        subnet = subnets.get(fs.inputs.get("subnetIds", ""))
        zone = subnet.inputs.get("availabilityZone") if subnet else "unknown"
        role = subnet.inputs.get("tags", {}).get("gpufabric:partition") if subnet else "?"
        same = (
            "same zone as the nodes" if zone == cfg.zone else f"NOT in the nodes' zone {cfg.zone}"
        )
        facts.append(
            (
                "Storage",
                f"FSx for Lustre {fs.inputs.get('deploymentType')}, {fs.inputs.get('storageCapacity')} GiB, "
                f"{fs.inputs.get('perUnitStorageThroughput', '-')} MB/s/TiB"
                f"{', EFA' if fs.inputs.get('efaEnabled') else ''}; {role} subnet in {zone} ({same})",
            )
        )
    facts.append(("Encryption in transit", cfg.encryption))
    return facts


def _ranges(values: list[int]) -> str:
    if not values:
        return "none"
    if values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]}" if len(values) > 1 else str(values[0])
    return ",".join(map(str, values))


SUMMARIES: dict[str, Callable[[Plan], Facts]] = {
    "aws": _aws,
    "azure": summarise_azure,
    "gcp": summarise_gcp,
    "oci": summarise_oci,
    "nebius": summarise_nebius,
}
