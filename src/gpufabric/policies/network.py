"""Network promises: nothing open to the internet; the GPU fabric talks only to the cluster."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

from gpufabric.policies import cloud
from gpufabric.policies.ingress import allowed_ingress
from gpufabric.policies.model import Resource, ResourcePolicy, Stack, StackCheck, StackPolicy

_WORLD_WORDS = {"*", "any", "internet"}


def is_world(source: Any) -> bool:
    """0.0.0.0/0 and ::/0, the words '*' / 'Internet', and any range wider than an IPv4 /8 or
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
    summary=(
        "No security group rule, firewall rule, NSG rule, security list or security rule allows "
        "ingress from 0.0.0.0/0, ::/0, '*' / 'Internet', or any range wider than an IPv4 /8 "
        "(ICMP destination-unreachable reports and rules matching only a service's source ports "
        "aside)"
    ),
    check=_world_ingress,
)


def _run(hook: str) -> StackCheck:
    """A stack check that runs `hook` of every cloud that provides it."""

    def check(stack: Stack) -> Iterator[tuple[Resource, str]]:
        for run in cloud.hooks(hook):
            yield from run(stack)

    return check


EFA_SELF_ONLY = StackPolicy(
    name="efa-security-group-self-only",
    summary=(
        "The security group on GPU nodes' EFA interfaces allows all traffic from itself and to "
        "itself (both are required for EFA) and references no other group, CIDR or prefix list"
    ),
    check=_run("fabric_group_self_only"),
    reads="fabric_group_self_only",
)


GPU_NETWORK_CLUSTER_ONLY = StackPolicy(
    name="gpu-network-cluster-only",
    summary=(
        "Firewall rules on the networks of GPU NICs (after the host NICs) allow ingress only "
        "from those networks' own subnets, the counterpart of the EFA group's self-only rule"
    ),
    check=_run("gpu_network_cluster_only"),
    reads="gpu_network_cluster_only",
)
