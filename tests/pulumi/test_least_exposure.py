"""Least exposure in the no-internet mode (AWS `egress: endpoints`): the S3 endpoint reaches
only the organisation's buckets, and the nodes' management group may only speak HTTPS to the
endpoints and S3 (no 0.0.0.0/0 egress)."""

from __future__ import annotations

import json

import pytest
from parliament import analyze_policy_string

from gpufabric.config.load import parse
from gpufabric.config.stack_reader import load_stack_file
from gpufabric.errors import MissingConfigError

from .plans import REPO, plan_for

ENDPOINT = "aws:ec2/vpcEndpoint:VpcEndpoint"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"


def test_s3_endpoint_policy_is_limited_to_the_organisation() -> None:
    plan = plan_for("aws-a100")
    (s3,) = [r for r in plan.of_type(ENDPOINT) if r.inputs["serviceName"].endswith(".s3")]
    policy = json.loads(s3.inputs["policy"])
    (statement,) = policy["Statement"]
    assert statement["Effect"] == "Allow"
    assert statement["Condition"] == {
        "StringEquals": {"aws:PrincipalOrgID": "o-replacewithyours",
                         "aws:ResourceOrgID": "o-replacewithyours"}
    }  # fmt: skip
    # parliament knows both condition keys for s3:* (no UNKNOWN_CONDITION_FOR_ACTION)
    issues = {f.issue for f in analyze_policy_string(s3.inputs["policy"]).findings}
    assert not {i for i in issues if "CONDITION" in i or "UNKNOWN" in i}, issues


def test_management_egress_is_https_to_the_endpoints_only_without_internet() -> None:
    plan = plan_for("aws-a100")
    mgmt = [
        r for r in plan.of_type(EGRESS)
        if r.inputs["securityGroupId"] == "<aws-a100-mgmt.id>"
        and "referencedSecurityGroupId" not in r.inputs  # to the cluster's own storage group
    ]  # fmt: skip
    assert len(mgmt) == 2, [r.name for r in mgmt]
    for rule in mgmt:
        assert rule.inputs.get("cidrIpv4") != "0.0.0.0/0", rule.name
        assert (rule.inputs["ipProtocol"], rule.inputs["fromPort"], rule.inputs["toPort"]) == (
            "tcp", 443, 443,
        )  # fmt: skip
    nat = plan_for("aws-h100")  # with a NAT path the nodes may reach package mirrors
    assert any(r.inputs.get("cidrIpv4") == "0.0.0.0/0" for r in nat.of_type(EGRESS))


def test_the_no_internet_mode_needs_the_organisation() -> None:
    raw = load_stack_file(REPO / "stacks" / "Pulumi.aws-a100.yaml", "gpufabric")
    raw["gpufabric:aws"] = {k: v for k, v in raw["gpufabric:aws"].items() if k != "organizationId"}
    with pytest.raises(MissingConfigError, match=r"gpufabric:aws\.organizationId: not set"):
        parse(raw, "aws-a100")
