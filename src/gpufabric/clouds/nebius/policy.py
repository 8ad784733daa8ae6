"""Nebius resources as gpufabric's policies read them: compute instances are nodes (typed as
platform/preset); security rules let traffic in; there are no zones below a region; a GPU
cluster is the InfiniBand placement."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.policies.cloud import CloudPolicy
from gpufabric.policies.model import Ingress, Node, Resource, Stack, as_list, as_map, dig, maps

INSTANCE = "nebius:index/computeV1Instance:ComputeV1Instance"
RULE = "nebius:index/vpcV1SecurityRule:VpcV1SecurityRule"
FILESYSTEM = "nebius:index/computeV1Filesystem:ComputeV1Filesystem"
# Nebius has no zones below a region, and VMs and filesystems live in one project (one region)
REGION = "(the Nebius project's region)"


def _platform_preset(resource: Resource) -> str | None:
    """A VM is named by platform and preset; the catalog joins them as platform/preset."""
    res = as_map(resource.props.get("resources"))
    if not res.get("platform") or not res.get("preset"):
        return None
    return f"{res['platform']}/{res['preset']}"


def _own_public_ip(res: Resource) -> Iterator[str]:
    if res.type != INSTANCE:
        return
    for index, nic in enumerate(maps(res.props.get("networkInterfaces"))):
        if nic.get("publicIpAddress") is not None:
            yield f"networkInterfaces[{index}] has a publicIpAddress"


def _rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    ingress = props.get("ingress")
    if not isinstance(ingress, Mapping) or str(props.get("access")).upper() != "ALLOW":
        return
    protocol = str(props.get("protocol", "ANY")).lower().replace("any", "all")
    ports = tuple((int(p), int(p)) for p in as_list(ingress.get("destinationPorts"))) or None
    reply_only = bool(as_list(ingress.get("sourcePorts")))
    # no source CIDR and no source group: any address
    sources = as_list(ingress.get("sourceCidrs"))
    if not sources and not ingress.get("sourceSecurityGroupId"):
        sources = ["0.0.0.0/0"]
    for source in sources:
        yield Ingress(str(source), protocol, ports, reply_only)


def _node_zones(stack: Stack, node: Node) -> set[str]:
    return {REGION}  # no zones: one project, one region


def _storage_zones(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for fs in stack.of_type(FILESYSTEM):
        yield fs, REGION


def _placement(stack: Stack, node: Node) -> str:
    if dig(node.resource.props, "gpuCluster", "id"):
        return ""
    return "GPU VM is in no GPU cluster (gpuCluster.id): it is on no InfiniBand fabric"


POLICY = CloudPolicy(
    node_types=(INSTANCE,),
    instance_type=_platform_preset,
    own_public_ip=_own_public_ip,
    ingress={RULE: _rule},
    node_zones=_node_zones,
    storage_zones=_storage_zones,
    placement=_placement,
    words={
        "gpu-nodes-no-public-ip": "no public address on any network interface",
        "storage-in-node-zone": "shared filesystems (one region, no zones)",
        "gpu-nodes-in-placement-group": "a GPU cluster",
    },
)
