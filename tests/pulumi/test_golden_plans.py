"""Golden plan JSON per stack: any change to what a stack would build shows up as a diff.

Regenerate after an intended change with GPUFABRIC_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpufabric.plan import run_plan

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
STACKS = sorted(
    p.name[len("Pulumi.") : -len(".yaml")] for p in (REPO / "stacks").glob("Pulumi.*.yaml")
)


@pytest.mark.parametrize("stack", STACKS)
def test_plan_matches_golden(stack: str) -> None:
    actual = run_plan(REPO, stack).to_json() + "\n"
    golden = GOLDEN / f"{stack}.json"
    if os.environ.get("GPUFABRIC_UPDATE_GOLDEN") == "1":
        golden.write_text(actual)
    assert golden.is_file(), f"no golden plan for {stack}: run with GPUFABRIC_UPDATE_GOLDEN=1"
    assert actual == golden.read_text(), f"plan of {stack} changed; review and regenerate"
