"""report.md and report.json of the storage gate, on the real fio 3.33 capture of two nodes
(tests/unit/storage_data): the goal and the rated throughput as given, the verdict, and the
per-phase and per-node figures a reader compares with the nodes' own fio output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.storage.gate import gate
from gpufabric.storage.report import render_markdown, write_report
from gpufabric.storage.results import load_results
from gpufabric.storage.sizing import Goal

DATA = Path(__file__).parent / "storage_data" / "fio-3.33"
GOAL = Goal(size_gib=1, write_seconds=600, read_gbps=0.001)


def _page(goal: Goal | None = GOAL, rated: float | None = 0.5) -> list[str]:
    results = load_results(DATA)
    return render_markdown(results, gate(results, goal, rated), goal, rated).splitlines()


def test_the_head_names_the_results_goal_rating_and_verdict() -> None:
    page = _page()
    assert page[0] == "# Storage benchmark"
    assert page[2] == f"Results: `{DATA}`; 2 nodes: a, b"
    assert page[3] == (
        "Goal: a 1 GiB checkpoint in 600 s and 0.001 GB/s of reads = 0.002 GB/s; "
        "rated throughput: 0.500 GB/s"
    )
    assert page[5] == "Gate: **PASSED**"
    assert "PASS complete    2 nodes: 5 phases on every node" in page
    bare = _page(None, None)
    assert bare[3] == "Goal: none given; rated throughput: not given"
    failed = _page(Goal(size_gib=1024, write_seconds=1), None)
    assert failed[5] == "Gate: **FAILED**"


def test_the_tables_hold_each_phase_and_each_node() -> None:
    page = _page()
    for row in [
        "| phase | nodes | moved | window (s) | aggregate | sum of nodes | slowest node |",
        "| write | 2 | 0.12 GiB | 0.45 | 0.298 GB/s | 0.300 GB/s | b 0.150 GB/s |",
        "| read | 2 | 0.12 GiB | 0.11 | 1.209 GB/s | 1.450 GB/s | b 0.652 GB/s |",
        "| mdcreate | 2 | 2,000 files | 1.83 | 1,095/s | 1,292/s | b 598/s |",
        "| mdstat | 2 | 2,000 files | 0.16 | 12,195/s | 135,965/s | b 52,632/s |",
        "| node | phase | moved | runtime (s) | rate |",
        "| a | write | 64 MiB | 0.446 | 0.150 GB/s |",
        "| a | read | 64 MiB | 0.084 | 0.799 GB/s |",
        "| b | mdcreate | 1,000 files | 1.671 | 598/s |",
        "| b | mddelete | 1,000 files | 1.284 | 779/s |",
    ]:
        assert row in page, row
    phases = page.index("## Per phase, all nodes at once")
    nodes = page.index("## Per node")
    assert phases < nodes and len(page) == nodes + 4 + 10  # title, blank, head, rule, 10 rows


def test_report_json_holds_what_the_page_shows(tmp_path: Path) -> None:
    results = load_results(DATA)
    result = gate(results, GOAL, 0.5)
    page = write_report(tmp_path / "out", results, result, GOAL, 0.5)
    assert page == tmp_path / "out" / "report.md"
    assert page.read_text().splitlines() == _page()
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["passed"] is True and data["hosts"] == ["a", "b"]
    assert data["goal"] == {"sizeGiB": 1, "writeSeconds": 600, "readGBps": 0.001}
    assert data["ratedGBps"] == 0.5
    assert data["figures"] == result.figures
    assert data["verdicts"][0] == {
        "check": "complete", "status": "pass", "subject": "2 nodes",
        "message": "5 phases on every node",
    }  # fmt: skip
    write_report(tmp_path / "bare", results, gate(results, None), None, None)
    bare = json.loads((tmp_path / "bare" / "report.json").read_text())
    assert bare["goal"] is None and bare["ratedGBps"] is None


def test_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("x")
    results = load_results(DATA)
    with pytest.raises(UserError, match=r"out: exists and is not a directory$"):
        write_report(tmp_path / "out", results, gate(results, None), None, None)


def test_the_page_is_markdown_that_renders() -> None:
    """Headings, the verdict block and the tables stand apart from the lines around them (a
    table or heading glued to the line before renders as a paragraph); the verdicts are one
    fenced block; each table's rule has one cell per column."""
    results = load_results(DATA)
    verdicts = [v.line() for v in gate(results, GOAL, 0.5).verdicts]
    page = _page()
    assert page[1] == page[4] == page[6] == ""
    fences = [i for i, line in enumerate(page) if line == "```"]
    assert fences == [7, 8 + len(verdicts)]
    assert page[8 : 8 + len(verdicts)] == verdicts
    for title, columns in (("## Per phase, all nodes at once", 7), ("## Per node", 5)):
        at = page.index(title)
        assert page[at - 1] == page[at + 1] == "", title
        assert page[at + 2].count("|") == columns + 1
        assert page[at + 3] == "|---" * columns + "|"
    assert page.index("## Per phase, all nodes at once") == fences[1] + 2


def test_out_is_made_with_its_parents_and_a_rerun_replaces_the_report(tmp_path: Path) -> None:
    """A second run into the same --out rewrites both files: never the earlier verdict."""
    results = load_results(DATA)
    out = tmp_path / "runs" / "today"
    write_report(out, results, gate(results, GOAL, 0.5), GOAL, 0.5)
    assert "Gate: **PASSED**" in (out / "report.md").read_text()
    big = Goal(size_gib=1024, write_seconds=1)
    write_report(out, results, gate(results, big, None), big, None)
    assert "Gate: **FAILED**" in (out / "report.md").read_text()
    data = json.loads((out / "report.json").read_text())
    assert data["passed"] is False and data["goal"]["sizeGiB"] == 1024
