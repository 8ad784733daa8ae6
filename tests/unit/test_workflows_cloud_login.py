"""The cloud-login action for OCI and Nebius: the signing key reaches a mode-600 file in the
job's temp folder and never the log or $GITHUB_ENV; the deploy workflow passes each job's own
identity. The action's own bash steps run here, with a stand-in `nebius` CLI."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
ACTION = REPO / ".github" / "actions" / "cloud-login" / "action.yml"
DEPLOY = REPO / ".github" / "workflows" / "deploy.yml"
KEY = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END PRIVATE KEY-----"


def step(cloud: str) -> dict[str, Any]:
    doc = yaml.safe_load(ACTION.read_text())
    return next(s for s in doc["runs"]["steps"] if s.get("if") == f"inputs.cloud == '{cloud}'")


def run_step(
    cloud: str, tmp_path: Path, env: dict[str, str], path: str = "/usr/bin:/bin"
) -> tuple[subprocess.CompletedProcess[str], Path]:
    temp, github_env = tmp_path / "runner-temp", tmp_path / "github-env"
    temp.mkdir()
    github_env.touch()
    result = subprocess.run(
        ["bash", "-e", "-c", step(cloud)["run"]],
        env={
            "PATH": path,
            "HOME": str(tmp_path),
            "RUNNER_TEMP": str(temp),
            "GITHUB_ENV": str(github_env),
            **env,
        },
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return result, github_env


OCI_ENV = {
    "TENANCY": "ocid1.tenancy.oc1..aaaa",
    "USER_OCID": "ocid1.user.oc1..bbbb",
    "FINGERPRINT": "20:3b:97:13:55:1c:5b:0d:d3:37:d8:50:4e:c5:3a:34",
    "REGION": "us-ashburn-1",
    "GPUFABRIC_OCI_PRIVATE_KEY": KEY,
}


def test_oci_key_goes_to_a_private_file_that_cli_sdk_and_pulumi_read(tmp_path: Path) -> None:
    result, github_env = run_step("oci", tmp_path, OCI_ENV)
    assert result.returncode == 0, result.stderr
    assert "MIIEvQ" not in result.stdout + result.stderr + github_env.read_text()
    key = tmp_path / "runner-temp" / "oci" / "api_key.pem"
    config = tmp_path / "runner-temp" / "oci" / "config"
    assert key.read_text() == KEY + "\n"
    for path in (key, config):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert config.read_text().splitlines() == [
        "[DEFAULT]",
        f"user={OCI_ENV['USER_OCID']}",
        f"fingerprint={OCI_ENV['FINGERPRINT']}",
        f"tenancy={OCI_ENV['TENANCY']}",
        "region=us-ashburn-1",
        f"key_file={key}",
    ]
    exported = dict(line.split("=", 1) for line in github_env.read_text().splitlines())
    assert exported["OCI_CONFIG_FILE"] == exported["OCI_CLI_CONFIG_FILE"] == str(config)
    assert exported["TF_VAR_private_key_path"] == str(key)
    assert exported["TF_VAR_user_ocid"] == OCI_ENV["USER_OCID"]


def test_oci_login_refuses_a_missing_key_and_writes_nothing(tmp_path: Path) -> None:
    result, github_env = run_step("oci", tmp_path, {**OCI_ENV, "GPUFABRIC_OCI_PRIVATE_KEY": ""})
    assert result.returncode == 1
    assert "::error::cloud-login: OCI input for PRIVATE_KEY is empty" in result.stdout
    assert github_env.read_text() == ""
    assert not (tmp_path / "runner-temp" / "oci").exists()


# stands in for the job's .venv/bin/python: records its arguments, prints a token
FAKE_PYTHON = """#!/bin/bash
echo "$*" >> "$HOME/python-calls"
echo t1.secret-token
"""
CREDENTIALS = '{"subject-credentials": {"alg": "RS256", "private-key": "PKCS8-SECRET"}}'


def fake_venv(where: Path) -> None:
    python = where / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)


def test_nebius_key_stays_in_a_private_file_and_the_token_is_masked(tmp_path: Path) -> None:
    fake_venv(tmp_path)
    env = {"PROJECT_ID": "project-e00abc", "GPUFABRIC_NEBIUS_CREDENTIALS": CREDENTIALS}
    result, github_env = run_step("nebius", tmp_path, env)
    assert result.returncode == 0, result.stderr
    creds = tmp_path / "runner-temp" / "nebius" / "credentials.json"
    assert creds.read_text() == CREDENTIALS
    assert stat.S_IMODE(creds.stat().st_mode) == 0o600
    assert "PKCS8-SECRET" not in result.stdout + result.stderr + github_env.read_text()
    # the token is masked before anything can print it, and only then exported
    assert result.stdout.splitlines() == ["::add-mask::t1.secret-token"]
    assert github_env.read_text() == "NEBIUS_IAM_TOKEN=t1.secret-token\n"
    calls = (tmp_path / "python-calls").read_text().splitlines()
    assert calls == [f"-m gpufabric.clouds.nebius.token {creds}"]


def test_nebius_login_needs_the_venv_and_the_credentials(tmp_path: Path) -> None:
    env = {"PROJECT_ID": "project-e00abc", "GPUFABRIC_NEBIUS_CREDENTIALS": CREDENTIALS}
    (tmp_path / "a").mkdir()
    result, _ = run_step("nebius", tmp_path / "a", env)
    assert result.returncode == 1 and "needs the job's .venv" in result.stdout
    assert not (tmp_path / "a" / "runner-temp" / "nebius").exists()
    (tmp_path / "b").mkdir()
    fake_venv(tmp_path / "b")
    result, _ = run_step("nebius", tmp_path / "b", {"PROJECT_ID": "project-e00abc"})
    assert result.returncode == 1 and "GPUFABRIC_NEBIUS_CREDENTIALS" in result.stdout


def test_a_failed_token_exchange_stops_the_login_with_nothing_exported(tmp_path: Path) -> None:
    fake_venv(tmp_path)
    (tmp_path / ".venv" / "bin" / "python").write_text(
        "#!/bin/bash\necho 'error: refused' >&2\nexit 2\n"
    )
    env = {"PROJECT_ID": "project-e00abc", "GPUFABRIC_NEBIUS_CREDENTIALS": CREDENTIALS}
    result, github_env = run_step("nebius", tmp_path, env)
    assert result.returncode == 2 and "error: refused" in result.stderr
    assert github_env.read_text() == "" and "::add-mask::" not in result.stdout


def test_deploy_jobs_log_in_to_oci_and_nebius_with_their_own_identity() -> None:
    doc = yaml.safe_load(DEPLOY.read_text())
    clouds = doc["jobs"]["stacks"]["steps"][-1]["env"]["CLOUDS"]
    assert "'oci'" in clouds and "'nebius'" in clouds
    for job, ident in (("up", "DEPLOY"), ("fabric", "FABRIC")):
        login = next(
            s for s in doc["jobs"][job]["steps"] if s.get("uses") == "./.github/actions/cloud-login"
        )
        assert login["with"]["oci-user-ocid"] == f"${{{{ vars.OCI_{ident}_USER_OCID }}}}"
        assert login["with"]["oci-fingerprint"] == f"${{{{ vars.OCI_{ident}_KEY_FINGERPRINT }}}}"
        assert login["with"]["nebius-project-id"] == "${{ vars.NEBIUS_PROJECT_ID }}"
        # the keys come from the job's environment (one per identity), in env, never `with`
        assert login["env"] == {
            "GPUFABRIC_OCI_PRIVATE_KEY": "${{ secrets.OCI_PRIVATE_KEY }}",
            "GPUFABRIC_NEBIUS_CREDENTIALS": "${{ secrets.NEBIUS_SERVICE_ACCOUNT_CREDENTIALS }}",
        }


def test_the_oci_sdk_reads_the_config_the_login_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gpufabric's live OCI discovery calls oci.config.from_file() with no path: with no
    ~/.oci/config (a fresh runner HOME) the SDK falls back to $OCI_CONFIG_FILE."""
    oci_config = pytest.importorskip("oci.config")
    result, github_env = run_step("oci", tmp_path, OCI_ENV)
    assert result.returncode == 0, result.stderr
    exported = dict(line.split("=", 1) for line in github_env.read_text().splitlines())
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OCI_CONFIG_FILE", exported["OCI_CONFIG_FILE"])
    config = oci_config.from_file()
    assert config["user"] == OCI_ENV["USER_OCID"] and config["region"] == "us-ashburn-1"
    assert config["key_file"] == str(tmp_path / "runner-temp" / "oci" / "api_key.pem")
