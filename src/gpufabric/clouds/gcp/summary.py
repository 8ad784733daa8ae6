"""GCP fabric facts read back from a plan's recorded resources (not from the config).

VPC count and kinds, NICs per node by type and whether every node has one NIC in each
network, placement, node group, storage zone against the nodes' zone, partitions.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpufabric.plan.runner import Plan, PlannedResource

Facts = list[tuple[str, str]]

NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
INSTANCE = "gcp:compute/instance:Instance"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
GROUP = "gcp:compute/instanceGroupManager:InstanceGroupManager"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
STORAGE = {
    "gcp:lustre/instance:Instance": "Managed Lustre",
    "gcp:parallelstore/instance:Instance": "Parallelstore",
    "gcp:filestore/instance:Instance": "Filestore",
}


def summarise(plan: Plan) -> Facts:
    cfg = plan.config
    networks = {n.id: n for n in plan.of_type(NETWORK)}
    subnets = {s.id: s for s in plan.of_type(SUBNET)}
    profiles = [n for n in networks.values() if n.inputs.get("networkProfile")]
    facts: Facts = [
        (
            "VPC networks",
            f"{len(networks)} ({len(networks) - len(profiles)} regular"
            + "".join(f"; {n.name} on {n.inputs['networkProfile']}" for n in profiles)
            + ")",
        ),
        ("MTU", ", ".join(sorted({str(n.inputs.get("mtu")) for n in networks.values()}))),
    ]
    nodes = plan.of_type(INSTANCE) or plan.of_type(TEMPLATE)
    facts.append(("NICs per node", _nics(nodes, subnets, len(networks))))
    facts.append(("Placement", _placement(plan)))
    groups = plan.of_type(GROUP)
    if groups:
        group = groups[0].inputs
        facts.append(
            (
                "Node group",
                f"managed instance group, {group.get('targetSize')} x {cfg.instance_type} "
                f"in {group.get('zone')}",
            )
        )
    else:
        count = len(plan.of_type(INSTANCE))
        facts.append(("Node group", f"{count} instances of {cfg.instance_type}"))
    cap = cfg.capacity
    target = cap.reservation_id or ", ".join(f"{t.id} x {t.nodes}" for t in cap.reservations or [])
    facts.append(("Capacity", cap.type + (f" {target}" if target else "")))
    facts.append(
        (
            "Partitions",
            ", ".join(
                f"{s.name.removeprefix(cfg.name + '-').removesuffix('-subnet')} "
                f"{s.inputs.get('ipCidrRange')}"
                for s in subnets.values()
            ),
        )
    )
    for token, label in STORAGE.items():
        for store in plan.of_type(token):
            facts.append(("Storage", _storage(label, store, cfg.zone)))
    facts.append(("Encryption in transit", cfg.encryption))
    return facts


def _nics(nodes: list[PlannedResource], subnets: dict[str, PlannedResource], count: int) -> str:
    if not nodes:
        return "none"
    layouts = []
    for node in nodes:
        nics: list[dict[str, Any]] = node.inputs.get("networkInterfaces", [])
        networks = [subnets[n["subnetwork"]].inputs.get("network") for n in nics]
        layouts.append((Counter(n.get("nicType", "?") for n in nics), networks))
    kinds, networks = layouts[0]
    per_type = ", ".join(f"{number} {kind}" for kind, number in sorted(kinds.items()))
    every = "every node" if len(nodes) > 1 else "the instance template"
    covers = all(len(set(nets)) == count for _, nets in layouts)
    shared = [number for number in Counter(networks).values() if number > 1]
    if not covers:
        reach = f"NOT every node has a NIC in each of the {count} VPCs"
    elif not shared:
        reach = f"{every} has exactly one NIC in each of the {count} VPCs"
    else:
        reach = (
            f"{every} has a NIC in each of the {count} VPCs "
            f"({max(shared)} MRDMA NICs share the RoCE VPC, one subnet each)"
        )
    return f"{sum(kinds.values())}: {per_type}; {reach}"


def _placement(plan: Plan) -> str:
    """Where placement comes from and how many policies the nodes land in."""
    policies = plan.of_type(POLICY)
    compact = [p for p in policies if p.inputs.get("groupPlacementPolicy")]
    workload = [p for p in policies if p.inputs.get("workloadPolicy")]
    described = []
    for policy in workload:
        spec = policy.inputs["workloadPolicy"]
        extra = (
            f", maxTopologyDistance {spec['maxTopologyDistance']}"
            if "maxTopologyDistance" in spec
            else ""
        )
        described.append(f"{policy.name}: workload policy {spec.get('type')}{extra} (new)")
    if compact:
        group = compact[0].inputs["groupPlacementPolicy"]
        extra = f", maxDistance {group['maxDistance']}" if "maxDistance" in group else ""
        sizes = " + ".join(str(p.inputs["groupPlacementPolicy"].get("vmCount")) for p in compact)
        count = len(compact)
        head = (
            f"{count} new compact placement polic{'ies' if count > 1 else 'y'} "
            f"(collocation {group.get('collocation')}{extra}): "
        )
        if count == 1:
            described.append(f"{head}{compact[0].name}, vmCount {sizes}")
        else:
            described.append(
                f"{head}{sizes} VMs; nodes in different policies are not guaranteed to be close"
            )
    instances = plan.of_type(INSTANCE)
    if not policies and instances:
        reserved = instances[0].inputs.get("reservationAffinity")
        if reserved:
            values = reserved.get("specificReservation", {}).get("values", [])
            described.append(
                "none created: the reservation's own placement "
                f"({', '.join(values)}; a plain reservation takes no external policy)"
            )
    return "; ".join(described) or "none"


def _storage(label: str, store: PlannedResource, nodes_zone: str) -> str:
    zone = store.inputs.get("location")
    same = (
        "same zone as the nodes" if zone == nodes_zone else f"NOT in the nodes' zone {nodes_zone}"
    )
    size = store.inputs.get("capacityGib") or store.inputs.get("fileShares", {}).get("capacityGb")
    return f"{label}, {size} GiB, in {zone} ({same})"
