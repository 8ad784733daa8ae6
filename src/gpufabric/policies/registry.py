"""Every gpufabric policy, and running them all over a stack (the offline plan or the engine's)."""

from __future__ import annotations

from gpufabric.policies.model import ResourcePolicy, Stack, StackPolicy, Violation
from gpufabric.policies.network import EFA_SELF_ONLY, GPU_NETWORK_CLUSTER_ONLY, NO_WORLD_INGRESS
from gpufabric.policies.nodes import IMDSV2, NO_PUBLIC_IP
from gpufabric.policies.placement import PLACEMENT
from gpufabric.policies.storage import ENCRYPTION_AT_REST, STORAGE_ZONE
from gpufabric.policies.transit import ENCRYPTION_IN_TRANSIT

RESOURCE_POLICIES: tuple[ResourcePolicy, ...] = (IMDSV2, ENCRYPTION_AT_REST, NO_WORLD_INGRESS)
STACK_POLICIES: tuple[StackPolicy, ...] = (
    PLACEMENT,
    STORAGE_ZONE,
    NO_PUBLIC_IP,
    EFA_SELF_ONLY,
    GPU_NETWORK_CLUSTER_ONLY,
    ENCRYPTION_IN_TRANSIT,
)


def check_stack(stack: Stack) -> list[Violation]:
    """Every violation of every policy, in policy order then resource order, each once."""
    stack = stack.indexed()
    found: list[Violation] = []
    for policy in RESOURCE_POLICIES:
        for resource in stack.resources:
            found += [
                Violation(policy.name, resource.label, reason, resource.urn)
                for reason in policy.check(resource)
            ]
    for policy in STACK_POLICIES:
        found += [
            Violation(policy.name, resource.label, reason, resource.urn)
            for resource, reason in policy.check(stack)
        ]
    return list(dict.fromkeys(found))  # a subnet shared by 1024 nodes is one violation
