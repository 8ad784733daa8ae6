"""The same policies as pulumi-policy (CrossGuard) objects, for policy/__main__.py.

Constructing these objects serves nothing; only `PolicyPack(...)` (in policy/__main__.py)
starts the gRPC server the Pulumi CLI talks to. Tests call `.validate(...)` on them directly.

Resource policies see a resource's inputs before it is created. Stack policies see every
resource's outputs after all are registered: under `pulumi up` they fail the update but cannot
stop the creation, which is why the pipeline runs `gpufabric plan --policy` first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    Policy,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from gpufabric.policies.model import (
    STACK_TYPE,
    Resource,
    ResourcePolicy,
    Stack,
    StackPolicy,
    stack_clouds,
)
from gpufabric.policies.registry import RESOURCE_POLICIES, STACK_POLICIES, applies

PACK_NAME = "gpufabric"


def resource_from_args(args: ResourceValidationArgs) -> Resource:
    return Resource(args.resource_type, args.name, _id(args.props, args.urn), args.props, args.urn)


def stack_from_args(args: StackValidationArgs) -> tuple[Stack, bool]:
    """The engine's resources as policy records, and whether the root stack (outputs) was seen."""
    outputs: Mapping[str, Any] = {}
    seen_root = False
    resources: list[Resource] = []
    for r in args.resources:
        if r.resource_type == STACK_TYPE:
            outputs, seen_root = r.props, True
            continue
        if r.resource_type.startswith("pulumi:providers:"):
            continue
        deps = {key: tuple(d.urn for d in found) for key, found in r.property_dependencies.items()}
        resources.append(
            Resource(r.resource_type, r.name, _id(r.props, r.urn), r.props, r.urn, deps)
        )
    return Stack(resources, outputs), seen_root


def resource_policy(policy: ResourcePolicy, level: EnforcementLevel) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        resource = resource_from_args(args)
        if not applies(policy, stack_clouds([resource])):
            args.not_applicable(f"applies to {', '.join(policy.clouds)} resources only")
            return
        for reason in policy.check(resource):
            report_violation(reason, None)

    return ResourceValidationPolicy(
        name=policy.name,
        description=policy.description,
        validate=validate,
        enforcement_level=level,
    )


def stack_policy(policy: StackPolicy, level: EnforcementLevel) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        stack, seen_root = stack_from_args(args)
        stack = stack.indexed()
        if not applies(policy, stack_clouds(stack.resources)):
            args.not_applicable(f"applies to {', '.join(policy.clouds)} stacks only")
            return
        if policy.needs_outputs and not (seen_root and stack.outputs):
            # no root stack, or its outputs not known yet (previews can send them empty)
            args.not_applicable("the stack's outputs are not known here")
            return
        for resource, reason in policy.check(stack):
            report_violation(f"{resource.label}: {reason}", resource.urn or None)

    return StackValidationPolicy(
        name=policy.name,
        description=policy.description,
        validate=validate,
        enforcement_level=level,
    )


def pack_policies(level: EnforcementLevel = EnforcementLevel.MANDATORY) -> list[Policy]:
    """Every gpufabric policy, mandatory unless the organisation configures otherwise."""
    return [
        *(resource_policy(p, level) for p in RESOURCE_POLICIES),
        *(stack_policy(p, level) for p in STACK_POLICIES),
    ]


def _id(props: Mapping[str, Any], urn: str) -> str:
    value = props.get("id")
    return value if isinstance(value, str) and value else urn
