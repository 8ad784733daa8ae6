"""Plans are the real program under mocks; cached per (stack, overrides) for the session."""

from __future__ import annotations

import os
from pathlib import Path

from gpufabric.plan import Plan, run_plan

REPO = Path(__file__).resolve().parents[2]
_cache: dict[tuple[str, tuple[str, ...]], Plan] = {}


def plan_for(stack: str, *overrides: str) -> Plan:
    # mutmut's stats run records which tests reach each function; a cached plan would hide
    # every test but the first of a stack from the mutants of the program that built it
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        return run_plan(REPO, stack, list(overrides))
    key = (stack, overrides)
    if key not in _cache:
        _cache[key] = run_plan(REPO, stack, list(overrides))
    return _cache[key]
