"""OCI resources as gpufabric's policies read them: a cluster network launches nodes from an
instance configuration; security lists and NSG rules let traffic in; File Storage with Lustre
sits in an availability domain; a cluster network is the RDMA placement."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.policies.cloud import CloudPolicy
from gpufabric.policies.ingress import span
from gpufabric.policies.model import Ingress, Node, Resource, Stack, as_map, dig, is_true, maps

CLUSTER_NETWORK = "oci:Core/clusterNetwork:ClusterNetwork"
INSTANCE_CONFIG = "oci:Core/instanceConfiguration:InstanceConfiguration"
SECURITY_LIST = "oci:Core/securityList:SecurityList"
NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
_PROTOCOL = {"6": "tcp", "17": "udp", "1": "icmp", "all": "all"}


def _shape(resource: Resource) -> str | None:
    value = dig(resource.props, "instanceDetails", "launchDetails", "shape")
    return value.rsplit("/", 1)[-1] if isinstance(value, str) and value else None


def _template_of(stack: Stack, res: Resource) -> Resource | None:
    if res.type != CLUSTER_NETWORK:
        return None
    for pool in maps(res.props.get("instancePools")):
        found = stack.resolve(
            pool.get("instanceConfigurationId"), [INSTANCE_CONFIG], res, "instancePools"
        )
        if found:
            return found
    return None


def _own_public_ip(res: Resource) -> Iterator[str]:
    if res.type != INSTANCE_CONFIG:
        return
    vnic = dig(res.props, "instanceDetails", "launchDetails", "createVnicDetails")
    if is_true(as_map(vnic).get("assignPublicIp")):
        yield "the front-end VNIC asks for a public IP (createVnicDetails.assignPublicIp)"


def _rule(rule: Mapping[str, Any]) -> Ingress:
    protocol = _PROTOCOL.get(str(rule.get("protocol")).lower(), str(rule.get("protocol")))
    options = rule.get("tcpOptions") or rule.get("udpOptions") or {}
    ports = options.get("destinationPortRange") or options
    spans = None
    if ports.get("min") is not None or ports.get("max") is not None:
        spans = span(ports.get("min", 1), ports.get("max", 65535))
    # ICMP destination unreachable (type 3) reports on traffic the host sent: not a way in
    icmp_error = protocol == "icmp" and (rule.get("icmpOptions") or {}).get("type") == 3
    return Ingress(
        str(rule.get("source", "0.0.0.0/0")),
        protocol,
        spans,
        reply_only=bool(options.get("sourcePortRange")) or icmp_error,
    )


def _security_list(props: Mapping[str, Any]) -> Iterator[Ingress]:
    for rule in maps(props.get("ingressSecurityRules")):
        yield _rule(rule)


def _nsg_rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    # a rule whose source is another NSG lets in that group's VNICs, not an address range
    if props.get("direction") == "INGRESS" and props.get("sourceType") != "NETWORK_SECURITY_GROUP":
        yield _rule(props)


def _node_zones(stack: Stack, node: Node) -> set[str]:
    return {str(dig(node.resource.props, "placementConfiguration", "availabilityDomain") or "")}


def _storage_zones(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for fs in stack.of_type(LUSTRE):
        if fs.props.get("availabilityDomain"):
            yield fs, str(fs.props["availabilityDomain"])


def _placement(stack: Stack, node: Node) -> str:
    """A cluster network places its pool on one RDMA network by construction; GPU instances
    launched on their own are on none."""
    if node.resource.type == CLUSTER_NETWORK:
        return ""
    return "GPU nodes are not in a cluster network: they have no RDMA network"


POLICY = CloudPolicy(
    group_types=(CLUSTER_NETWORK,),
    instance_type=_shape,
    template_of=_template_of,
    own_public_ip=_own_public_ip,
    ingress={SECURITY_LIST: _security_list, NSG_RULE: _nsg_rule},
    node_zones=_node_zones,
    storage_zones=_storage_zones,
    placement=_placement,
    words={
        "gpu-nodes-no-public-ip": "no public IP on the instance configuration's VNIC",
        "storage-in-node-zone": "File Storage with Lustre",
        "gpu-nodes-in-placement-group": "a cluster network",
    },
)
