"""GCP resources as gpufabric's policies read them: instances, instance templates and managed
instance groups are nodes; firewalls let traffic in; Managed Lustre, Parallelstore and zonal
Filestore sit in a zone; compact placement is a COLLOCATED or HIGH_THROUGHPUT resource policy."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.catalog import catalog
from gpufabric.clouds.gcp import facts
from gpufabric.clouds.gcp.network_policy import (
    FIREWALL,
    firewall_sources,
    gpu_network_cluster_only,
)
from gpufabric.policies.cloud import CloudPolicy
from gpufabric.policies.ingress import port_words
from gpufabric.policies.model import Ingress, Node, Resource, Stack, as_list, dig, is_true, maps
from gpufabric.policies.nodes import launched_type

INSTANCE = "gcp:compute/instance:Instance"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
REGION_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
FROM_TEMPLATE = "gcp:compute/instanceFromTemplate:InstanceFromTemplate"
GROUP = "gcp:compute/instanceGroupManager:InstanceGroupManager"
REGION_GROUP = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
RESOURCE_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
LUSTRE = "gcp:lustre/instance:Instance"
PARALLELSTORE = "gcp:parallelstore/instance:Instance"
FILESTORE = "gcp:filestore/instance:Instance"
TEMPLATES = (TEMPLATE, REGION_TEMPLATE)
_ZONE = re.compile(r"^[a-z]+-[a-z]+\d+-[a-z]$")


def _machine_type(resource: Resource) -> str | None:
    value = resource.props.get("machineType")
    return value.rsplit("/", 1)[-1] if isinstance(value, str) and value else None  # may be a URL


def _template_of(stack: Stack, res: Resource) -> Resource | None:
    if res.type in (GROUP, REGION_GROUP):
        for version in maps(res.props.get("versions")):
            found = stack.resolve(version.get("instanceTemplate"), TEMPLATES, res, "versions")
            if found:
                return found
    if res.type == FROM_TEMPLATE:
        return stack.resolve(
            res.props.get("sourceInstanceTemplate"), TEMPLATES, res, "sourceInstanceTemplate"
        )
    return None


def _own_public_ip(res: Resource) -> Iterator[str]:
    if not res.type.startswith("gcp:compute/"):
        return
    for index, nic in enumerate(maps(res.props.get("networkInterfaces"))):
        if as_list(nic.get("accessConfigs")) or as_list(nic.get("ipv6AccessConfigs")):
            yield f"networkInterfaces[{index}] has an accessConfig (an external IP)"


def _node_public_ips(stack: Stack, node: Node) -> Iterator[tuple[Resource, str]]:
    if node.template is not None and node.resource.type == FROM_TEMPLATE:
        yield from ((node.resource, r) for r in _own_public_ip(node.resource))


def _firewall(props: Mapping[str, Any]) -> Iterator[Ingress]:
    if str(props.get("direction") or "INGRESS").upper() != "INGRESS" or is_true(
        props.get("disabled")
    ):
        return
    for allow in maps(props.get("allows")):
        protocol = str(allow.get("protocol", "all")).lower()
        ports = port_words(as_list(allow.get("ports")))
        for source in firewall_sources(props):
            yield Ingress(source, protocol, ports)


def _node_zones(stack: Stack, node: Node) -> set[str]:
    props = node.resource.props
    if node.resource.type == REGION_GROUP:
        return {str(z).rsplit("/", 1)[-1] for z in as_list(props.get("distributionPolicyZones"))}
    return {str(props.get("zone") or "").rsplit("/", 1)[-1]}


def _storage_zones(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for fs in stack.of_type(LUSTRE, PARALLELSTORE, FILESTORE):
        location = str(fs.props.get("location") or "")
        if _ZONE.match(location):  # a regional Filestore has no zone to compare
            yield fs, location


def _placement(stack: Stack, node: Node) -> str:
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
        # an instance made from a template may override its machine type and reservation
        reserved = dig(node.resource.props, "reservationAffinity", "type") or dig(
            node.definition.props, "reservationAffinity", "type"
        )
        entry = catalog().get(launched_type(node) or "")
        dense = entry is not None and entry.cloud == "gcp" and facts.of(entry).dense_reservation
        if reserved == "SPECIFIC_RESERVATION" and not dense:
            # a plain reservation takes no external policy: it is placed by its own (Cluster
            # Toolkit resume.py, update_reservation_props), which this stack cannot read
            return ""
        kind = "template" if node.definition.type in TEMPLATES else "instance"
        return f"GPU {kind} {node.definition.name} has no compact placement resource policy"
    for owner, ref in refs:
        policy = stack.resolve(ref, [RESOURCE_POLICY], owner, "resourcePolicies")
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


POLICY = CloudPolicy(
    node_types=(INSTANCE, FROM_TEMPLATE),
    group_types=(GROUP, REGION_GROUP),
    template_types=TEMPLATES,
    gpu_family=r"(a\d+|a2|g2)-[a-z]+(gpu)?-\d+g",
    instance_type=_machine_type,
    template_of=_template_of,
    own_public_ip=_own_public_ip,
    node_public_ips=_node_public_ips,
    ingress={FIREWALL: _firewall},
    node_zones=_node_zones,
    storage_zones=_storage_zones,
    placement=_placement,
    gpu_network_cluster_only=gpu_network_cluster_only,
    words={
        "gpu-nodes-no-public-ip": "no access config on any network interface",
        "storage-in-node-zone": "Managed Lustre, Parallelstore, zonal Filestore",
        "gpu-nodes-in-placement-group": "a COLLOCATED compact placement policy",
        "gpu-network-cluster-only": "firewall rules of the GPU NICs' VPCs",
    },
)
