"""GPU nodes sit close together: each cloud says what placing them close is (a placement
group, a compact placement policy, a cluster network) in its policy data."""

from __future__ import annotations

from collections.abc import Iterator

from gpufabric.policies import cloud
from gpufabric.policies.model import Resource, Stack, StackPolicy
from gpufabric.policies.nodes import gpu_nodes


def _placement(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for node in gpu_nodes(stack):
        # every GPU node is of a cloud with policy data (gpu_nodes reads only theirs)
        data = cloud.of_type(node.resource.type) or cloud.CloudPolicy()
        reason = data.placement(stack, node)
        if reason:
            yield node.resource, reason


PLACEMENT = StackPolicy(
    name="gpu-nodes-in-placement-group",
    summary="Every GPU node group is placed close together, on one fabric",
    check=_placement,
)
