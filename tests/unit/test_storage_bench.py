# ruff: noqa: UP031  (the C printf formats of IOR / mdtest, kept as the tools print them)
"""fio / IOR / mdtest parsers and the storage gate, on captured fio 3.33 reports.

The capture: tests/unit/storage_data/PROVENANCE.md. IOR and mdtest text is built here from
the tools' printf formats (hpc/ior src/ior-output.c, src/mdtest.c) to vary the figures; real
output of IOR / mdtest 3.3.0, 4.0.0 and master is read in test_storage_real_versions.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpufabric.cli.main import app
from gpufabric.errors import UserError
from gpufabric.storage.fio import parse_fio, read_fio
from gpufabric.storage.gate import gate
from gpufabric.storage.ior import parse_ior, parse_mdtest
from gpufabric.storage.results import load_results
from gpufabric.storage.sizing import Goal

DATA = Path(__file__).parent / "storage_data" / "fio-3.33"
RUNNER = CliRunner()


def _report(node: str, phase: str) -> dict:
    return json.loads((DATA / node / f"{phase}.json").read_text())


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "results"
    shutil.copytree(DATA, target)
    return target


def _expected_write_gbps() -> float:
    """The union-window arithmetic done by hand on the two captured write reports."""
    reports = [_report(n, "write") for n in ("a", "b")]
    moved = sum(r["jobs"][0]["write"]["io_bytes"] for r in reports)
    start = min(r["timestamp_ms"] - r["jobs"][0]["write"]["runtime"] for r in reports)
    end = max(r["timestamp_ms"] for r in reports)
    return moved / ((end - start) / 1000) / 1e9


def test_fio_report_is_read_as_fio_wrote_it() -> None:
    run = read_fio(DATA / "a" / "write.json")
    assert run.version == "fio-3.33"
    (job,) = run.jobs
    assert (job.name, job.error, job.write.io_bytes) == ("write", 0, 64 * 2**20)
    assert job.write.runtime_ms > 0 and job.read.io_bytes == 0
    md = read_fio(DATA / "a" / "mdcreate.json").jobs[0]
    assert md.read.ios == 1000  # filecreate counts each created file as one read I/O


def test_results_aggregate_over_the_union_window() -> None:
    results = load_results(DATA)
    assert results.hosts == ("a", "b") and not results.missing
    write = results.phases["write"]
    assert write.amount == 2 * 64 * 2**20
    assert write.aggregate / 1e9 == pytest.approx(_expected_write_gbps())
    assert write.aggregate <= write.sum_of_nodes
    assert results.phases["mdcreate"].amount == 2000


def test_gate_passes_a_goal_the_run_meets_and_names_the_figure() -> None:
    measured = _expected_write_gbps()
    seconds = 2 * 2**30 / (measured * 1e9) * 1.5  # 2 GiB in 1.5 x the time it took
    result = gate(load_results(DATA), Goal(2, seconds))
    assert result.passed
    (write,) = [v for v in result.verdicts if v.check == "write"]
    assert write.line().startswith(f"PASS write       2 nodes: {measured:.3f} GB/s aggregate")
    assert ">= goal" in write.message


def test_gate_fails_a_goal_the_run_cannot_meet_with_one_line() -> None:
    result = gate(load_results(DATA), Goal(2048, 60))
    assert not result.passed
    (write,) = [v for v in result.verdicts if v.check == "write"]
    assert write.status == "fail"
    assert "< goal 36.650 GB/s (a 2,048 GiB checkpoint in 60 s)" in write.message
    assert "\n" not in write.line()


def test_read_goal_and_rated_share() -> None:
    results = load_results(DATA)
    read = results.phases["read"].aggregate / 1e9
    high = gate(results, Goal(1, 3600, read_gbps=read * 2))
    assert [v.status for v in high.verdicts if v.check == "read"] == ["fail"]
    rated = gate(results, None, rated_gbps=_expected_write_gbps() / 0.6)  # write at 60% of rated
    shares = {v.message.split()[0]: v.status for v in rated.verdicts if v.check == "rated"}
    assert shares["write"] == "warn"
    assert gate(results, None, rated_gbps=_expected_write_gbps() / 0.3).passed is False


def test_report_directory_beside_the_hosts_is_not_a_host(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    (results / "report").mkdir()
    (results / "report" / "report.json").write_text("{}")
    assert load_results(results).hosts == ("a", "b")


def test_missing_phase_and_fio_error_fail(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    (results / "b" / "read.json").unlink()
    report = json.loads((results / "a" / "write.json").read_text())
    report["jobs"][0]["error"] = 5
    (results / "a" / "write.json").write_text(json.dumps(report))
    lines = [v.line() for v in gate(load_results(results), None).verdicts if v.status == "fail"]
    assert "FAIL complete    b: no read report (run cut short or fio failed to start)" in lines
    assert "FAIL complete    a: fio write reported error 5" in lines


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "no fio JSON report"),
        ('{"fio version": "fio-3.33", "timestamp_ms": 1, "jobs": [', "cut short or broken"),
        ('{"fio version": "fio-3.33", "timestamp_ms": 1, "jobs": [}', "x.json: line 1 column"),
        ('{"timestamp_ms": 1, "jobs": []}', "not a fio report"),
        ('{"fio version": "x", "timestamp_ms": 1, "jobs": []}', "without jobs"),
        ("[1, 2]", "no fio JSON report"),
    ],
)
def test_bad_fio_reports_are_one_line(text: str, words: str) -> None:
    with pytest.raises(UserError, match=words):
        parse_fio(text, "x.json")


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("NaN", r"line \d+: 'io_bytes': NaN is not a number"),
        ("-1", "'io_bytes' must be a non-negative number"),
        ('"many"', "'io_bytes' must be a non-negative number"),
        ("true", "'io_bytes' must be a non-negative number"),
        ("Infinity", r"line \d+: 'io_bytes': Infinity is not a number"),
    ],
)
def test_nonsense_numbers_name_the_field(bad: str, words: str) -> None:
    text = (DATA / "a" / "write.json").read_text()
    broken = text.replace('"io_bytes" : 67108864', f'"io_bytes" : {bad}', 1)
    assert broken != text
    with pytest.raises(UserError, match=words):
        parse_fio(broken, "x.json")


def test_warnings_before_the_json_are_skipped() -> None:
    text = "fio: this platform does not support process shared mutexes\n"
    text += (DATA / "a" / "read.json").read_text()
    assert parse_fio(text, "x.json").jobs[0].read.io_bytes == 64 * 2**20


def test_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "write.json"
    path.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(UserError, match=r"write.json: not UTF-8 .*, expected a fio JSON report"):
        read_fio(path)


# ---------------------------------------------------------------- IOR / mdtest (from their printf)
def ior_summary(rows: list[tuple[str, float, float, float]]) -> str:
    """As PrintLongSummaryAllTests prints it (default output format)."""
    head = "%-9s %10s %10s %10s %10s %10s %10s %10s %10s %10s" % (
        "Operation", "Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev",
        "Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev", "Mean(s)",
    )  # fmt: skip
    head += " Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt "
    head += "%8s %8s %9s %5s" % (" blksiz", "xsize", "aggs(MiB)", "API") + " RefNum\n"
    text = (
        "IOR-4.1.0+dev: MPI Coordinated Test of Parallel I/O\n...\n\nSummary of all tests:\n" + head
    )
    for op, top, low, mean in rows:
        text += "%-9s " % op + "%10.2f " * 8 % (top, low, mean, 1.0, top, low, mean, 1.0)
        text += "%10.5f %5d %6d %3d %4d %3d %5d %8d %9d %4d %6d %8d %8d %9.1f %3s %6d\n" % (
            2.5,
            0,
            32,
            8,
            3,
            1,
            1,
            1,
            0,
            0,
            1,
            1 << 30,
            1 << 20,
            32768.0,
            "POSIX",
            0,
        )
    return text + "Finished            : Tue Dec  1 18:00:00 2026\n"


def test_ior_summary_text_gives_aggregate_gbps() -> None:
    result = parse_ior(
        ior_summary([("write", 5000, 4000, 4500), ("read", 9000, 8000, 8500)]), "ior.txt"
    )
    assert result.mean_gbps["write"] == pytest.approx(4500 * 2**20 / 1e9)
    assert result.max_gbps["read"] == pytest.approx(9000 * 2**20 / 1e9)


def test_ior_json_summary() -> None:
    text = json.dumps({"summary": [{"operation": "write", "bwMaxMIB": 10.0, "bwMeanMIB": 8.0}]})
    assert parse_ior(text, "ior.json").mean_gbps["write"] == pytest.approx(8 * 2**20 / 1e9)


def test_ior_cut_short_is_refused() -> None:
    with pytest.raises(UserError, match="Summary of all tests"):
        parse_ior("IOR-4.1.0: MPI Coordinated Test of Parallel I/O\nwrite 1 2 3\n", "ior.txt")


def mdtest_summary() -> str:
    text = "\nSUMMARY rate: (of 3 iterations)\n"
    text += "   Operation                      Max            Min           Mean        Std Dev\n"
    text += "   ---------                      ---            ---           ----        -------\n"
    for name, mean in (
        ("Directory creation        :", 900.0),
        ("File creation             :", 12345.678),
    ):
        text += "   %s " % name + "%14.3f " * 3 % (mean * 1.1, mean * 0.9, mean) + "%14.3f\n" % 10.0
    text += "   File create (stonewall)   : " + "%14s %14s %14.3f %14s\n" % ("NA", "NA", 1.0, "NA")
    return text + "   Tree creation             : " + "%14.3f " * 3 % (5, 4, 4.5) + "%14.3f\n" % 0.1


def test_mdtest_summary_rates() -> None:
    rates = parse_mdtest(mdtest_summary(), "mdtest.txt")
    assert rates["File creation"] == pytest.approx(12345.678)
    assert rates["Tree creation"] == pytest.approx(4.5)


def test_ior_and_mdtest_join_the_gate(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    (results / "ior.txt").write_text(ior_summary([("write", 50, 40, 45)]))
    (results / "mdtest.txt").write_text(mdtest_summary())
    result = gate(load_results(results), Goal(1, 1))  # 1.07 GB/s
    ior = [v for v in result.verdicts if v.check == "ior"]
    assert ior[0].status == "fail" and "0.047 GB/s mean < goal 1.074 GB/s" in ior[0].message
    assert result.figures["mdtest_file_creation_per_s"] == pytest.approx(12345.678)


# ---------------------------------------------------------------- CLI
def test_cli_gate_exit_codes(tmp_path: Path) -> None:
    ok = RUNNER.invoke(app, ["storage", "gate", str(DATA)])
    assert ok.exit_code == 0, ok.output
    assert "storage gate PASSED" in ok.output
    bad = RUNNER.invoke(
        app, ["storage", "gate", str(DATA), "--size-gib", "2048", "--write-seconds", "60"]
    )
    assert bad.exit_code == 1 and "FAIL write" in bad.output
    out = tmp_path / "report"
    rep = RUNNER.invoke(app, ["storage", "report", str(DATA), "--out", str(out)])
    assert rep.exit_code == 0, rep.output
    assert "| write | 2 |" in (out / "report.md").read_text()
    assert json.loads((out / "report.json").read_text())["figures"]["write_gbps"] > 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--size-gib", "10"], "give both"),
        (["--write-seconds", "nan", "--size-gib", "1"], "--write-seconds: nan"),
        (["--rated-gbps", "-1"], "--rated-gbps: -1.0"),
        (["--read-gbps", "5"], "needs the checkpoint goal"),
    ],
)
def test_cli_bad_flags_are_usage_errors(args: list[str], words: str) -> None:
    result = RUNNER.invoke(app, ["storage", "gate", str(DATA), *args])
    # a UserError: gpufabric's main() prints it as one line and exits 2
    assert isinstance(result.exception, UserError) and words in str(result.exception)


def test_cli_empty_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["storage", "gate", str(tmp_path)])
    assert isinstance(result.exception, UserError)
    assert "no <host>/<phase>.json" in str(result.exception)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            '{"fio version": "fio-3.33", "timestamp_ms": 1, "jobs": [{"error": 5, "error": 0}]}',
            "key 'error' given twice",
        ),
        ('{"fio version": "fio-3.33", "timestamp_ms": NaN, "jobs": []}', "NaN is not a number"),
    ],
)
def test_contradictory_or_non_numeric_fio_json_is_refused(text: str, words: str) -> None:
    """`"error": 5, "error": 0` would pass as error 0 with Python's json (last key wins)."""
    with pytest.raises(UserError, match=words):
        parse_fio(text, "n1/write.json")
