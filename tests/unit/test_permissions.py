"""The pipeline identities' permission documents: AWS linted by parliament (a real IAM
linter), GCP / Azure checked for shape; the fabric identity may only read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from parliament import analyze_policy_string

REPO = Path(__file__).resolve().parents[2]
PERMS = REPO / "permissions"
IDENTITIES = ["preview", "deploy", "fabric"]
ACCEPTED = yaml.safe_load((PERMS / "aws" / "accepted-findings.yaml").read_text())


def findings(text: str) -> set[str]:
    policy = analyze_policy_string(text, include_community_auditors=True)
    return {f.issue for f in policy.findings}


@pytest.mark.parametrize("name", IDENTITIES)
def test_aws_policy_passes_parliament(name: str) -> None:
    found = findings((PERMS / "aws" / f"{name}.json").read_text())
    accepted = set(ACCEPTED.get(f"{name}.json", {}))
    assert found - accepted == set(), f"aws/{name}.json: {sorted(found - accepted)}"
    assert accepted - found == set(), f"stale accepted findings for {name}.json"


def test_parliament_really_lints() -> None:
    bad = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": ["ec2:DescribeInstancez"], "Resource": "*"},
            {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::bucket"},
        ],
    }  # fmt: skip
    assert {"UNKNOWN_ACTION", "RESOURCE_MISMATCH"} <= findings(json.dumps(bad))


def aws_actions(name: str) -> list[str]:
    doc = json.loads((PERMS / "aws" / f"{name}.json").read_text())
    return [a for s in doc["Statement"] for a in s["Action"]]


def gcp_permissions(name: str) -> list[str]:
    return yaml.safe_load((PERMS / "gcp" / f"{name}.yaml").read_text())["includedPermissions"]


def azure_actions(name: str) -> list[str]:
    doc = json.loads((PERMS / "azure" / f"{name}.json").read_text())
    return doc["Actions"] + doc["DataActions"]


@pytest.mark.parametrize("name", IDENTITIES)
def test_no_wildcard_in_any_permission(name: str) -> None:
    for action in aws_actions(name) + gcp_permissions(name) + azure_actions(name):
        assert "*" not in action, f"{name}: {action}"


@pytest.mark.parametrize("name", IDENTITIES)
def test_gcp_role_and_azure_definition_have_the_shape_their_cli_takes(name: str) -> None:
    role = yaml.safe_load((PERMS / "gcp" / f"{name}.yaml").read_text())
    assert set(role) == {"title", "description", "stage", "includedPermissions"}
    perms = role["includedPermissions"]
    assert perms == sorted(set(perms))
    assert all(re.fullmatch(r"[a-z]+\.[a-zA-Z]+\.[a-zA-Z]+", p) for p in perms), perms
    doc = json.loads((PERMS / "azure" / f"{name}.json").read_text())
    assert set(doc) == {"Name", "IsCustom", "Description", "Actions", "NotActions",
                        "DataActions", "NotDataActions", "AssignableScopes"}  # fmt: skip
    assert doc["IsCustom"] is True and doc["AssignableScopes"]
    for action in doc["Actions"] + doc["DataActions"]:
        assert re.fullmatch(r"Microsoft\.[A-Za-z]+(/[A-Za-z]+)+", action), action


def test_fabric_and_preview_identities_only_read() -> None:
    for name in ("fabric", "preview"):
        for action in aws_actions(name):
            if action.startswith("s3:") or action == "kms:Decrypt":
                assert name == "preview" and action in ("s3:GetObject", "s3:ListBucket",
                                                        "kms:Decrypt")  # fmt: skip
                continue
            assert re.match(r"\w+:(Describe|Get|List)", action), f"aws/{name}: {action}"
        for perm in gcp_permissions(name):
            assert perm.rsplit(".", 1)[1] in ("get", "list"), f"gcp/{name}: {perm}"
        for action in azure_actions(name):
            assert action.endswith("/read"), f"azure/{name}: {action}"
    assert set(aws_actions("fabric")) == {"ec2:DescribeInstances", "ec2:DescribeInstanceTopology"}


def test_docs_reference_every_permission_document() -> None:
    readme = (PERMS / "README.md").read_text()
    for path in sorted(PERMS.glob("*/*")):
        if path.name != "accepted-findings.yaml":
            assert f"({path.relative_to(PERMS)})" in readme, path
