"""Every stack in stacks/ passes every policy, and the policies actually see its GPU nodes
(a pass over a plan where a policy found nothing to check would prove nothing)."""

from __future__ import annotations

import pytest

from gpufabric.policies import check_stack
from gpufabric.policies.nodes import gpu_nodes
from gpufabric.policies.storage import node_zones, storage_zones
from gpufabric.vocabulary import ENCRYPTION_MODES

from .helpers import STACKS, stack


@pytest.mark.parametrize("name", STACKS)
def test_every_stack_passes_every_policy(name: str) -> None:
    assert [v.line() for v in check_stack(stack(name))] == []


@pytest.mark.parametrize("name", STACKS)
def test_policies_see_the_gpu_nodes_and_their_zone(name: str) -> None:
    view = stack(name)
    assert list(gpu_nodes(view)), "no GPU node group recognised"
    zones = node_zones(view)
    assert len(zones) == 1
    for _, zone in storage_zones(view):
        assert zone in zones
    assert view.outputs["cluster"]["encryption"] in ENCRYPTION_MODES
