"""The storage gate passes only on this run's own, possible, agreeing measurements: a report
with a key given twice, two IOR summaries that disagree, gigabytes in 0 ms, a clock in 1970
or reports from other hosts than those asked for are refused; an asked host without reports
fails. The healthy fio 3.33 capture (tests/unit/storage_data) still passes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.storage.fio import parse_fio
from gpufabric.storage.gate import gate
from gpufabric.storage.results import load_results

DATA = Path(__file__).parent / "storage_data" / "fio-3.33"


def gpufabric(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args], capture_output=True, text=True, check=False
    )


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "results"
    shutil.copytree(DATA, target)
    return target


def _edit(results: Path, node: str, phase: str, change: Callable[[dict], None]) -> None:
    path = results / node / f"{phase}.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_the_healthy_capture_passes_with_its_hosts(tmp_path: Path) -> None:
    proc = gpufabric("storage", "gate", str(DATA), "--hosts", "a,b")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "storage gate PASSED" in proc.stdout


def test_a_key_given_twice_is_refused_not_the_last_one_kept() -> None:
    text = (DATA / "a" / "write.json").read_text()
    twice = text.replace('"error" : 0,', '"error" : 5,\n      "error" : 0,', 1)
    assert twice != text
    with pytest.raises(UserError, match="key 'error' given twice"):
        parse_fio(twice, "write.json")


def test_ior_text_and_json_that_disagree_are_refused(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    from tests.unit.test_storage_bench import ior_summary

    (results / "ior.txt").write_text(ior_summary([("write", 0.6, 0.4, 0.5)]))
    (results / "ior.json").write_text(
        json.dumps({"summary": [{"operation": "write", "bwMaxMIB": 91000, "bwMeanMIB": 90000}]})
    )
    with pytest.raises(UserError) as err:
        load_results(results)
    assert "ior.txt and ior.json disagree on the write mean (0.5 MiB/s vs 90,000.0 MiB/s)" in str(
        err.value
    )


def test_ior_text_and_json_that_agree_are_read(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    from tests.unit.test_storage_bench import ior_summary

    (results / "ior.txt").write_text(ior_summary([("write", 50, 40, 45)]))
    (results / "ior.json").write_text(
        json.dumps({"summary": [{"operation": "write", "bwMaxMIB": 50, "bwMeanMIB": 45}]})
    )
    assert load_results(results).ior is not None


def _four_gib_in_0_ms(doc: dict) -> None:
    doc["jobs"][0]["write"]["io_bytes"] = 4 << 30
    doc["jobs"][0]["write"]["runtime"] = 0


def _in_1970(doc: dict) -> None:
    doc["timestamp_ms"] = 86_400_000  # 1970-01-02


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_four_gib_in_0_ms, "write of 4.00 GiB in 0 ms (4,295 GB/s) is beyond any node"),
        (_in_1970, "report time 1970-01-02 00:00 UTC is before 2005-01-01"),
    ],
    ids=["4GiB-in-0ms", "1970"],
)
def test_impossible_reports_are_refused_naming_the_file(
    tmp_path: Path,
    change: Callable[[dict], None],
    words: str,
) -> None:
    results = _copy(tmp_path)
    _edit(results, "a", "write", change)
    proc = gpufabric("storage", "gate", str(results))
    assert proc.returncode == 2, proc.stdout
    assert words in proc.stderr and str(results / "a" / "write.json") in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""


def test_reports_from_hosts_not_asked_for_are_refused(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    shutil.copytree(results / "b", results / "old-node")  # an earlier, larger run's leftovers
    proc = gpufabric("storage", "gate", str(results), "--hosts", "a,b")
    assert proc.returncode == 2
    assert "reports from old-node, not among --hosts (a, b)" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_asked_host_without_reports_fails(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    report = gate(load_results(results, ["a", "b", "c"]), None)
    assert not report.passed
    fails = [v.line() for v in report.verdicts if v.status == "fail"]
    assert "FAIL complete    c: no write report (run cut short or fio failed to start)" in fails
    assert len([f for f in fails if " c: " in f]) == 5  # every phase of c
    proc = gpufabric("storage", "gate", str(results), "--hosts", "a,b,c")
    assert proc.returncode == 1 and "storage gate FAILED" in proc.stdout


@pytest.mark.parametrize("bad", ["", "a,,b", "../x"])
def test_bad_hosts_flag_is_one_line(bad: str) -> None:
    proc = gpufabric("storage", "gate", str(DATA), "--hosts", bad)
    assert proc.returncode == 2 and proc.stderr.startswith("error: --hosts:")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_nodes_that_did_not_run_together_fail(tmp_path: Path) -> None:
    """b's write report an hour later than a's (a clock off, or an earlier run's file): the
    phase was not one run, so its aggregate measures nothing."""
    results = _copy(tmp_path)
    _edit(results, "b", "write", lambda d: d.update(timestamp_ms=d["timestamp_ms"] + 3_600_000))
    report = gate(load_results(results, ["a", "b"]), None)
    assert not report.passed
    (line,) = [v.line() for v in report.verdicts if v.status == "fail"]
    assert line.startswith("FAIL complete    2 nodes: write started 3,600 s apart on a and b")
    assert "not one run" in line
    assert gate(load_results(_copy(tmp_path / "again"), ["a", "b"]), None).passed


# ------------------------------------------------ the goal each figure is judged against


def _ior_results(tmp_path: Path, write_gbps: float, read_gbps: float) -> Path:
    from tests.unit.test_storage_bench import ior_summary

    results = _copy(tmp_path)
    mib = [rate * 1e9 / 2**20 for rate in (write_gbps, read_gbps)]
    (results / "ior.txt").write_text(
        ior_summary([("write", mib[0], mib[0], mib[0]), ("read", mib[1], mib[1], mib[1])])
    )
    return results


@pytest.mark.parametrize(
    ("write_gbps", "read_gbps", "statuses"),
    [
        # a 2,048 GiB checkpoint in 60 s needs 36.650 GB/s of writes; reads need 10 GB/s
        (40.0, 20.0, {"write": "pass", "read": "pass"}),  # reads under the write goal: fine
        (40.0, 8.0, {"write": "pass", "read": "fail"}),
        (30.0, 20.0, {"write": "fail", "read": "pass"}),
    ],
)
def test_ior_read_is_judged_against_the_read_goal_and_write_against_the_write_goal(
    tmp_path: Path, write_gbps: float, read_gbps: float, statuses: dict[str, str]
) -> None:
    from gpufabric.storage.sizing import Goal

    goal = Goal(size_gib=2048, write_seconds=60, read_gbps=10.0)
    report = gate(load_results(_ior_results(tmp_path, write_gbps, read_gbps)), goal)
    ior = {v.subject: v for v in report.verdicts if v.check == "ior"}
    assert {op: v.status for op, v in ior.items()} == statuses
    assert "goal 10.000 GB/s" in ior["read"].message
    assert "goal 36.650 GB/s" in ior["write"].message


def test_the_checkpoint_time_counts_gib_not_gb(tmp_path: Path) -> None:
    """2,048 GiB is 2,199.0 GB: at the measured aggregate write rate it takes that long."""
    from gpufabric.storage.sizing import Goal

    report = gate(load_results(DATA), Goal(size_gib=2048, write_seconds=60))
    write = report.figures["write_gbps"]
    assert report.figures["checkpoint_write_s"] == pytest.approx(2199.023255552 / write)


def test_a_node_that_moved_nothing_fails(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    _edit(results, "b", "write", lambda d: d["jobs"][0]["write"].update(io_bytes=0, total_ios=0))
    report = gate(load_results(results), None)
    assert not report.passed
    failed = [(v.check, v.subject, v.message) for v in report.verdicts if v.status == "fail"]
    assert ("complete", "b", "fio write moved nothing") in failed
