"""GPU nodes sit close together: an AWS cluster placement group, a GCP compact (COLLOCATED)
placement policy, or an Azure proximity placement group (scale sets: one placement group)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gpufabric.clouds.gcp.placement import DENSE_RESERVATION_TYPES
from gpufabric.policies.model import (
    EVERY_CLOUD,
    Resource,
    Stack,
    StackPolicy,
    as_list,
    dig,
    resource_cloud,
)
from gpufabric.policies.nodes import (
    AWS_GROUP,
    AWS_INSTANCE,
    AWS_TEMPLATE,
    AZURE_SCALE_SET,
    AZURE_VM,
    GCP_TEMPLATES,
    OCI_CLUSTER_NETWORK,
    Node,
    gpu_nodes,
    instance_type,
)

AWS_PLACEMENT = "aws:ec2/placementGroup:PlacementGroup"
GCP_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
AZURE_PPG = "azure-native:compute:ProximityPlacementGroup"


def _placement(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for node in gpu_nodes(stack):
        check = _BY_CLOUD.get(resource_cloud(node.resource.type))
        reason = check(stack, node) if check else ""
        if reason:
            yield node.resource, reason


def _aws(stack: Stack, node: Node) -> str:
    refs = [(node.resource.props.get("placementGroup"), node.resource)]
    if node.definition.type in (AWS_TEMPLATE, AWS_INSTANCE):
        refs.append((dig(node.definition.props, "placement", "groupName"), node.definition))
    for ref, owner in refs:
        if not ref:
            continue
        key = "placementGroup" if owner.type in (AWS_GROUP, AWS_INSTANCE) else "placement"
        group = stack.resolve(ref, [AWS_PLACEMENT], owner, key)
        if group is None:
            return ""  # an existing group outside this stack: its strategy cannot be read here
        strategy = group.props.get("strategy")
        if strategy != "cluster":
            return f"placement group {group.name} has strategy {strategy!r}, not 'cluster'"
        return ""
    targets = [  # on the template, or on each instance (one of several reservations)
        dig(props, "capacityReservationSpecification", "capacityReservationTarget")
        for props in (node.definition.props, node.resource.props)
    ]
    if any(isinstance(t, Mapping) and any(t.values()) for t in targets):
        # reserved capacity: the reservation's own placement group or none; a new group would
        # not hold the reservation (ParallelCluster's PlacementGroupCapacityReservationValidator)
        return ""
    return "GPU nodes are in no placement group; EFA needs a cluster placement group"


def _gcp(stack: Stack, node: Node) -> str:
    """A COLLOCATED group placement policy on the instance / template, a HIGH_THROUGHPUT
    workload policy on the managed instance group (how A3 Ultra / A4 groups are packed), or a
    specific reservation, whose own policy places the nodes."""
    refs: list[tuple[Resource, object]] = []
    for owner in {
        node.definition.label: node.definition,
        node.resource.label: node.resource,
    }.values():
        for ref in as_list(owner.props.get("resourcePolicies")):
            refs += [(owner, r) for r in (ref.values() if isinstance(ref, Mapping) else [ref])]
    if not refs:
        reserved = dig(node.definition.props, "reservationAffinity", "type")
        machine = str(instance_type(node.definition) or "").rsplit("/", 1)[-1]
        if reserved == "SPECIFIC_RESERVATION" and machine not in DENSE_RESERVATION_TYPES:
            # a plain reservation takes no external policy: it is placed by its own (Cluster
            # Toolkit resume.py, update_reservation_props), which this stack cannot read
            return ""
        kind = "template" if node.definition.type in GCP_TEMPLATES else "instance"
        return f"GPU {kind} {node.definition.name} has no compact placement resource policy"
    for owner, ref in refs:
        policy = stack.resolve(ref, [GCP_POLICY], owner, "resourcePolicies")
        if policy is None:
            if isinstance(ref, str) and ref:
                return ""  # an existing policy outside this stack: not readable here
            continue
        if dig(policy.props, "groupPlacementPolicy", "collocation") == "COLLOCATED":
            return ""
        if dig(policy.props, "workloadPolicy", "type") == "HIGH_THROUGHPUT":
            return ""
    return (
        "no resource policy of the GPU nodes is compact (groupPlacementPolicy.collocation "
        "COLLOCATED, or a HIGH_THROUGHPUT workload policy on the group)"
    )


def _azure(stack: Stack, node: Node) -> str:
    res = node.resource
    if res.type not in (AZURE_SCALE_SET, AZURE_VM):
        return ""
    ref = dig(res.props, "proximityPlacementGroup", "id")
    if not ref:
        return "GPU nodes are in no proximity placement group"
    if res.type == AZURE_SCALE_SET and res.props.get("singlePlacementGroup") is not True:
        return "singlePlacementGroup is not true: InfiniBand spans one placement group only"
    group = stack.resolve(ref, [AZURE_PPG], res, "proximityPlacementGroup")
    kind = group.props.get("proximityPlacementGroupType", "Standard") if group else "Standard"
    if kind != "Standard":
        return f"proximity placement group {group.name if group else ref} is {kind!r}, not Standard"
    return ""


def _oci(stack: Stack, node: Node) -> str:
    """A cluster network places its pool on one RDMA network by construction; GPU instances
    launched on their own are on none."""
    if node.resource.type == OCI_CLUSTER_NETWORK:
        return ""
    return "GPU nodes are not in a cluster network: they have no RDMA network"


def _nebius(stack: Stack, node: Node) -> str:
    if dig(node.resource.props, "gpuCluster", "id"):
        return ""
    return "GPU VM is in no GPU cluster (gpuCluster.id): it is on no InfiniBand fabric"


_BY_CLOUD = {"aws": _aws, "gcp": _gcp, "azure": _azure, "oci": _oci, "nebius": _nebius}


PLACEMENT = StackPolicy(
    name="gpu-nodes-in-placement-group",
    description=(
        "Every GPU node group is in an AWS cluster placement group, a GCP COLLOCATED compact "
        "placement policy, an Azure proximity placement group (scale sets with "
        "singlePlacementGroup true), an OCI cluster network or a Nebius GPU cluster"
    ),
    check=_placement,
    clouds=EVERY_CLOUD,
)
