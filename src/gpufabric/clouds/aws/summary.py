"""AWS fabric facts read back from a plan's recorded resources (not the config): EFA devices
per card, placement, capacity, node group, partitions, FSx for Lustre's zone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpufabric.plan.runner import Plan

Facts = list[tuple[str, str]]


def summarise(plan: Plan) -> Facts:
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
    facts.append(("Placement", _placement(plan, templates)))
    cap = cfg.capacity
    target = cap.reservation_id or cap.resource_group_arn or _shares(cap.reservations)
    facts.append(("Capacity", cap.type + (f" {target}" if target else "")))
    asgs = plan.of_type("aws:autoscaling/group:Group")
    instances = plan.of_type("aws:ec2/instance:Instance")
    if asgs:
        wait = asgs[0].inputs.get("waitForCapacityTimeout")
        facts.append(
            (
                "Node group",
                f"Auto Scaling group, {asgs[0].inputs.get('desiredCapacity')} x {cfg.instance_type}; "
                + (
                    f"pulumi up waits up to {wait} for every node"
                    if wait not in (None, "0")
                    else "pulumi up does NOT wait for the nodes (waitForCapacityTimeout 0)"
                ),
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


def _placement(plan: Plan, templates: list[Any]) -> str:
    """Where the nodes' placement group comes from: new, the reservation's own, or none."""
    cap = plan.config.capacity
    groups = plan.of_type("aws:ec2/placementGroup:PlacementGroup")
    if groups:
        return ", ".join(
            f"new placement group {g.name} (strategy {g.inputs.get('strategy')})" for g in groups
        )
    named = {lt.inputs.get("placement", {}).get("groupName") for lt in templates} - {None}
    if cap.reservations:
        return (
            f"each node in its reservation's placement group, if any (read from "
            f"{len(cap.reservations)} reservations at deploy time; no new group)"
        )
    if cap.resource_group_arn:
        return (
            f"none: capacity reservation resource group {cap.resource_group_arn} "
            "(no new placement group for reserved capacity)"
        )
    if named:
        return (
            f"the reservation's placement group {', '.join(sorted(named))} "
            f"(read from {cap.reservation_id} at deploy time; no new group)"
        )
    return (
        f"none: {cap.reservation_id} is in no placement group (read at deploy time; no new "
        "group for reserved capacity)"
    )


def _shares(reservations: list[Any] | None) -> str:
    """ "cr-a x 4, cr-b x 2": several reservations and the nodes on each."""
    return ", ".join(f"{t.id} x {t.nodes}" for t in reservations or [])


def _ranges(values: list[int]) -> str:
    if not values:
        return "none"
    if values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]}" if len(values) > 1 else str(values[0])
    return ",".join(map(str, values))
