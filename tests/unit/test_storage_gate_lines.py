"""The storage gate's verdicts word for word, on figures built here so that every number is
known: the lines a user reads (and `--json` / report.json's status words), the goal, the rated
share, the straggler floor and the start spread at their edges, phases missing everywhere,
and IOR / mdtest beside fio. The real captures: test_storage_bench.py and
test_storage_real_versions.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.storage.gate import StorageGate, gate
from gpufabric.storage.ior import IorResult
from gpufabric.storage.results import NodeFigure, PhaseFigure, Results, load_results
from gpufabric.storage.sizing import Goal

DATA = Path(__file__).parent / "storage_data"
T0 = 1_764_547_200_000.0  # 2025-12-01 00:00 UTC, in ms
Row = tuple[str, str, str, str]


def node(host: str, amount: int, seconds: float = 1.0, start_s: float = 0.0) -> NodeFigure:
    start = T0 + start_s * 1000
    return NodeFigure(host, amount, seconds, start, start + seconds * 1000, 0)


def results(
    phases: dict[str, list[NodeFigure]],
    missing: tuple[tuple[str, str], ...] = (),
    ior: IorResult | None = None,
    mdtest: dict[str, float] | None = None,
) -> Results:
    hosts = {n.host for nodes in phases.values() for n in nodes} | {h for h, _ in missing}
    figures = {p: PhaseFigure(p, tuple(nodes)) for p, nodes in phases.items()}
    return Results("r", tuple(sorted(hosts)), figures, missing, ior, mdtest)


def rows(report: StorageGate, *checks: str) -> list[Row]:
    """(check, status, subject, message): what `--json` and report.json carry."""
    return [
        (v.check, v.status, v.subject, v.message)
        for v in report.verdicts
        if not checks or v.check in checks
    ]


GB = 1_000_000_000
TWO_GB_IN_1_S = {"write": [node("a", GB), node("b", GB)]}


def test_every_line_of_a_run_without_a_goal() -> None:
    report = gate(
        results(
            {
                "write": [node("a", GB), node("b", GB)],
                "read": [node("a", GB), node("b", GB)],
                "mdcreate": [node("a", 1000, 0.5), node("b", 1000, 0.5)],
            }
        ),
        None,
    )
    moved = "2.000 GB/s aggregate (1.86 GiB in 1.00 s; sum of nodes 2.000 GB/s)"
    assert rows(report) == [
        ("complete", "pass", "2 nodes", "3 phases on every node"),
        ("write", "pass", "2 nodes", f"{moved}; no write goal set"),
        ("read", "pass", "2 nodes", f"{moved}; no read goal set"),
        ("metadata", "pass", "2 nodes", "4,000 file creates/s aggregate (2,000 files in 0.50 s)"),
    ]
    assert report.verdicts[1].line() == f"PASS write       2 nodes: {moved}; no write goal set"
    assert report.figures == {
        "write_gbps": 2.0,
        "write_sum_of_nodes_gbps": 2.0,
        "read_gbps": 2.0,
        "read_sum_of_nodes_gbps": 2.0,
        "creates_per_s": 4000.0,
    }
    assert report.passed


def test_the_healthy_capture_gives_only_pass_lines() -> None:
    report = gate(load_results(DATA / "fio-3.33", ["a", "b"]), None)
    assert {v.status for v in report.verdicts} == {"pass"}
    assert report.verdicts[0].line() == "PASS complete    2 nodes: 5 phases on every node"
    what = [v.message.split(" file ")[1].split("/s")[0] for v in report.verdicts[3:]]
    assert [v.check for v in report.verdicts] == ["complete", "write", "read"] + ["metadata"] * 3
    assert what == ["creates", "stats", "deletes"]


GIB = 2**30  # Goal(1, 1.0) needs 1 GiB in 1 s: 1.073741824 GB/s


@pytest.mark.parametrize(
    ("short", "status", "words"),
    [
        (0, "pass", "1.074 GB/s aggregate (1.00 GiB in 1.00 s; sum of nodes 1.074 GB/s) >= goal"),
        (1000, "fail", "1.074 GB/s aggregate (1.00 GiB in 1.00 s; sum of nodes 1.074 GB/s) < goal"),
    ],
    ids=["exactly-the-goal", "1000-bytes-short"],
)
def test_a_write_exactly_at_the_goal_passes(short: int, status: str, words: str) -> None:
    report = gate(
        results({"write": [node("a", GIB // 2), node("b", GIB // 2 - short)]}), Goal(1, 1)
    )
    (write,) = rows(report, "write")
    assert write == ("write", status, "2 nodes", f"{words} 1.074 GB/s (a 1 GiB checkpoint in 1 s)")
    assert report.passed is (status == "pass")


def test_the_checkpoint_time_is_the_window_when_the_run_moved_the_checkpoint() -> None:
    report = gate(results({"write": [node("a", GIB // 2), node("b", GIB // 2)]}), Goal(1, 60))
    assert report.figures["checkpoint_write_s"] == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize(
    ("read_goal", "status", "sign"), [(2.0, "pass", ">="), (2.001, "fail", "<")]
)
def test_the_read_goal_at_its_edge(read_goal: float, status: str, sign: str) -> None:
    goal = Goal(1, 1, read_gbps=read_goal)
    report = gate(results({"read": [node("a", GB), node("b", GB)]}), goal)
    assert rows(report, "read") == [
        (
            "read",
            status,
            "2 nodes",
            "2.000 GB/s aggregate (1.86 GiB in 1.00 s; sum of nodes 2.000 GB/s) "
            f"{sign} goal {read_goal:.3f} GB/s (a 1 GiB checkpoint in 1 s and {read_goal:g} GB/s "
            "of reads)",
        )
    ]


@pytest.mark.parametrize(
    ("rated", "status", "message"),
    [
        (2.5, "pass", "write 2.000 GB/s = 80% of the rated 2.500 GB/s"),
        (4.0, "warn", "write 2.000 GB/s = 50% of the rated 4.000 GB/s (below 80%)"),
        (5.0, "fail", "write 2.000 GB/s = 40% of the rated 5.000 GB/s (below 50%)"),
    ],
    ids=["80%-passes", "50%-warns", "40%-fails"],
)
def test_the_rated_share_at_its_edges(rated: float, status: str, message: str) -> None:
    report = gate(results(TWO_GB_IN_1_S), None, rated_gbps=rated)
    assert rows(report, "rated") == [("rated", status, "2 nodes", message)]
    assert report.passed is (status != "fail")


@pytest.mark.parametrize("rated", [None, 0.0])
def test_no_rating_gives_no_rated_line(rated: float | None) -> None:
    assert rows(gate(results(TWO_GB_IN_1_S), None, rated_gbps=rated), "rated") == []


@pytest.mark.parametrize(
    ("phase", "amounts", "seconds", "message"),
    [
        ("write", [GB, GB // 5], 1.0, "write 0.200 GB/s is under 50% of the median node's 0.600 GB/s"),
        ("read", [GB, GB, GB // 5], 1.0, "read 0.200 GB/s is under 50% of the median node's 1.000 GB/s"),
        ("mdstat", [1000, 100], 1.0, "mdstat 100/s is under 50% of the median node's 550/s"),
        ("mddelete", [100, 10], 1.0, "mddelete 10/s is under 50% of the median node's 55/s"),
        # a node on a hung mount: under one file a second
        ("mdcreate", [9, 1], 10.0, "mdcreate 0.10/s is under 50% of the median node's 0.50/s"),
    ],
)  # fmt: skip
def test_a_straggler_node_warns_in_every_phase(
    phase: str, amounts: list[int], seconds: float, message: str
) -> None:
    hosts = "abc"
    slow = hosts[len(amounts) - 1]
    nodes = [node(h, amount, seconds) for h, amount in zip(hosts, amounts, strict=False)]
    report = gate(results({phase: nodes}), None)
    assert rows(report, "balance") == [("balance", "warn", slow, message)]
    assert report.passed


@pytest.mark.parametrize(
    "nodes",
    [
        [node("a", GB), node("b", 2 * GB), node("c", 3 * GB)],  # a at exactly half the median
        [node("a", GB // 5)],  # one node has no median to fall under
    ],
)
def test_no_straggler_at_half_the_median_or_alone(nodes: list[NodeFigure]) -> None:
    assert rows(gate(results({"write": nodes}), None), "balance") == []


@pytest.mark.parametrize(
    ("later_s", "fail"),
    [
        (60.0, None),
        (
            61.0,
            "write started 61 s apart on a and b (more than 60 s): not one run "
            "(a clock off, or an earlier run's report)",
        ),
    ],
)
def test_nodes_the_limit_apart_still_ran_together(later_s: float, fail: str | None) -> None:
    report = gate(results({"write": [node("a", GB), node("b", GB, start_s=later_s)]}), None)
    complete = rows(report, "complete")
    if fail is None:
        assert complete == [("complete", "pass", "2 nodes", "1 phases on every node")]
    else:
        assert complete == [("complete", "fail", "2 nodes", fail)]


def test_a_phase_missing_on_every_node_hides_no_other_phase() -> None:
    missing = tuple((h, p) for h in "ab" for p in ("write", "mdcreate"))
    report = gate(
        results(
            {"read": [node("a", GB), node("b", GB)], "mdstat": [node("a", 10), node("b", 10)]},
            missing,
        ),
        Goal(1, 1),
    )
    assert [v.check for v in report.verdicts if v.status != "fail"] == ["read", "metadata"]
    assert rows(report, "metadata")[0][3].startswith("20 file stats/s aggregate")
    assert "write_gbps" not in report.figures and "checkpoint_write_s" not in report.figures
    assert not report.passed


def test_nothing_written_fails_and_gives_no_checkpoint_time() -> None:
    report = gate(results({"write": [node("a", 0), node("b", 0)]}), Goal(1, 1))
    assert ("complete", "fail", "a", "fio write moved nothing") in rows(report)
    assert report.figures["write_gbps"] == 0.0 and "checkpoint_write_s" not in report.figures
    assert not report.passed


IOR = IorResult("ior.txt", {"write": 1.0, "read": 2.0}, {"write": 1.5, "read": 2.5})


def test_ior_without_a_goal_is_reported_not_judged() -> None:
    report = gate(results(TWO_GB_IN_1_S, ior=IOR), None)
    assert rows(report, "ior") == [
        ("ior", "pass", "write", "1.000 GB/s mean"),
        ("ior", "pass", "read", "2.000 GB/s mean"),
    ]
    assert report.figures["ior_write_gbps"] == 1.0 and report.figures["ior_read_gbps"] == 2.0


def test_ior_exactly_at_the_goal_passes() -> None:
    goal = Goal(1, 1, read_gbps=2.0)
    at_goal = IorResult("ior.txt", {"write": goal.write_gbps, "read": 2.0}, {})
    report = gate(results(TWO_GB_IN_1_S, ior=at_goal), goal)
    assert rows(report, "ior") == [
        ("ior", "pass", "write", "1.074 GB/s mean >= goal 1.074 GB/s"),
        ("ior", "pass", "read", "2.000 GB/s mean >= goal 2.000 GB/s"),
    ]


def test_mdtest_rates_in_one_line() -> None:
    mdtest = {"File creation": 12345.678, "Tree creation": 5.25}
    report = gate(results(TWO_GB_IN_1_S, mdtest=mdtest), None)
    assert rows(report, "mdtest") == [
        ("mdtest", "pass", "summary", "File creation 12,346/s, Tree creation 5/s")
    ]
    assert report.figures["mdtest_file_creation_per_s"] == 12345.678
    assert report.figures["mdtest_tree_creation_per_s"] == 5.25
