"""The fabric job's runner and its IPsec CA: only ephemeral just-in-time runners of the
group limited to deploy.yml on main; the CA comes from the cloud's secret store and never
stays on the runner. The workflow's own check and the CA action's script run here in bash
(the cloud CLIs are stand-ins that keep the secret in a file: the real ones are not run)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / ".github" / "workflows" / "deploy.yml"
CA_ACTION = REPO / ".github" / "actions" / "ipsec-ca" / "action.yml"
MAIN_REF = "ORG/REPO/.github/workflows/deploy.yml@refs/heads/main"


def fabric() -> dict[str, Any]:
    return yaml.safe_load(DEPLOY.read_text())["jobs"]["fabric"]


def test_fabric_job_asks_for_the_jit_runner_group_and_main_only() -> None:
    job = fabric()
    assert job["runs-on"] == {"group": "gpufabric-fabric", "labels": ["self-hosted"]}
    assert "github.ref == 'refs/heads/main'" in job["if"]
    assert job["steps"][0]["name"].startswith("Refuse a runner that is not fresh")


def check_runner(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    script = fabric()["steps"][0]["run"]
    base = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "REPOSITORY": "ORG/REPO",
        "REF": "refs/heads/main",
        "WORKFLOW_REF": MAIN_REF,
        "RUNNER_ENVIRONMENT": "self-hosted",
        "GITHUB_RUN_ID": "42",
    }
    return subprocess.run(
        ["bash", "-e", "-c", script], env={**base, **env}, capture_output=True, text=True
    )


def test_the_runner_check_refuses_a_reused_runner_a_branch_and_hosted_runners(
    tmp_path: Path,
) -> None:
    first = check_runner(tmp_path)
    assert first.returncode == 0, first.stdout
    again = check_runner(tmp_path)  # the same machine for a second job: not ephemeral
    assert again.returncode != 0 and "ran a fabric job before (42)" in again.stdout
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    branch = check_runner(
        fresh, REF="refs/heads/x", WORKFLOW_REF="ORG/REPO/.github/workflows/deploy.yml@refs/heads/x"
    )
    assert branch.returncode != 0 and "runs only from" in branch.stdout
    other = check_runner(fresh, WORKFLOW_REF="ORG/REPO/.github/workflows/evil.yml@refs/heads/main")
    assert other.returncode != 0
    hosted = check_runner(fresh, RUNNER_ENVIRONMENT="github-hosted")
    assert hosted.returncode != 0 and "self-hosted" in hosted.stdout


def test_the_ca_is_fetched_before_tune_fabric_stored_after_and_removed_always() -> None:
    steps = fabric()["steps"]
    names = [s.get("name", s.get("uses", "")) for s in steps]
    ca = [i for i, s in enumerate(steps) if s.get("uses") == "./.github/actions/ipsec-ca"]
    tune = names.index("tune-fabric")
    assert [steps[i]["with"]["mode"] for i in ca] == ["fetch", "store"]
    assert ca[0] < tune < ca[1]
    assert all(steps[i]["with"]["dir"] == "${{ runner.temp }}/ipsec-ca" for i in ca)
    assert "ipsec_ca_dir=$CA_DIR" in steps[tune]["run"]
    last = steps[-1]
    assert last["if"] == "always()" and "$RUNNER_TEMP/ipsec-ca" in last["run"]


def _fake_aws(folder: Path, store: Path, fail: bool = False) -> None:
    """A stand-in for the AWS CLI's two secretsmanager calls, keeping the value in `store`."""
    script = folder / "aws"
    body = (
        "exit 1"
        if fail
        else (
            'case "$2" in\n'
            f"  get-secret-value) cat {store} ;;\n"
            f"  put-secret-value) cat > {store} ;;\n"
            "esac\n"
        )
    )
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)


def run_ca(mode: str, ca_dir: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    doc = yaml.safe_load(CA_ACTION.read_text())
    script = doc["runs"]["steps"][0]["run"]
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "CLOUD": "aws",
        "MODE": mode,
        "STORE": "arn:aws:secretsmanager:us-east-1:111122223333:secret:gpufabric/ipsec-ca",
        "DIR": str(ca_dir),
    }
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)


def test_the_ca_round_trips_through_the_store_and_a_failing_store_stops_the_job(
    tmp_path: Path,
) -> None:
    bin_dir, store = tmp_path / "bin", tmp_path / "store"
    bin_dir.mkdir()
    store.write_text("new")
    _fake_aws(bin_dir, store)
    first = tmp_path / "job1" / "ipsec-ca"
    assert run_ca("fetch", first, bin_dir).returncode == 0
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o700 and list(first.iterdir()) == []
    (first / "ca.key.pem").write_text("-----BEGIN ENCRYPTED PRIVATE KEY-----\nx\n")
    (first / "issued.json").write_text("[]\n")
    assert run_ca("store", first, bin_dir).returncode == 0
    assert "ENCRYPTED" not in store.read_text()  # stored as one base64 value
    second = tmp_path / "job2" / "ipsec-ca"
    assert run_ca("fetch", second, bin_dir).returncode == 0
    assert sorted(p.name for p in second.iterdir()) == ["ca.key.pem", "issued.json"]
    assert stat.S_IMODE(os.stat(second / "ca.key.pem").st_mode) & 0o077 == 0
    _fake_aws(bin_dir, store, fail=True)
    third = tmp_path / "job3" / "ipsec-ca"
    assert run_ca("fetch", third, bin_dir).returncode != 0  # never a silent new CA
