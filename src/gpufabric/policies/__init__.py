"""gpufabric's promises as policies: run offline over `gpufabric plan`, or as a Pulumi policy
pack (policy/) over `pulumi preview` / `pulumi up`. Nothing here imports pulumi_policy except
pack.py, and nothing runs at import time."""

from gpufabric.policies.model import Resource, ResourcePolicy, Stack, StackPolicy, Violation
from gpufabric.policies.registry import RESOURCE_POLICIES, STACK_POLICIES, check_stack

__all__ = [
    "RESOURCE_POLICIES",
    "STACK_POLICIES",
    "Resource",
    "ResourcePolicy",
    "Stack",
    "StackPolicy",
    "Violation",
    "check_stack",
]
