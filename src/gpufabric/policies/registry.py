"""Every gpufabric policy, and running them all over a stack (the offline plan or the engine's).

A policy runs only on the clouds it declares (`clouds`): which policies apply to a stack is
read from the policies' own data and the stack's resource types, never decided here per cloud.
"""

from __future__ import annotations

from gpufabric.policies.ingress import SSH_FROM_ADMIN_ONLY
from gpufabric.policies.model import ResourcePolicy, Stack, StackPolicy, Violation, stack_clouds
from gpufabric.policies.network import EFA_SELF_ONLY, GPU_NETWORK_CLUSTER_ONLY, NO_WORLD_INGRESS
from gpufabric.policies.nodes import IMDSV2, NO_PUBLIC_IP
from gpufabric.policies.placement import PLACEMENT
from gpufabric.policies.storage import ENCRYPTION_AT_REST, STORAGE_ZONE
from gpufabric.policies.transit import ENCRYPTION_IN_TRANSIT

RESOURCE_POLICIES: tuple[ResourcePolicy, ...] = (
    IMDSV2,
    ENCRYPTION_AT_REST,
    NO_WORLD_INGRESS,
    SSH_FROM_ADMIN_ONLY,
)
STACK_POLICIES: tuple[StackPolicy, ...] = (
    PLACEMENT,
    STORAGE_ZONE,
    NO_PUBLIC_IP,
    EFA_SELF_ONLY,
    GPU_NETWORK_CLUSTER_ONLY,
    ENCRYPTION_IN_TRANSIT,
)
ALL_POLICIES: tuple[ResourcePolicy | StackPolicy, ...] = (*RESOURCE_POLICIES, *STACK_POLICIES)


def applies(policy: ResourcePolicy | StackPolicy, clouds: set[str]) -> bool:
    """Whether a policy applies to a stack of these clouds (a stack of no known cloud: all)."""
    return not clouds or "*" in policy.clouds or bool(clouds & set(policy.clouds))


def not_applicable(stack: Stack) -> list[ResourcePolicy | StackPolicy]:
    """The policies that do not apply to this stack's clouds, in registry order."""
    clouds = stack_clouds(stack.resources)
    return [p for p in ALL_POLICIES if not applies(p, clouds)]


def check_stack(stack: Stack) -> list[Violation]:
    """Every violation of every policy that applies, in policy order then resource order,
    each once."""
    stack = stack.indexed()
    clouds = stack_clouds(stack.resources)
    found: list[Violation] = []
    for policy in RESOURCE_POLICIES:
        if not applies(policy, clouds):
            continue
        for resource in stack.resources:
            found += [
                Violation(policy.name, resource.label, reason, resource.urn)
                for reason in policy.check(resource)
            ]
    for policy in STACK_POLICIES:
        if not applies(policy, clouds):
            continue
        found += [
            Violation(policy.name, resource.label, reason, resource.urn)
            for resource, reason in policy.check(stack)
        ]
    return list(dict.fromkeys(found))  # a subnet shared by 1024 nodes is one violation
