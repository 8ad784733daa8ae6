"""Network promises: nothing open to the internet; the EFA security group talks only to itself."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.catalog import catalog
from gpufabric.clouds.gcp import facts as gcp_facts
from gpufabric.policies.ingress import allowed_ingress
from gpufabric.policies.model import (
    EVERY_CLOUD,
    Resource,
    ResourcePolicy,
    Stack,
    StackPolicy,
    as_list,
    is_true,
    maps,
)
from gpufabric.policies.nodes import AWS_INSTANCE, AWS_TEMPLATE, gpu_nodes, instance_type

AWS_SG = "aws:ec2/securityGroup:SecurityGroup"
AWS_SG_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
AWS_EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
GCP_FIREWALL = "gcp:compute/firewall:Firewall"
AZURE_NSG = "azure-native:network:NetworkSecurityGroup"
AZURE_RULE = "azure-native:network:SecurityRule"

_WORLD_WORDS = {"*", "any", "internet"}


def is_world(source: Any) -> bool:
    """0.0.0.0/0 and ::/0, Azure's '*' / 'Internet', and any range wider than an IPv4 /8 or
    an IPv6 /16 (0.0.0.0/1 + 128.0.0.0/1 is the internet too)."""
    if not isinstance(source, str):
        return False
    if source.strip().lower() in _WORLD_WORDS:
        return True
    try:
        net = ipaddress.ip_network(source.strip(), strict=False)
    except ValueError:
        return False
    return net.prefixlen < (8 if net.version == 4 else 16)


def _world_ingress(res: Resource) -> list[str]:
    return [
        f"allows ingress from {rule.source}, i.e. the internet"
        for rule in allowed_ingress(res)
        if not rule.reply_only and is_world(rule.source)
    ]


NO_WORLD_INGRESS = ResourcePolicy(
    name="no-ingress-from-internet",
    description=(
        "No security group rule, firewall rule, NSG rule, security list or security rule allows "
        "ingress from 0.0.0.0/0, ::/0, '*' / 'Internet', or any range wider than an IPv4 /8 "
        "(ICMP destination-unreachable reports and rules matching only a service's source ports "
        "aside)"
    ),
    check=_world_ingress,
    clouds=EVERY_CLOUD,
)


# -- EFA security group: all traffic from and to itself, nothing else ----------------------


def efa_security_groups(stack: Stack) -> list[Resource]:
    """The groups on every EFA interface of a GPU node (the primary interface may carry a
    management group besides; the EFA group is the one common to all EFA interfaces)."""
    found: dict[str, Resource] = {}
    definitions = {n.definition.label: n.definition for n in gpu_nodes(stack)}
    for definition in definitions.values():
        if definition.type not in (AWS_TEMPLATE, AWS_INSTANCE):
            continue
        common: dict[str, Resource] | None = None
        for nic in maps(definition.props.get("networkInterfaces")):
            if nic.get("interfaceType") not in ("efa", "efa-only"):
                continue
            groups = {}
            for ref in as_list(nic.get("securityGroups")):
                sg = stack.resolve(ref, [AWS_SG], definition, "networkInterfaces")
                if sg is not None:
                    groups[sg.label] = sg
            common = groups if common is None else {k: common[k] for k in common if k in groups}
        found.update(common or {})
    return list(found.values())


def _efa_self_only(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for sg in efa_security_groups(stack):
        self_in = self_out = False
        for rule, direction, peers, other in _rules_of(stack, sg):
            if other:
                yield (
                    rule,
                    f"EFA group {sg.name}: {direction} rule names {other}; EFA needs self only",
                )
                continue
            if not peers:
                continue
            if all(p is sg for p in peers):
                if _all_traffic(rule, direction):
                    self_in |= direction == "ingress"
                    self_out |= direction == "egress"
            else:
                names = ", ".join(p.name if p else "an unknown group" for p in peers if p is not sg)
                yield rule, f"EFA group {sg.name}: {direction} rule references {names}, not itself"
        if not self_in:
            yield (
                sg,
                "EFA group has no all-traffic ingress rule from itself: EFA traffic is dropped",
            )
        if not self_out:
            yield sg, "EFA group has no all-traffic egress rule to itself: EFA traffic is dropped"


def _rules_of(
    stack: Stack, sg: Resource
) -> Iterator[tuple[Resource, str, list[Resource | None], str]]:
    """(rule resource, direction, referenced groups, non-group source or '') for each rule of `sg`."""
    for rule in stack.of_type(AWS_INGRESS, AWS_EGRESS):
        if (
            stack.resolve(rule.props.get("securityGroupId"), [AWS_SG], rule, "securityGroupId")
            is not sg
        ):
            continue
        direction = "ingress" if rule.type == AWS_INGRESS else "egress"
        other = next(
            (
                f"{k} {rule.props[k]}"
                for k in ("cidrIpv4", "cidrIpv6", "prefixListId")
                if rule.props.get(k)
            ),
            "",
        )
        ref = rule.props.get("referencedSecurityGroupId")
        peers = [stack.resolve(ref, [AWS_SG], rule, "referencedSecurityGroupId")] if ref else []
        yield rule, direction, peers, other
    for rule in stack.of_type(AWS_SG_RULE):
        if (
            stack.resolve(rule.props.get("securityGroupId"), [AWS_SG], rule, "securityGroupId")
            is not sg
        ):
            continue
        yield rule, str(rule.props.get("type")), *_inline_peers(stack, sg, rule, rule.props)
    for direction in ("ingress", "egress"):
        for inline in maps(sg.props.get(direction)):
            yield sg, direction, *_inline_peers(stack, sg, sg, inline)


def _inline_peers(
    stack: Stack, sg: Resource, owner: Resource, rule: Mapping[str, Any]
) -> tuple[list[Resource | None], str]:
    for key in ("cidrBlocks", "ipv6CidrBlocks", "prefixListIds"):
        if as_list(rule.get(key)):
            return [], f"{key} {', '.join(map(str, as_list(rule.get(key))))}"
    peers: list[Resource | None] = [sg] if is_true(rule.get("self")) else []
    for ref in [*as_list(rule.get("securityGroups")), rule.get("sourceSecurityGroupId")]:
        if ref:
            peers.append(stack.resolve(ref, [AWS_SG], owner, "securityGroups"))
    return peers, ""


def _all_traffic(rule: Resource, direction: str) -> bool:
    props = rule.props
    if rule.type in (AWS_INGRESS, AWS_EGRESS):
        return str(props.get("ipProtocol")) in ("-1", "all")
    if rule.type == AWS_SG_RULE:
        return str(props.get("protocol")) in ("-1", "all")
    return any(str(r.get("protocol")) in ("-1", "all") for r in maps(props.get(direction)))


EFA_SELF_ONLY = StackPolicy(
    name="efa-security-group-self-only",
    description=(
        "The security group on GPU nodes' EFA interfaces allows all traffic from itself and to "
        "itself (both are required for EFA) and references no other group, CIDR or prefix list"
    ),
    check=_efa_self_only,
    clouds=("aws",),
)


# -- GCP: the GPU NICs' VPCs take traffic from the cluster only ------------------------------

GCP_NETWORK = "gcp:compute/network:Network"
GCP_SUBNET = "gcp:compute/subnetwork:Subnetwork"


def gcp_gpu_networks(stack: Stack) -> dict[str, tuple[Resource, list[str]]]:
    """{label: (network, its subnets' ranges)} for the VPCs of GPU NICs (those after the
    instance type's host NICs)."""
    found: dict[str, tuple[Resource, list[str]]] = {}
    for node in gpu_nodes(stack):
        definition = node.definition
        entry = catalog().get(instance_type(definition) or "")
        if not definition.type.startswith("gcp:") or entry is None or entry.cloud != "gcp":
            continue
        host_nics = gcp_facts.of(entry).host_nics
        for nic in list(maps(definition.props.get("networkInterfaces")))[host_nics:]:
            subnet = stack.resolve(
                nic.get("subnetwork"), [GCP_SUBNET], definition, "networkInterfaces"
            )
            ref = nic.get("network") or (subnet.props.get("network") if subnet else None)
            network = stack.resolve(ref, [GCP_NETWORK], subnet or definition, "network")
            if network is not None:
                found[network.label] = (network, _ranges_of(stack, network))
    return found


def _ranges_of(stack: Stack, network: Resource) -> list[str]:
    ranges = []
    for subnet in stack.of_type(GCP_SUBNET):
        if stack.resolve(subnet.props.get("network"), [GCP_NETWORK], subnet, "network") is network:
            ranges.append(str(subnet.props.get("ipCidrRange")))
            ranges += [
                str(r.get("ipCidrRange")) for r in maps(subnet.props.get("secondaryIpRanges"))
            ]
    return ranges


def _inside(source: str, ranges: list[str]) -> bool:
    try:
        net = ipaddress.ip_network(source, strict=False)
        outers = [ipaddress.ip_network(r, strict=False) for r in ranges]
    except ValueError:
        return False
    if isinstance(net, ipaddress.IPv4Network):
        return any(isinstance(o, ipaddress.IPv4Network) and net.subnet_of(o) for o in outers)
    return any(isinstance(o, ipaddress.IPv6Network) and net.subnet_of(o) for o in outers)


def _gpu_network_cluster_only(stack: Stack) -> Iterator[tuple[Resource, str]]:
    networks = gcp_gpu_networks(stack)
    for rule in stack.of_type(GCP_FIREWALL):
        network = stack.resolve(rule.props.get("network"), [GCP_NETWORK], rule, "network")
        if network is None or network.label not in networks:
            continue
        if str(rule.props.get("direction") or "INGRESS").upper() != "INGRESS":
            continue
        if not as_list(rule.props.get("allows")) or is_true(rule.props.get("disabled")):
            continue
        ranges = networks[network.label][1]
        for source in as_list(rule.props.get("sourceRanges")):
            if not _inside(str(source), ranges):
                yield (
                    rule,
                    (
                        f"GPU network {network.name} allows ingress from {source}, outside its "
                        f"own subnets ({', '.join(ranges) or 'none'})"
                    ),
                )


GPU_NETWORK_CLUSTER_ONLY = StackPolicy(
    name="gpu-network-cluster-only",
    description=(
        "GCP: firewall rules on the VPCs of GPU NICs (after the host NICs) allow ingress only "
        "from those VPCs' own subnets, the counterpart of the EFA group's self-only rule"
    ),
    check=_gpu_network_cluster_only,
    clouds=("gcp",),
)
