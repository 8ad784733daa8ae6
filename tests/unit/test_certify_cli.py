"""`gpufabric certify` usage errors (one line, exit 2) and `certify compare` on scorecards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.unit.certify_fakes import FakeRunner, doctor_report, node_report

from gpufabric.certify.hosts import Holder, Inventory
from gpufabric.certify.run import Options, certify, write

REPO = Path(__file__).resolve().parents[2]


def gpufabric(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "100"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def one_error(result: subprocess.CompletedProcess[str], text: str) -> None:
    assert result.returncode == 2, result
    assert result.stderr.startswith("error: ") and text in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    one_error(gpufabric("certify", "-i", "x", "-s", "y"), "exactly one of -i/--inventory")
    one_error(gpufabric("certify", "-i", str(tmp_path / "nope")), "does not exist")
    (tmp_path / "inv.ini").write_text("[gpu_nodes]\nh1\n")
    one_error(gpufabric("certify", "-i", str(tmp_path / "inv.ini"), "--soak", "-1"), "--soak")
    one_error(
        gpufabric("certify", "-i", str(tmp_path / "inv.ini"), "--hold", "pbs"), "--hold: 'pbs'"
    )
    (tmp_path / "x.json").write_text('{"reportFormat": "CTRF"}')
    one_error(
        gpufabric("certify", "compare", str(tmp_path / "x.json"), str(tmp_path / "x.json")),
        "not a gpufabric certify scorecard",
    )
    (tmp_path / "dup.json").write_text('{"a": 1, "a": 2}')
    one_error(
        gpufabric("certify", "compare", str(tmp_path / "dup.json"), str(tmp_path / "x.json")),
        "dup.json",
    )


def test_compare_two_scorecards(tmp_path: Path) -> None:
    hosts = ["h1", "h2", "h3"]
    inv = Inventory(hosts, "h1", {h: {"gpufabric_fabric": "lab"} for h in hosts}, {})
    for name, bad in (("old", {}), ("new", {"h2": ["mtu: eth0 mtu 9000, the peers' 1500"]})):
        runner = FakeRunner({h: node_report() for h in hosts}, {})
        report = certify(
            inv,
            runner,
            Holder("none", runner, "h1"),
            lambda hs, _l, bad=bad: doctor_report(hs, {h: r for h, r in bad.items() if h in hs}),
            None,
            Options(),
        )
        write(report, tmp_path / name)
    got = gpufabric(
        "certify", "compare", str(tmp_path / "old/certify.json"), str(tmp_path / "new/certify.json")
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[0] == "verdict: certified -> not certified"
    assert "host h2: certified -> held (mtu: eth0 mtu 9000, the peers' 1500)" in got.stdout
    doc = json.loads((tmp_path / "new/certify.json").read_text())
    assert doc["results"]["extra"]["hosts"]["h2"]["stage"] == "4 fabric"
