"""The workflows' helper scripts: the plan diff for the job summary and the stack matrix."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from gpufabric.plan import run_plan

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / ".github" / "scripts"


def script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plan_diff = script("plan_diff")
stack_matrix = script("stack_matrix")


def write_plan(folder: Path, stack: str, *overrides: str, rc: int = 0, policy: str = "") -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    doc = json.loads(run_plan(REPO, stack, list(overrides)).to_json())
    (folder / f"{stack}.json").write_text(json.dumps(doc))
    (folder / f"{stack}.rc").write_text(str(rc))
    (folder / f"{stack}.policy").write_text(policy)
    return doc


def test_a_config_change_shows_exactly_what_moved(tmp_path: Path) -> None:
    write_plan(tmp_path / "base", "aws-h100")
    write_plan(tmp_path / "head", "aws-h100", "gpufabric:rootVolume.sizeGib=1024")
    lines, counts = plan_diff.stack_diff(
        plan_diff.load(tmp_path / "base", "aws-h100"), plan_diff.load(tmp_path / "head", "aws-h100")
    )
    assert counts["changed"] == 1 and counts["added"] == counts["removed"] == 0
    assert lines == [
        "~ aws:ec2/launchTemplate:LaunchTemplate aws-h100-node",
        "    blockDeviceMappings[0].ebs.volumeSize: 512 -> 1024",
    ]


def test_added_and_removed_resources_and_outputs(tmp_path: Path) -> None:
    base = write_plan(tmp_path / "base", "aws-h100")
    head = write_plan(tmp_path / "head", "aws-h100", "gpufabric:network.egress=endpoints",
                      "gpufabric:aws.organizationId=o-a1b2c3d4e5")  # fmt: skip
    lines, counts = plan_diff.stack_diff(base, head)
    assert "- aws:ec2/natGateway:NatGateway aws-h100-nat" in lines
    assert "+ aws:ec2/vpcEndpoint:VpcEndpoint aws-h100-s3" in lines
    assert counts["added"] >= 4 and counts["removed"] >= 4
    assert "~ outputs" in lines


def test_summary_marks_new_stacks_and_failed_policies(tmp_path: Path) -> None:
    write_plan(tmp_path / "base", "aws-h100")
    write_plan(
        tmp_path / "head",
        "aws-h100",
        "gpufabric:storage.zone=us-east-1b",
        rc=1,
        policy="policy: 1 violation(s) of gpufabric policies:\n  storage-in-node-zone: x: y",
    )
    write_plan(tmp_path / "head", "aws-a100")
    text, failed = plan_diff.render(tmp_path / "base", tmp_path / "head")
    assert failed
    assert "| aws-a100 (new) |" in text
    assert "| aws-h100 | 0 | 0 | 1 |" in text and "| FAILED |" in text
    assert "storage-in-node-zone: x: y" in text
    assert "```diff" in text and "offline" in text.lower()


def test_unchanged_plans_pass_and_say_so(tmp_path: Path) -> None:
    write_plan(tmp_path / "base", "aws-h100")
    write_plan(tmp_path / "head", "aws-h100")
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPTS / "plan_diff.py"),
            str(tmp_path / "base"),
            str(tmp_path / "head"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert "No change to the planned resources or outputs." in result.stdout
    assert "| aws-h100 | 0 | 0 | 0 |" in result.stdout


def test_a_head_plan_that_failed_to_run_fails_the_check(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "head").mkdir()
    (tmp_path / "head" / "aws-h100.rc").write_text("2")
    (tmp_path / "head" / "aws-h100.policy").write_text("error: gpufabric:nodes: 0 is not valid")
    text, failed = plan_diff.render(tmp_path / "base", tmp_path / "head")
    assert failed and "error: gpufabric:nodes" in text


def test_usage_error_exits_2() -> None:
    assert plan_diff.main([]) == 2


def test_stack_clouds_come_from_the_catalog() -> None:
    clouds = stack_matrix.stack_clouds()
    assert clouds["aws-h100"] == "aws"
    assert set(clouds.values()) <= {"aws", "gcp", "azure", "oci", "nebius"}
    assert len(clouds) == len(list((REPO / "stacks").glob("Pulumi.*.yaml")))


@pytest.mark.parametrize(
    ("configured", "only", "chosen"),
    [
        ({"aws"}, None, ["a1", "a2"]),
        ({"aws", "gcp"}, {"g1", "a2"}, ["a2", "g1"]),
        ({"aws", "gcp"}, set(), []),
        (set(), None, []),
    ],
)
def test_select(configured: set[str], only: set[str] | None, chosen: list[str]) -> None:
    clouds = {"a1": "aws", "a2": "aws", "g1": "gcp", "z1": "azure"}
    picked, skipped = stack_matrix.select(clouds, configured, only)
    assert [p["stack"] for p in picked] == chosen
    assert len(picked) + len(skipped) == len(clouds)


def test_matrix_cli_output_is_github_output_syntax() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "stack_matrix.py"), "--clouds", "aws", "--only", "aws-h100"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[0].startswith("matrix=") and lines[1] == "any=true"
    assert json.loads(lines[0][len("matrix=") :]) == {
        "include": [{"stack": "aws-h100", "cloud": "aws"}]
    }
    assert "aws-a100: not listed in GPUFABRIC_DEPLOY_STACKS" in result.stderr
