"""`gpufabric plan` from the outside: exit codes, one-line errors, JSON, the notice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GPUFABRIC = [sys.executable, "-m", "gpufabric.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}  # rich wraps table cells at the terminal width
    return subprocess.run(
        [*GPUFABRIC, *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("gpufabric:instanceType=p5.48xlarg", "gpufabric:instanceType"),
        ("gpufabric:nodes=0", "gpufabric:nodes"),
        ("gpufabric:nodes=abc", "gpufabric:nodes"),
        ("gpufabric:storage.throughputPerTib=300", "gpufabric:storage.throughputPerTib"),
        ("gpufabric:aws.waitForCapacityTimeout=soon", "gpufabric:aws.waitForCapacityTimeout"),
        (
            'gpufabric:capacity={"type": "capacity-block", "resourceGroupArn": "cr-group"}',
            "gpufabric:capacity.resourceGroupArn",
        ),
    ],
)
def test_bad_override_exits_2_with_one_line_naming_the_key(override: str, key: str) -> None:
    result = run("plan", "-s", "aws-h100", "-c", override)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {key}:")
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_unknown_stack_lists_the_known_ones() -> None:
    result = run("plan", "-s", "aws-h1000")
    assert result.returncode == 2
    assert "known stacks:" in result.stderr and "aws-h100" in result.stderr


def test_malformed_override_is_a_usage_error() -> None:
    result = run("plan", "-s", "aws-h100", "-c", "nodes")
    assert result.returncode == 2
    assert "expected KEY=VALUE" in result.stderr


def test_json_plan_matches_the_contract() -> None:
    result = run("plan", "-s", "aws-h100", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["stack"] == "aws-h100"
    assert "offline preview" in doc["notice"]
    first = doc["resources"][0]
    assert set(first) == {"type", "name", "id", "inputs"}
    assert doc["resources"] == sorted(doc["resources"], key=lambda r: (r["type"], r["name"]))
    assert doc["outputs"]["cluster"]["fabric"] == "efa"


def test_human_plan_says_it_is_offline_and_summarises_the_fabric() -> None:
    result = run("plan", "-s", "aws-h100")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "offline preview" in text
    assert "32 on network cards 0-31" in text
    assert "same zone as the nodes" in text
