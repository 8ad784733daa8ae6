"""The plan's own work per resource stays flat as nodes grow (figures: benchmarks/scale_4096.py)."""

from __future__ import annotations

from collections import Counter
from types import ModuleType

import pytest
from tests.pulumi.plans import REPO

from gpufabric.clouds import registry
from gpufabric.plan import mocks as plan_mocks
from gpufabric.plan import run_plan

REAL_LOOKUP = registry.mocks_for_type


def _lookups(monkeypatch: pytest.MonkeyPatch, nodes: int) -> Counter[str]:
    asked: Counter[str] = Counter()

    def counting(token: str) -> ModuleType | None:
        asked[token] += 1
        return REAL_LOOKUP(token)

    monkeypatch.setattr(plan_mocks.registry, "mocks_for_type", counting)
    overrides = [f"gpufabric:nodes={nodes}", "gpufabric:nodeGroup=instances"]
    plan = run_plan(REPO, "aws-h100", overrides)
    assert len([r for r in plan.resources if r.name.endswith(f"-node-{nodes - 1:04d}")]) == 1
    return asked


def test_mocks_ask_the_registry_once_per_type_not_per_resource(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    few, more = _lookups(monkeypatch, 2), _lookups(monkeypatch, 6)
    assert few == more  # four more instances: no more look-ups
    assert set(few.values()) == {1}
