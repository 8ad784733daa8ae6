"""`gpufabric plan --policy`: exit 0 when every policy passes, 1 naming each violation, 2 on
bad config; the violation list comes after the normal output, and --json stays pure JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gpufabric.policies import RESOURCE_POLICIES, STACK_POLICIES

from .helpers import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_clean_stack_exits_0_after_the_plan() -> None:
    result = run("plan", "-s", "aws-h100", "--policy")
    assert result.returncode == 0, result.stderr
    assert "Plan for stack aws-h100" in result.stdout
    total = len(RESOURCE_POLICIES) + len(STACK_POLICIES)
    applied = total - 1  # gpu-network-cluster-only is GCP's
    *_, passed, skipped = result.stdout.rstrip().splitlines()
    assert passed == f"policy: all {applied} gpufabric policies that apply pass"
    assert skipped == (
        "policy: not applicable to this stack's cloud: gpu-network-cluster-only (gcp only)"
    )


@pytest.mark.parametrize(
    ("override", "policy", "resource"),
    [
        (
            "gpufabric:storage.zone=us-east-1b",
            "storage-in-node-zone",
            "aws:fsx/lustreFileSystem:LustreFileSystem aws-h100-fsx",
        ),
        (
            "gpufabric:network.managementCidr=0.0.0.0/1",
            "no-ingress-from-internet",
            "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule aws-h100-mgmt-ssh",
        ),
    ],
)
def test_violation_exits_1_naming_policy_and_resource(
    override: str, policy: str, resource: str
) -> None:
    result = run("plan", "-s", "aws-h100", "--policy", "-c", override)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.rstrip().splitlines()
    head = next(i for i, x in enumerate(lines) if x.endswith("violation(s) of gpufabric policies:"))
    found = lines[head + 1 : -1]
    assert lines[head] == f"policy: {len(found)} violation(s) of gpufabric policies:"
    assert any(x.startswith(f"  {policy}: {resource}: ") for x in found), found
    assert lines[-1].startswith("policy: not applicable to this stack's cloud: ")
    assert head > lines.index(next(x for x in lines if "Plan for stack" in x))


def test_json_keeps_stdout_parseable_and_lists_violations_on_stderr() -> None:
    result = run(
        "plan", "-s", "aws-h100", "--json", "--policy", "-c", "gpufabric:storage.zone=us-east-1b"
    )
    assert result.returncode == 1
    assert json.loads(result.stdout)["stack"] == "aws-h100"
    assert "storage-in-node-zone: " in result.stderr


def test_without_policy_the_same_override_exits_0() -> None:
    assert run("plan", "-s", "aws-h100", "-c", "gpufabric:storage.zone=us-east-1b").returncode == 0


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ("gpufabric:storage.zone=eu-west-1a", "availability zone of us-east-1"),
        ("gpufabric:storage.zone=us-east-1", "availability zone of us-east-1"),
    ],
)
def test_bad_storage_zone_exits_2_naming_the_key(override: str, words: str) -> None:
    result = run("plan", "-s", "aws-h100", "--policy", "-c", override)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: gpufabric:storage.zone: ") and words in result.stderr


def test_storage_zone_with_efa_exits_2() -> None:
    result = run(
        "plan",
        "-s",
        "aws-h100",
        "-c",
        "gpufabric:storage.zone=us-east-1b",
        "-c",
        "gpufabric:storage.efa=true",
        "-c",
        "gpufabric:storage.capacityGib=4800",
    )
    assert result.returncode == 2
    assert "EFA cannot cross subnets" in result.stderr
