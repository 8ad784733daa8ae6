"""Plans are the real program under mocks; cached per (stack, overrides) for the session."""

from __future__ import annotations

import os
from pathlib import Path

from gpufabric.plan import Plan, run_plan, runner
from gpufabric.plan.mocks import CapturingMonitor

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


def registered_dependencies(
    stack: str, *overrides: str
) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """(type, name) of each resource the program registers -> the (type, name) of every
    resource Pulumi must create before it (the plan's mocks record no dependencies)."""
    by_urn: dict[str, tuple[str, str]] = {}
    waits: dict[tuple[str, str], list[str]] = {}

    class DependencyMonitor(CapturingMonitor):
        def RegisterResource(self, request):
            response = super().RegisterResource(request)
            by_urn[response.urn] = (request.type, request.name)
            waits[(request.type, request.name)] = list(request.dependencies)
            return response

    saved = runner.CapturingMonitor
    runner.CapturingMonitor = DependencyMonitor  # type: ignore[misc]
    try:
        run_plan(REPO, stack, list(overrides))
    finally:
        runner.CapturingMonitor = saved  # type: ignore[misc]
    return {res: {by_urn[urn] for urn in urns} for res, urns in waits.items()}
