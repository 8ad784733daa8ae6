"""The plan's own work per resource stays flat as nodes grow (figures: benchmarks/scale_4096.py)."""

from __future__ import annotations

import gc
from collections import Counter
from types import ModuleType

import pytest
from tests.pulumi.plans import REPO

from gpufabric.clouds import registry
from gpufabric.plan import mocks as plan_mocks
from gpufabric.plan import run_plan
from gpufabric.plan.mocks import RecordingMocks

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


def test_no_cyclic_collection_while_the_program_runs_and_restored_after() -> None:
    seen: list[bool] = []

    class Watching(RecordingMocks):
        def new_resource(self, args):  # type: ignore[override]
            seen.append(gc.isenabled())
            return super().new_resource(args)

    assert gc.isenabled()
    run_plan(REPO, "aws-h100", ["gpufabric:nodes=2"], make_mocks=Watching)
    assert seen and not any(seen)  # the heap grows with every resource: no rescans
    assert gc.isenabled()
    gc.disable()  # a caller that turned it off keeps it off
    try:
        run_plan(REPO, "aws-h100", ["gpufabric:nodes=2"], make_mocks=Watching)
        assert not gc.isenabled()
    finally:
        gc.enable()
