"""Every rule that lets traffic in, read the same way whatever builds it, and the SSH promise:
the nodes take SSH only from the stack's admin ranges.

`allowed_ingress` turns one resource (an AWS security group or rule, a GCP firewall, an Azure
NSG or rule, an OCI security list or NSG rule, a Nebius security rule) into plain records:
source, protocol, destination ports, and whether the rule only matches given source ports
(replies from a service, not a client connecting). The policies in network.py and here read
those records and nothing cloud-specific.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gpufabric.policies.model import EVERY_CLOUD, Resource, ResourcePolicy, as_list, is_true, maps

AWS_SG = "aws:ec2/securityGroup:SecurityGroup"
AWS_SG_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
AWS_INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
GCP_FIREWALL = "gcp:compute/firewall:Firewall"
AZURE_NSG = "azure-native:network:NetworkSecurityGroup"
AZURE_RULE = "azure-native:network:SecurityRule"
OCI_LIST = "oci:Core/securityList:SecurityList"
OCI_NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
NEBIUS_RULE = "nebius:index/vpcV1SecurityRule:VpcV1SecurityRule"

SSH_PORT = 22
# The widest range an admin network may be: a /16 (IPv4) or a /48 (IPv6); the shipped stacks
# use a /24 VPN range, their own subnets and GCP's IAP range (a /20).
WIDEST_ADMIN_PREFIX = {4: 16, 6: 48}
Ports = tuple[int, int]


@dataclass(frozen=True)
class Ingress:
    """One allowed way in: from `source`, over `protocol` (tcp, udp, icmp or all), to `ports`
    (None: every port); `reply_only` when the rule matches given source ports only."""

    source: str
    protocol: str
    ports: tuple[Ports, ...] | None
    reply_only: bool = False

    def admits(self, protocol: str, port: int) -> bool:
        if self.protocol not in (protocol, "all"):
            return False
        return self.ports is None or any(low <= port <= high for low, high in self.ports)


def allowed_ingress(res: Resource) -> list[Ingress]:
    """The allowed ingress of one resource; [] for a resource that holds no ingress rule."""
    reader = _READERS.get(res.type)
    return list(reader(res.props)) if reader else []


def _span(low: Any, high: Any) -> tuple[Ports, ...] | None:
    if low in (None, -1, "-1") and high in (None, -1, "-1"):
        return None
    low = int(low if low not in (None, "") else high)
    return ((low, int(high if high not in (None, "") else low)),)


def _port_words(values: list[Any]) -> tuple[Ports, ...] | None:
    """'22', '1019-1023', '*' (Azure, GCP) as port spans; None when any port."""
    spans: list[Ports] = []
    for value in values:
        text = str(value).strip()
        if text in ("*", ""):
            return None
        low, _, high = text.partition("-")
        spans.append((int(low), int(high or low)))
    return tuple(spans) or None


def _aws_protocol(value: Any) -> str:
    text = str(value).lower()
    return {"-1": "all", "6": "tcp", "17": "udp", "1": "icmp"}.get(text, text)


def _aws_rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    protocol = _aws_protocol(props.get("ipProtocol", props.get("protocol")))
    ports = None if protocol == "all" else _span(props.get("fromPort"), props.get("toPort"))
    sources = [props.get("cidrIpv4"), props.get("cidrIpv6")]
    sources += [*as_list(props.get("cidrBlocks")), *as_list(props.get("ipv6CidrBlocks"))]
    for source in sources:
        if source:
            yield Ingress(str(source), protocol, ports)


def _aws_group_rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    if props.get("type") == "ingress":
        yield from _aws_rule(props)


def _aws_group(props: Mapping[str, Any]) -> Iterator[Ingress]:
    for rule in maps(props.get("ingress")):
        yield from _aws_rule(rule)


def _gcp_firewall(props: Mapping[str, Any]) -> Iterator[Ingress]:
    if str(props.get("direction") or "INGRESS").upper() != "INGRESS" or is_true(
        props.get("disabled")
    ):
        return
    for allow in maps(props.get("allows")):
        protocol = str(allow.get("protocol", "all")).lower()
        ports = _port_words(as_list(allow.get("ports")))
        for source in as_list(props.get("sourceRanges")):
            yield Ingress(str(source), protocol, ports)


def _azure_rule(rule: Mapping[str, Any]) -> Iterator[Ingress]:
    if str(rule.get("direction", "")).lower() != "inbound":
        return
    if str(rule.get("access", "")).lower() != "allow":
        return
    protocol = str(rule.get("protocol", "*")).lower().replace("*", "all")
    ports = _port_words(
        as_list(rule.get("destinationPortRanges")) or [rule.get("destinationPortRange", "*")]
    )
    source_ports = as_list(rule.get("sourcePortRanges")) or [rule.get("sourcePortRange") or "*"]
    reply_only = "*" not in [str(p) for p in source_ports]
    for source in [rule.get("sourceAddressPrefix"), *as_list(rule.get("sourceAddressPrefixes"))]:
        if source:
            yield Ingress(str(source), protocol, ports, reply_only)


def _azure_group(props: Mapping[str, Any]) -> Iterator[Ingress]:
    for rule in maps(props.get("securityRules")):
        yield from _azure_rule(rule)


_OCI_PROTOCOL = {"6": "tcp", "17": "udp", "1": "icmp", "all": "all"}


def _oci_rule(rule: Mapping[str, Any]) -> Ingress:
    protocol = _OCI_PROTOCOL.get(str(rule.get("protocol")).lower(), str(rule.get("protocol")))
    options = rule.get("tcpOptions") or rule.get("udpOptions") or {}
    ports = options.get("destinationPortRange") or options
    span = None
    if ports.get("min") is not None or ports.get("max") is not None:
        span = _span(ports.get("min", 1), ports.get("max", 65535))
    # ICMP destination unreachable (type 3) reports on traffic the host sent: not a way in
    icmp_error = protocol == "icmp" and (rule.get("icmpOptions") or {}).get("type") == 3
    return Ingress(
        str(rule.get("source", "0.0.0.0/0")),
        protocol,
        span,
        reply_only=bool(options.get("sourcePortRange")) or icmp_error,
    )


def _oci_list(props: Mapping[str, Any]) -> Iterator[Ingress]:
    for rule in maps(props.get("ingressSecurityRules")):
        yield _oci_rule(rule)


def _oci_nsg_rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    if props.get("direction") == "INGRESS":
        yield _oci_rule(props)


def _nebius_rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
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


_READERS = {
    AWS_INGRESS: _aws_rule,
    AWS_SG_RULE: _aws_group_rule,
    AWS_SG: _aws_group,
    GCP_FIREWALL: _gcp_firewall,
    AZURE_NSG: _azure_group,
    AZURE_RULE: _azure_rule,
    OCI_LIST: _oci_list,
    OCI_NSG_RULE: _oci_nsg_rule,
    NEBIUS_RULE: _nebius_rule,
}
INGRESS_TYPES = tuple(_READERS)


def wider_than_admin(source: str) -> bool:
    """A service tag or word ('*', 'Internet', 'VirtualNetwork'), or a range wider than a /16
    (IPv4) or a /48 (IPv6)."""
    try:
        net = ipaddress.ip_network(source.strip(), strict=False)
    except ValueError:
        return True
    return net.prefixlen < WIDEST_ADMIN_PREFIX[net.version]


def _ssh_from_admin_only(res: Resource) -> list[str]:
    return [
        f"lets SSH (TCP {SSH_PORT}) in from {rule.source}, wider than an admin range (a /16)"
        for rule in allowed_ingress(res)
        if rule.admits("tcp", SSH_PORT) and not rule.reply_only and wider_than_admin(rule.source)
    ]


SSH_FROM_ADMIN_ONLY = ResourcePolicy(
    name="ssh-from-admin-ranges-only",
    description=(
        "No rule lets SSH (TCP 22, or every port) in from anything wider than an admin range: "
        "a /16 (IPv4) or /48 (IPv6) at most, never a service tag or '*'. Rules that only match "
        "given source ports (a service's replies) are not a way in for SSH clients"
    ),
    check=_ssh_from_admin_only,
    clouds=EVERY_CLOUD,
)
