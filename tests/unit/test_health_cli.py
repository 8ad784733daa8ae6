"""`gpufabric health run`: usage errors (exit 2, one line) and the exit code from the verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpufabric.cli import health as health_cli
from gpufabric.cli.main import app
from gpufabric.errors import UserError
from gpufabric.health import report


def gpufabric(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-i", "/nonexistent/inventory"],
            "error: --inventory: /nonexistent/inventory does not exist",
        ),
        (
            ["-i", "{inv}", "--drain", "pbs"],
            "error: --drain: 'pbs' is not valid; use one of none, slurm, k8s",
        ),
        (["-i", "{inv}", "--out", "{inv}"], "exists and is not a directory"),
    ],
)
def test_usage_errors_are_one_line_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    inv = tmp_path / "inventory.yml"
    inv.write_text("all: {}\n")
    proc = gpufabric("health", "run", *[a.format(inv=inv) for a in args])
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and message in proc.stderr
    assert "Traceback" not in proc.stderr


def fake_report(bad: list[str]) -> dict[str, Any]:
    step1 = {
        h: {
            "reasons": ["mtu: eth0 mtu 9000, the peers' 1500"] if h in bad else [],
            "warnings": [],
            "checks": [],
        }
        for h in ("h1", "h2")
    }
    return report.build(
        ["h1", "h2"], step1, {"rounds": [], "hosts": ["h1", "h2"]}, [], {"traffic_tool": "iperf3"}
    )


@pytest.mark.parametrize(("bad", "code"), [([], 0), (["h2"], 1)])
def test_exit_code_and_json_follow_the_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: list[str], code: int
) -> None:
    inv = tmp_path / "inventory.yml"
    inv.write_text("all: {}\n")
    seen: dict[str, Any] = {}

    def fake_run(inventory: Path, drain: str, out: Path, extra: list[str]) -> tuple[dict, None]:
        seen.update(inventory=inventory, drain=drain, out=out, extra=extra)
        return fake_report(bad), None

    monkeypatch.setattr(health_cli, "run_playbook", fake_run)
    res = CliRunner().invoke(
        app,
        [
            "health",
            "run",
            "-i",
            str(inv),
            "--json",
            "--drain",
            "slurm",
            "--out",
            str(tmp_path / "out"),
            "-e",
            "fabric_health_mtu=1500",
        ],
    )
    assert res.exit_code == code, res.output
    doc = json.loads(res.output)
    assert doc["hosts"]["h2"]["status"] == ("bad" if bad else "ok")
    assert set(doc["hosts"]["h1"]) == {"status", "reasons", "warnings"} and "rounds" in doc
    assert seen["drain"] == "slurm" and seen["extra"] == ["-e", "fabric_health_mtu=1500"]
    assert (tmp_path / "out").is_dir()


def test_a_run_without_a_report_is_one_line_naming_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inv = tmp_path / "inventory.yml"
    inv.write_text("all: {}\n")
    fake = tmp_path / "ansible-playbook"
    fake.write_text("#!/bin/sh\necho 'ERROR! the playbook could not be parsed'\nexit 4\n")
    fake.chmod(0o755)
    monkeypatch.setattr(health_cli, "ansible_playbook", lambda: str(fake))
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["health", "run", "-i", str(inv), "--out", str(out)])
    assert isinstance(res.exception, UserError)  # main() prints it as one line, exit 2
    msg = str(res.exception)
    assert "ansible-playbook exited 4 without a report" in msg
    assert "the playbook could not be parsed" in msg and str(out / "ansible.log") in msg
