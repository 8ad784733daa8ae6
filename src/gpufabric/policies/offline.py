"""Run every policy over an offline plan (`gpufabric plan --policy`)."""

from __future__ import annotations

from gpufabric.plan.runner import Plan
from gpufabric.policies.model import Resource, Stack, Violation
from gpufabric.policies.registry import check_stack


def plan_stack(plan: Plan) -> Stack:
    """The plan's recorded resources as policy records; references are the plan's fake ids."""
    resources = [
        Resource(r.type, r.name, r.id, r.inputs, urn=_urn(plan.stack, r.type, r.name))
        for r in plan.resources
    ]
    return Stack(resources, plan.outputs)


def check_plan(plan: Plan) -> list[Violation]:
    return check_stack(plan_stack(plan))


def _urn(stack: str, type_: str, name: str) -> str:
    return f"urn:pulumi:{stack}::gpufabric::{type_}::{name}"


def report(violations: list[Violation]) -> str:
    """One line per violation (policy: resource: reason), or one line saying all passed."""
    from gpufabric.policies.registry import RESOURCE_POLICIES, STACK_POLICIES

    total = len(RESOURCE_POLICIES) + len(STACK_POLICIES)
    if not violations:
        return f"policy: all {total} gpufabric policies pass"
    lines = [f"policy: {len(violations)} violation(s) of gpufabric policies:"]
    lines += [f"  {v.line()}" for v in violations]
    return "\n".join(lines)
