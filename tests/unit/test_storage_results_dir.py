"""A results directory read in-process (the CLI tests run the same checks in a subprocess):
each node's report summed over its jobs and agreeing with fio's own bandwidth, the limits of a
possible report at their edges (report time, bytes and files per second), two IOR summaries at
the 1% agreement edge, and the one-line errors, each naming the directory or the file."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpufabric.cli.conventions import error_line
from gpufabric.errors import UserError
from gpufabric.storage.ior import MIB
from gpufabric.storage.results import BYTE_PHASES, load_results

DATA = Path(__file__).parent / "storage_data"
CAPTURE = DATA / "fio-3.33"


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "results"
    shutil.copytree(CAPTURE, target)
    return target


def _edit(results: Path, node: str, phase: str, change: Callable[[dict], None]) -> Path:
    path = results / node / f"{phase}.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    return path


def _refused(results: Path) -> str:
    with pytest.raises(UserError) as err:
        load_results(results)
    return str(err.value)


# ------------------------------------------------------------------ one node's figure


def test_a_report_of_several_jobs_adds_them_up(tmp_path: Path) -> None:
    """fio without group_reporting writes one entry per job: all of them count, the longest
    runtime is the node's, and an error in any job is the node's error."""
    results = _copy(tmp_path)

    def three_jobs(doc: dict) -> None:
        first = doc["jobs"][0]
        slower = json.loads(json.dumps(first)) | {"error": 0}
        slower["write"]["runtime"] = first["write"]["runtime"] + 100
        failed = json.loads(json.dumps(first)) | {"error": 5}
        doc["jobs"] = [first, slower, failed]

    _edit(results, "a", "write", three_jobs)
    _edit(results, "b", "mdcreate", lambda d: d.update(jobs=d["jobs"] * 2))
    loaded = load_results(results)
    a = loaded.phases["write"].nodes[0]
    runtime = json.loads((CAPTURE / "a" / "write.json").read_text())["jobs"][0]["write"]["runtime"]
    assert (a.host, a.amount, a.runtime_s, a.error) == (
        "a",
        3 * 64 * MIB,
        (runtime + 100) / 1000,
        5,
    )
    assert [n.amount for n in loaded.phases["mdcreate"].nodes] == [1000, 2000]


@pytest.mark.parametrize("version", ["fio-3.28", "fio-3.33", "fio-3.42"])
def test_each_node_rate_is_fios_own_bandwidth(version: str) -> None:
    """fio prints bw_bytes = io_bytes * 1000 / runtime (rounded down): the node's rate is it."""
    loaded = load_results(DATA / version)
    for phase in BYTE_PHASES:
        for node in loaded.phases[phase].nodes:
            report = json.loads((DATA / version / node.host / f"{phase}.json").read_text())
            (job,) = report["jobs"]
            assert node.rate == pytest.approx(job[phase]["bw_bytes"], abs=1.0)
            assert (node.end_ms, node.error) == (report["timestamp_ms"], 0)


def test_a_phase_under_1_ms_counts_as_1_ms(tmp_path: Path) -> None:
    """fio counts whole milliseconds: 0 ms is a phase under 1 ms, not a rate of 0 files/s."""
    results = _copy(tmp_path)
    _edit(results, "a", "mdstat", lambda d: d["jobs"][0]["read"].update(runtime=0))
    a = load_results(results).phases["mdstat"].nodes[0]
    assert (a.runtime_s, a.rate, a.end_ms - a.start_ms) == (0.001, 1000 / 0.001, 1)


# ------------------------------------------------------------------ a possible report

JAN_2005_MS = datetime(2005, 1, 1, tzinfo=UTC).timestamp() * 1000


@pytest.fixture
def far_west_controller(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The controller's own time zone (UTC-5): 2005-01-01 00:00 UTC is 2004-12-31 there."""
    monkeypatch.setenv("TZ", "EST5")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("far_west_controller")
def test_the_earliest_report_time_is_taken_in_utc(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    for node in "ab":
        _edit(results, node, "write", lambda d: d.update(timestamp_ms=int(JAN_2005_MS)))
    assert load_results(results).phases["write"].nodes[0].end_ms == JAN_2005_MS
    path = _edit(results, "a", "write", lambda d: d.update(timestamp_ms=int(JAN_2005_MS) - 60_000))
    assert _refused(results) == (
        f"{path}: report time 2004-12-31 23:59 UTC is before 2005-01-01 "
        "(a clock that was never set): not a real run"
    )


def _moved(phase: str, amount: int, ms: int) -> Callable[[dict], None]:
    def change(doc: dict) -> None:
        side = doc["jobs"][0]["write" if phase == "write" else "read"]
        side.update(io_bytes=amount, total_ios=amount, runtime=ms)

    return change


@pytest.mark.parametrize(
    ("phase", "amount", "ms", "refusal"),
    [
        ("write", 10**9, 1, None),  # 1,000 GB/s: the limit itself
        ("read", 10**9, 0, None),  # 0 ms is counted as 1 ms
        ("write", 10**9 + 1, 1, "write of 0.93 GiB in 1 ms (1,000 GB/s) is beyond any node"),
        ("read", 2 * 10**9, 0, "read of 1.86 GiB in 0 ms (2,000 GB/s) is beyond any node"),
        ("mdcreate", 10**4, 1, None),  # 10^7 files/s: the limit itself
        ("mdstat", 10**4 + 1, 1, "mdstat of 10,001 files in 1 ms (10,001,000/s) is beyond any node"),
        ("mddelete", 2 * 10**4, 0, "mddelete of 20,000 files in 0 ms (20,000,000/s) is beyond"),
    ],
)  # fmt: skip
def test_the_fastest_possible_node_at_its_edge(
    tmp_path: Path, phase: str, amount: int, ms: int, refusal: str | None
) -> None:
    results = _copy(tmp_path)
    path = _edit(results, "a", phase, _moved(phase, amount, ms))
    if refusal is None:
        assert load_results(results).phases[phase].nodes[0].amount == amount
    else:
        message = _refused(results)
        assert message.startswith(f"{path}: {refusal}")
        assert message.endswith("beyond any node: a broken report")


# ------------------------------------------------------------------ IOR beside fio


def ior_txt(rows: dict[str, float]) -> str:
    from tests.unit.test_storage_bench import ior_summary

    return ior_summary([(op, mib, mib, mib) for op, mib in rows.items()])


def ior_json(rows: dict[str, float]) -> str:
    summary = [{"operation": op, "bwMaxMIB": mib, "bwMeanMIB": mib} for op, mib in rows.items()]
    return json.dumps({"summary": summary})


@pytest.mark.parametrize(
    ("text", "js", "refusal"),
    [
        # 44,500 and 44,055 MiB/s lie exactly 1% apart, to the last bit once in GB/s
        ({"write": 44500}, {"write": 44055}, None),
        ({"write": 44500}, {"write": 43610}, "on the write mean (44,500.0 MiB/s vs 43,610.0 MiB/s)"),
        ({"write": 100, "read": 200}, {"write": 100}, "on the read mean (200.0 MiB/s vs none)"),
        ({"write": 100}, {"write": 100, "read": 200}, "on the read mean (none vs 200.0 MiB/s)"),
    ],
    ids=["1%-agrees", "2%-apart", "read-only-in-text", "read-only-in-json"],
)  # fmt: skip
def test_two_ior_summaries_agree_within_1_percent(
    tmp_path: Path, text: dict[str, float], js: dict[str, float], refusal: str | None
) -> None:
    results = _copy(tmp_path)
    (results / "ior.txt").write_text(ior_txt(text))
    (results / "ior.json").write_text(ior_json(js))
    if refusal is None:
        ior = load_results(results).ior
        assert ior is not None and ior.source == str(results / "ior.json")
        assert ior.mean_gbps["write"] == pytest.approx(44055 * MIB / 1e9)
    else:
        assert _refused(results) == (
            f"{results}: ior.txt and ior.json disagree {refusal}: two reports of one run must "
            "agree; keep the one of this run"
        )


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("ior.txt", "IOR-4.0.0\n", "no 'Summary of all tests:' in it (IOR cut short?)"),
        ("ior.json", '{"summary": []}', "IOR JSON without a 'summary' list"),
        ("mdtest.txt", "mdtest-4.0.0\n", "no 'SUMMARY rate' in it"),
    ],
)
def test_a_broken_summary_is_refused_naming_its_file(
    tmp_path: Path, name: str, text: str, words: str
) -> None:
    results = _copy(tmp_path)
    (results / name).write_text(text)
    message = _refused(results)
    assert message.startswith(f"{results / name}: ") and words in message


def test_a_binary_summary_says_what_was_expected(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    (results / "mdtest.txt").write_bytes(b"\xff\xfe\x00\x01")
    message = _refused(results)
    assert message.startswith(f"{results / 'mdtest.txt'}: not UTF-8")
    assert message.endswith("expected an IOR or mdtest summary")


# ------------------------------------------------------------------ the directory and its hosts


def test_the_directory_is_named_in_the_results(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    assert load_results(results).directory == str(results)


def test_a_file_is_not_a_results_directory(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text("{}")
    with pytest.raises(UserError) as err:
        load_results(path)
    assert str(err.value) == f"{path}: not a directory of storage benchmark results"


def test_reports_from_hosts_not_asked_for_name_them_all(tmp_path: Path) -> None:
    results = _copy(tmp_path)
    for old in ("old-1", "old-2"):
        shutil.copytree(results / "b", results / old)
    with pytest.raises(UserError) as err:
        load_results(results, ["a", "b"])
    assert error_line(err.value) == (
        f"error: {results}: reports from old-1, old-2, not among --hosts (a, b): an earlier "
        "run's? remove them"
    )
