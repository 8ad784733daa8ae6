"""Real recorded plans as policy input, and mutated copies of them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpufabric.plan import Plan, run_plan
from gpufabric.policies import Stack, Violation
from gpufabric.policies.offline import plan_stack

REPO = Path(__file__).resolve().parents[2]
STACKS = sorted(
    p.name[len("Pulumi.") : -len(".yaml")] for p in (REPO / "stacks").glob("Pulumi.*.yaml")
)
_plans: dict[tuple[str, tuple[str, ...]], Plan] = {}


def plan(stack: str, *overrides: str) -> Plan:
    key = (stack, overrides)
    if key not in _plans:
        _plans[key] = run_plan(REPO, stack, list(overrides))
    return _plans[key]


def stack(name: str, *overrides: str) -> Stack:
    """A fresh, deep-copied policy view of a real plan: safe to mutate."""
    view = plan_stack(plan(name, *overrides))
    return Stack(copy.deepcopy(view.resources), copy.deepcopy(dict(view.outputs)))


def mutate(
    view: Stack, type_: str, change: Callable[[dict[str, Any]], object], name: str = ""
) -> Stack:
    """Apply `change` to the props of every resource of `type_` (and `name`, if given)."""
    hits = [r for r in view.resources if r.type == type_ and (not name or r.name == name)]
    assert hits, f"no {type_} {name} in this plan"
    for resource in hits:
        assert isinstance(resource.props, dict)
        change(resource.props)
    return view


def drop(view: Stack, type_: str) -> Stack:
    before = len(view.resources)
    view.resources = [r for r in view.resources if r.type != type_]
    assert len(view.resources) < before, f"no {type_} to drop"
    return view


def by_policy(violations: list[Violation], policy: str) -> list[Violation]:
    return [v for v in violations if v.policy == policy]
