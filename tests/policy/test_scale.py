"""Policies stay linear in the number of resources (1024 individual instances are a real
stack shape): counted in reference look-ups, not timed."""

from __future__ import annotations

import dataclasses

import pytest

from gpufabric.policies import Resource, check_stack
from gpufabric.policies import model as policy_model

from .helpers import stack

INSTANCE = "aws:ec2/instance:Instance"


def _with_instances(count: int):
    view = stack("aws-h100", "gpufabric:nodeGroup=instances", "gpufabric:nodes=2")
    first = next(r for r in view.resources if r.type == INSTANCE)
    others = [r for r in view.resources if r.type != INSTANCE]
    clones = [
        dataclasses.replace(first, name=f"n{i}", id=f"<n{i}.id>", urn=f"{first.urn}-{i}")
        for i in range(count)
    ]
    view.resources = others + clones
    return view


@pytest.mark.parametrize("count", [64, 512])
def test_reference_lookups_grow_linearly(count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = {"handles": 0, "scanned": 0}
    handles, candidates = policy_model.Resource.handles, policy_model.Stack._candidates

    def counting_handles(self: Resource) -> set[str]:
        seen["handles"] += 1
        return handles(self)

    def counting_candidates(self: policy_model.Stack, handle: str) -> list[Resource]:
        found = candidates(self, handle)
        seen["scanned"] += len(found)
        return found

    monkeypatch.setattr(policy_model.Resource, "handles", counting_handles)
    monkeypatch.setattr(policy_model.Stack, "_candidates", counting_candidates)
    view = _with_instances(count)
    assert check_stack(view) == []
    # indexing touches each resource once; each look-up visits the few resources sharing a
    # handle (a launch template, a role and a profile share one in the plan), never the
    # whole stack: a rescan per node would be ~count x len(resources)
    assert seen["handles"] < 3 * len(view.resources)
    assert seen["scanned"] < 40 * len(view.resources)
