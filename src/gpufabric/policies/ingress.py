"""Every rule that lets traffic in, read the same way whatever builds it, and the SSH promise:
the nodes take SSH only from the stack's admin ranges.

`allowed_ingress` turns one resource (a security group or rule, a firewall, a security list)
into plain records: source, protocol, destination ports, and whether the rule only matches
given source ports (replies from a service, not a client connecting). Each cloud's policy data
(CloudPolicy.ingress) says which of its resource types hold such rules and reads them; the
policies in network.py and here read those records and nothing cloud-specific.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from gpufabric.policies import cloud
from gpufabric.policies.model import Ingress, Ports, Resource, ResourcePolicy

SSH_PORT = 22
# The widest range an admin network may be: a /16 (IPv4) or a /48 (IPv6); the shipped stacks
# use a /24 VPN range, their own subnets and an identity-aware proxy's range (a /20).
WIDEST_ADMIN_PREFIX = {4: 16, 6: 48}
__all__ = ["SSH_FROM_ADMIN_ONLY", "Ingress", "allowed_ingress", "port_words", "span"]


def allowed_ingress(res: Resource) -> list[Ingress]:
    """The allowed ingress of one resource; [] for a resource that holds no ingress rule."""
    reader = cloud.ingress_reader(res.type)
    return list(reader(res.props)) if reader else []


def span(low: Any, high: Any) -> tuple[Ports, ...] | None:
    if low in (None, -1, "-1") and high in (None, -1, "-1"):
        return None
    low = int(low if low not in (None, "") else high)
    return ((low, int(high if high not in (None, "") else low)),)


def port_words(values: list[Any]) -> tuple[Ports, ...] | None:
    """'22', '1019-1023', '*' as port spans; None when any port."""
    spans: list[Ports] = []
    for value in values:
        text = str(value).strip()
        if text in ("*", ""):
            return None
        low, _, high = text.partition("-")
        spans.append((int(low), int(high or low)))
    return tuple(spans) or None


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
    summary=(
        "No rule lets SSH (TCP 22, or every port) in from anything wider than an admin range: "
        "a /16 (IPv4) or /48 (IPv6) at most, never a service tag or '*'. Rules that only match "
        "given source ports (a service's replies) are not a way in for SSH clients"
    ),
    check=_ssh_from_admin_only,
)
