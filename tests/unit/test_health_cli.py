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

    def fake_run(
        inventory: Path, drain: str, out: Path, extra: list[str], log: Path | None = None
    ) -> tuple[dict, None]:
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


OLD_REPORT = {
    "hosts": {"h1": {"status": "ok", "reasons": [], "warnings": []}},
    "rounds": 0,
    "bad": [],
    "findings": [],
    "checks": {},
    "traffic": {"tested": [], "rounds": []},
    "actions": [],
    "meta": {},
}


def _old_report_in(out: Path) -> None:
    out.mkdir()
    (out / "health.json").write_text(json.dumps(OLD_REPORT))
    (out / "health.html").write_text("<p>h1 OK</p>")


@pytest.mark.parametrize(
    ("inventory", "message"),
    [
        # no host at all: ansible-playbook says "no hosts matched" and exits 0
        ("all: {}\n", "has no host in the play's group: nothing measured"),
        # every host unreachable (nothing listens on port 1): the play stops before the report
        (
            "gpu_nodes:\n  vars: {gpufabric_fabric: lab}\n  hosts:\n"
            "    h1: {ansible_host: 127.0.0.1, ansible_port: 1}\n"
            "    h2: {ansible_host: 127.0.0.1, ansible_port: 1}\n",
            "no host answered over ssh (h1, h2 unreachable): nothing measured",
        ),
    ],
    ids=["no-hosts", "all-unreachable"],
)
def test_no_verdict_from_nothing_and_never_the_old_report(
    tmp_path: Path, inventory: str, message: str
) -> None:
    """The real ansible-playbook on an inventory that measures nothing: exit 2, one line, and
    the report an earlier run left in --out is neither printed nor left behind."""
    inv = tmp_path / "inventory.yml"
    inv.write_text(inventory)
    out = tmp_path / "out"
    _old_report_in(out)
    proc = gpufabric("health", "run", "-i", str(inv), "--out", str(out))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: ") and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert sorted(p.name for p in out.iterdir()) == ["ansible.log"]


def _fake_playbook(tmp_path: Path, recap_hosts: list[str], report: dict[str, Any]) -> str:
    """An ansible-playbook stand-in: writes `report` where it is told and prints a recap."""
    fake = tmp_path / "ansible-playbook"
    recap = "".join(
        f"{h:<26} : ok=9    changed=0    unreachable=0    failed=0    skipped=0\n"
        for h in recap_hosts
    )
    fake.write_text(
        "#!/usr/bin/env python3\n"
        "import json, sys\n"
        "extra = json.loads(sys.argv[sys.argv.index('-e') + 1])\n"
        f"open(extra['fabric_health_out'] + '/health.json', 'w').write({json.dumps(json.dumps(report))})\n"
        f"print('PLAY RECAP ****')\nprint({recap!r})\n"
    )
    fake.chmod(0o755)
    return str(fake)


def test_a_report_of_other_hosts_than_the_run_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inv = tmp_path / "inventory.yml"
    inv.write_text("all: {}\n")
    fake = _fake_playbook(tmp_path, ["h1", "h2"], OLD_REPORT)
    monkeypatch.setattr(health_cli, "ansible_playbook", lambda: fake)
    res = CliRunner().invoke(app, ["health", "run", "-i", str(inv), "--out", str(tmp_path / "o")])
    assert isinstance(res.exception, UserError)
    assert "the report judges h1 but the run was on h1, h2: not this run's report" in str(
        res.exception
    )
    assert not (tmp_path / "o" / "health.json").exists()


def test_the_report_in_out_is_this_runs_stamped_and_replaced_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inv = tmp_path / "inventory.yml"
    inv.write_text("all: {}\n")
    fresh = {**OLD_REPORT, "hosts": {"h1": {"status": "ok", "reasons": [], "warnings": []}}}
    fake = _fake_playbook(tmp_path, ["h1"], fresh)
    monkeypatch.setattr(health_cli, "ansible_playbook", lambda: fake)
    out = tmp_path / "o"
    ids = []
    for _ in range(2):
        res = CliRunner().invoke(app, ["health", "run", "-i", str(inv), "--out", str(out)])
        assert res.exit_code == 0, res.output
        saved = json.loads((out / "health.json").read_text())
        run = saved["meta"]["run"]
        assert set(run) == {"id", "started", "finished"} and run["started"] <= run["finished"]
        ids.append(run["id"])
    assert ids[0] != ids[1]  # each run its own stamp
    assert sorted(p.name for p in out.iterdir()) == ["ansible.log", "health.json"]
