"""Run every policy over an offline plan (`gpufabric plan --policy`)."""

from __future__ import annotations

from gpufabric.plan.runner import Plan
from gpufabric.policies.model import Resource, Stack, Violation
from gpufabric.policies.registry import ALL_POLICIES, check_stack, not_applicable


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


def report(violations: list[Violation], skipped: list[object] | None = None) -> str:
    """One line per violation (policy: resource: reason), or one line saying all that apply
    passed; then one line naming the policies that do not apply here, with their clouds."""
    skipped_policies = [p for p in ALL_POLICIES if p in (skipped or [])]
    applied = len(ALL_POLICIES) - len(skipped_policies)
    if not violations:
        lines = [f"policy: all {applied} gpufabric policies that apply pass"]
    else:
        lines = [f"policy: {len(violations)} violation(s) of gpufabric policies:"]
        lines += [f"  {v.line()}" for v in violations]
    if skipped_policies:
        names = ", ".join(f"{p.name} ({', '.join(p.clouds)} only)" for p in skipped_policies)
        lines.append(f"policy: not applicable to this stack's cloud: {names}")
    return "\n".join(lines)


def check_and_report(plan: Plan) -> tuple[list[Violation], str]:
    """The violations and the report, for the CLI."""
    stack = plan_stack(plan)
    violations = check_stack(stack)
    return violations, report(violations, list(not_applicable(stack)))
