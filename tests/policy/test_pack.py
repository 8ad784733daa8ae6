"""The pulumi-policy objects: same names, mandatory, and the same verdicts as the offline run
when fed what the engine sends (ResourceValidationArgs / StackValidationArgs)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
import yaml
from pulumi_policy import (
    EnforcementLevel,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError

from gpufabric.policies import RESOURCE_POLICIES, STACK_POLICIES, Stack, check_stack
from gpufabric.policies.model import STACK_TYPE
from gpufabric.policies.pack import pack_policies

from .helpers import REPO, mutate, stack

OPTS = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])


def _resources(view: Stack, with_root: bool = True) -> list[PolicyResource]:
    found = [
        PolicyResource(r.type, {**r.props, "id": r.id}, r.urn, r.name, OPTS, None, None, [], {})
        for r in view.resources
    ]
    if with_root:
        found.append(
            PolicyResource(STACK_TYPE, view.outputs, "urn:stack", "s", OPTS, None, None, [], {})
        )
    return found


def _run_pack(view: Stack, with_root: bool = True) -> set[tuple[str, str]]:
    """(policy name, message) for every violation the pack objects report."""
    reported: set[tuple[str, str]] = set()
    for policy in pack_policies():

        def report(message: str, urn: str | None = None, name: str = policy.name) -> None:
            reported.add((name, message))

        if isinstance(policy, ResourceValidationPolicy):
            for r in view.resources:
                args = ResourceValidationArgs(r.type, r.props, r.urn, r.name, OPTS, None)
                with contextlib.suppress(_NotApplicableError):  # another cloud's resource
                    policy.validate(args, report)
        else:
            assert isinstance(policy, StackValidationPolicy)
            with contextlib.suppress(_NotApplicableError):  # another cloud's stack
                policy.validate(StackValidationArgs(_resources(view, with_root), None), report)
    return reported


def _offline(view: Stack) -> set[tuple[str, str]]:
    stack_names = {p.name for p in STACK_POLICIES}
    return {
        (v.policy, f"{v.resource}: {v.reason}" if v.policy in stack_names else v.reason)
        for v in check_stack(view)
    }


def test_pack_has_every_policy_mandatory() -> None:
    policies = pack_policies()
    assert [p.name for p in policies] == [p.name for p in (*RESOURCE_POLICIES, *STACK_POLICIES)]
    assert all(p.enforcement_level == EnforcementLevel.MANDATORY for p in policies)
    assert all(p.description for p in policies)


def test_pack_passes_a_real_plan() -> None:
    assert _run_pack(stack("aws-h100")) == set()


def _break_everything(view: Stack) -> Stack:
    lt = "aws:ec2/launchTemplate:LaunchTemplate"
    mutate(view, lt, lambda p: p["metadataOptions"].update(httpTokens="optional"))
    mutate(view, lt, lambda p: p["networkInterfaces"][0].update(associatePublicIpAddress="true"))
    mutate(view, "aws:ec2/placementGroup:PlacementGroup", lambda p: p.update(strategy="spread"))
    mutate(
        view,
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        lambda p: p.update(cidrIpv4="0.0.0.0/0"),
        "aws-h100-mgmt-ssh",
    )
    view.outputs = {**view.outputs, "cluster": {**view.outputs["cluster"], "encryption": "maybe"}}
    return view


def test_pack_reports_what_the_offline_run_reports() -> None:
    view = _break_everything(stack("aws-h100", "gpufabric:storage.zone=us-east-1b"))
    offline = _offline(view)
    assert {name for name, _ in offline} == {
        "imdsv2-required",
        "gpu-nodes-no-public-ip",
        "gpu-nodes-in-placement-group",
        "no-ingress-from-internet",
        "ssh-from-admin-ranges-only",
        "storage-in-node-zone",
        "encryption-in-transit-explicit",
    }
    assert _run_pack(view) == offline


def test_without_known_stack_outputs_the_transit_policy_is_not_applicable() -> None:
    from pulumi_policy.policy import _NotApplicableError

    transit = next(p for p in pack_policies() if p.name == "encryption-in-transit-explicit")
    assert isinstance(transit, StackValidationPolicy)
    args = StackValidationArgs(_resources(stack("aws-h100"), with_root=False), None)
    with pytest.raises(_NotApplicableError):
        transit.validate(args, lambda message, urn=None: None)
    empty = stack("aws-h100")
    empty.outputs = {}  # a preview may send the root stack with no outputs yet
    with pytest.raises(_NotApplicableError):
        transit.validate(StackValidationArgs(_resources(empty), None), lambda m, urn=None: None)


def test_engine_references_resolve_through_property_dependencies() -> None:
    """Under the engine, ids are real (or unknown in preview): the adapter falls back to the
    propertyDependencies the engine sends, here with an id that matches nothing."""
    view = mutate(
        stack("aws-h100"),
        "aws:ec2/placementGroup:PlacementGroup",
        lambda p: p.update(strategy="partition"),
    )
    mutate(view, "aws:autoscaling/group:Group", lambda p: p.update(placementGroup="pg-opaque"))
    mutate(view, "aws:ec2/launchTemplate:LaunchTemplate", lambda p: p.pop("placement"))
    resources = _resources(view)
    group = next(r for r in resources if r.resource_type == "aws:autoscaling/group:Group")
    pg = next(r for r in resources if r.resource_type == "aws:ec2/placementGroup:PlacementGroup")
    group.property_dependencies["placementGroup"] = [pg]
    placement = next(p for p in pack_policies() if p.name == "gpu-nodes-in-placement-group")
    assert isinstance(placement, StackValidationPolicy)
    messages: list[str] = []
    placement.validate(StackValidationArgs(resources, None), lambda m, urn=None: messages.append(m))
    assert len(messages) == 1 and "strategy 'partition'" in messages[0]


def test_pack_files() -> None:
    meta = yaml.safe_load((REPO / "policy" / "PulumiPolicy.yaml").read_text())
    assert meta["runtime"]["name"] == "python"
    assert (REPO / "policy" / meta["runtime"]["options"]["virtualenv"]).resolve() == (
        REPO / ".venv"
    ).resolve()
    main = (REPO / "policy" / "__main__.py").read_text()
    assert "PolicyPack(" in main and "pack_policies()" in main
    assert Path(REPO / "policy" / "__main__.py").stat().st_size < 2000  # construction only
