"""GCP: firewall rules on the VPCs of GPU NICs (those after the machine type's host NICs)
allow ingress only from those VPCs' own subnets, the counterpart of EFA's self-only group."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.catalog import catalog
from gpufabric.clouds.gcp import facts as gcp_facts
from gpufabric.policies.model import Resource, Stack, as_list, is_true, maps
from gpufabric.policies.nodes import gpu_nodes, instance_type

FIREWALL = "gcp:compute/firewall:Firewall"

NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"


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
            subnet = stack.resolve(nic.get("subnetwork"), [SUBNET], definition, "networkInterfaces")
            ref = nic.get("network") or (subnet.props.get("network") if subnet else None)
            network = stack.resolve(ref, [NETWORK], subnet or definition, "network")
            if network is not None:
                found[network.label] = (network, _ranges_of(stack, network))
    return found


def _ranges_of(stack: Stack, network: Resource) -> list[str]:
    ranges = []
    for subnet in stack.of_type(SUBNET):
        if stack.resolve(subnet.props.get("network"), [NETWORK], subnet, "network") is network:
            ranges.append(str(subnet.props.get("ipCidrRange")))
            ranges += [
                str(r.get("ipCidrRange")) for r in maps(subnet.props.get("secondaryIpRanges"))
            ]
    return ranges


def firewall_sources(props: Mapping[str, Any]) -> list[str]:
    """The source ranges of an ingress firewall rule; a rule that names no source range, no
    source tag and no source service account lets in every IPv4 address (GCP's default)."""
    sources = [str(s) for s in as_list(props.get("sourceRanges"))]
    if sources or as_list(props.get("sourceTags")) or as_list(props.get("sourceServiceAccounts")):
        return sources
    return ["0.0.0.0/0"]


def _inside(source: str, ranges: list[str]) -> bool:
    try:
        net = ipaddress.ip_network(source, strict=False)
        outers = [ipaddress.ip_network(r, strict=False) for r in ranges]
    except ValueError:
        return False
    if isinstance(net, ipaddress.IPv4Network):
        return any(isinstance(o, ipaddress.IPv4Network) and net.subnet_of(o) for o in outers)
    return any(isinstance(o, ipaddress.IPv6Network) and net.subnet_of(o) for o in outers)


def gpu_network_cluster_only(stack: Stack) -> Iterator[tuple[Resource, str]]:
    networks = gcp_gpu_networks(stack)
    for rule in stack.of_type(FIREWALL):
        network = stack.resolve(rule.props.get("network"), [NETWORK], rule, "network")
        if network is None or network.label not in networks:
            continue
        if str(rule.props.get("direction") or "INGRESS").upper() != "INGRESS":
            continue
        if not as_list(rule.props.get("allows")) or is_true(rule.props.get("disabled")):
            continue
        ranges = networks[network.label][1]
        for source in firewall_sources(rule.props):
            if not _inside(source, ranges):
                yield (
                    rule,
                    (
                        f"GPU network {network.name} allows ingress from {source}, outside its "
                        f"own subnets ({', '.join(ranges) or 'none'})"
                    ),
                )
