"""`gpufabric certify`'s run over stand-in nodes (tests/unit/certify_fakes.py), in-process: what
the progress display is told, the stages that say why they did not run once no node is left,
the collectives per leaf and across the cluster (a failing leaf holds its nodes; the cluster
failing alone names none and still fails the run), the report's metadata and the files
written."""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import capture
from tests.unit.certify_fakes import FakeRunner, doctor_report, node_report
from tests.unit.test_certify_stages import tuned

from gpufabric import __version__
from gpufabric.certify.hosts import Holder, Inventory
from gpufabric.certify.run import Options, certify, criteria, write
from gpufabric.certify.scorecard import ctrf, render_html
from gpufabric.errors import UserError


class Shown:
    """Records what certify tells the progress display."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def stage(self, number: int, name: str, hosts: int) -> None:
        self.calls.append(("stage", number, name, hosts))

    def done(self, number: int, failed: int) -> None:
        self.calls.append(("done", number, failed))

    def released(self, host: str) -> None:
        self.calls.append(("released", host))


def lab(hosts: list[str], **hostvars: Any) -> Inventory:
    hv = {"gpufabric_fabric": "lab", **hostvars}
    return Inventory(hosts, hosts[0], {h: dict(hv) for h in hosts}, {"gpu_nodes": hosts})


def run_lab(
    reports: dict[str, dict[str, Any] | None],
    fabric_bad: dict[str, list[str]] | None = None,
    opts: Options | None = None,
) -> tuple[dict[str, Any], Shown, list[tuple[list[str], str]]]:
    hosts = list(reports)
    runner = FakeRunner(reports, {})
    calls: list[tuple[list[str], str]] = []

    def fabric(hs: list[str], label: str) -> dict[str, Any]:
        calls.append((list(hs), label))
        return doctor_report(hs, {h: r for h, r in (fabric_bad or {}).items() if h in hs})

    shown = Shown()
    report = certify(
        lab(hosts), runner, Holder("none", runner, hosts[0]), fabric, None, opts or Options(), shown
    )
    return report, shown, calls


def test_progress_is_told_each_stage_its_failures_and_each_release() -> None:
    report, shown, calls = run_lab(
        {"a": node_report(), "b": node_report(), "c": None}, fabric_bad={"b": ["mtu: eth0"]}
    )
    assert shown.calls == [
        ("stage", 1, "sanity", 3),
        ("done", 1, 1),
        ("stage", 2, "configuration", 2),
        ("done", 2, 0),
        ("stage", 3, "node", 2),
        ("done", 3, 0),
        ("stage", 4, "fabric", 2),
        ("done", 4, 1),
        ("stage", 5, "collectives", 1),
        ("done", 5, 0),
        ("stage", 6, "storage", 1),
        ("done", 6, 0),
        ("stage", 7, "soak", 1),
        ("done", 7, 0),
        ("released", "a"),
    ]
    assert calls == [(["a", "b"], "fabric")]  # no soak on one node
    assert {h: v["status"] for h, v in report["hosts"].items()} == {
        "a": "certified",
        "b": "held",
        "c": "held",
    }
    assert report["hosts"]["a"] == {"status": "certified", "stage": None, "reason": "", "todo": ""}
    assert report["hosts"]["b"]["stage"] == "4 fabric"
    assert report["hosts"]["b"]["reason"] == "mtu: eth0"
    assert report["hosts"]["b"]["todo"].startswith("set the fabric's MTU")
    soak = [r for r in report["rows"] if r["stage"] == 7]
    assert [(r["status"], r["measurement"]) for r in soak] == [
        ("skipped", "soak: no repeat asked or fewer than 2 hosts")
    ]


def test_once_no_node_is_left_each_stage_says_so_and_nothing_runs() -> None:
    report, shown, calls = run_lab({"a": None, "b": None}, opts=Options(soak_repeats=3))
    assert calls == []
    assert report["verdict"] == "not certified"
    said = {r["stage"]: (r["status"], r["host"], r["measurement"]) for r in report["rows"][2:]}
    assert said == {
        2: ("skipped", "", "no node left"),
        3: ("skipped", "", "no node left"),
        4: ("skipped", "", "fewer than 2 hosts left: no traffic test"),
        5: ("skipped", "", "no node left"),
        6: ("skipped", "", "no node left"),
        7: ("skipped", "", "soak: no repeat asked or fewer than 2 hosts"),
    }
    assert [c for c in shown.calls if c[0] == "stage"][1:] == [
        ("stage", n, name, 0)
        for n, name in [
            (2, "configuration"),
            (3, "node"),
            (4, "fabric"),
            (5, "collectives"),
            (6, "storage"),
            (7, "soak"),
        ]
    ]
    assert all(r["status"] == "failed" for r in report["rows"][:2])


def test_soak_repeats_run_on_the_nodes_still_in() -> None:
    report, _shown, calls = run_lab(
        {h: node_report() for h in ("a", "b", "c")},
        fabric_bad={"c": ["mtu: x"]},
        opts=Options(soak_repeats=2),
    )
    assert calls == [(["a", "b", "c"], "fabric"), (["a", "b"], "soak1"), (["a", "b"], "soak2")]
    assert [r["measurement"] for r in report["rows"] if r["stage"] == 7] == [
        "repeat 1",
        "repeat 1",
        "repeat 2",
        "repeat 2",
    ]
    assert Options().soak_repeats == 1  # thresholds.yaml's soak.repeats
    assert run_lab({h: node_report() for h in "ab"}, opts=Options(soak_repeats=0))[2] == [
        (["a", "b"], "fabric")
    ]


def test_the_report_carries_the_run_and_the_criteria() -> None:
    opts = Options(command="gpufabric certify -i x", versions={"nccl": "2.21.5"})
    report, _shown, _calls = run_lab({h: node_report() for h in "ab"}, opts=opts)
    meta = report["meta"]
    assert meta["command"] == "gpufabric certify -i x"
    assert (meta["fabric"], meta["cloud"], meta["instance_type"], meta["hold"]) == (
        "lab",
        "",
        "",
        "none",
    )
    assert meta["versions"] == {
        "gpufabric": __version__,
        "python": platform.python_version(),
        "nccl": "2.21.5",
    }
    assert meta["argv"] == sys.argv and 0 < meta["start"] <= meta["stop"]
    assert report["criteria"] == criteria()["criteria"] and report["criteria"]
    assert report["collectives"] == []
    assert report["holds"] == [
        {"node": "a", "action": "hold", "why": ""},
        {"node": "b", "action": "hold", "why": ""},
        {"node": "a", "action": "release", "why": ""},
        {"node": "b", "action": "release", "why": ""},
    ]


def test_quiet_progress_is_the_default() -> None:
    runner = FakeRunner({"a": node_report()}, {})
    report = certify(
        lab(["a"]), runner, Holder("none", runner, "a"), lambda h, _l: {}, None, Options()
    )
    assert report["verdict"] == "certified"


def p4de() -> str:
    """A real 2-node nccl-tests table without its NCCL_DEBUG log (read when a test runs: a
    checkout without the shared captures skips that test, one line)."""
    return capture("nccl-tests/all_reduce_perf_2x_p4de_efa_srun_prefix.txt").read_text()


def proven() -> str:
    """The same table after a real InfiniBand NCCL_DEBUG log: its transport proven."""
    return capture("nccl-debug/net_ib_8hca_ib.txt").read_text() + "\n" + p4de()


def run_collectives(
    text_for: Any,
    hostvars: dict[str, dict[str, Any]] | None = None,
    instance: str = "p4de.24xlarge",
    runner: FakeRunner | None = None,
    holder: Holder | None = None,
    shown: Shown | None = None,
) -> tuple[dict[str, Any], list[tuple[list[str], str]]]:
    hosts = ["n1", "n2", "n3", "n4", "n5"]
    leaves = {"n1": "leaf1", "n2": "leaf1", "n3": "leaf2", "n4": "leaf2", "n5": "leaf3"}
    hv = {
        h: {
            "gpufabric_fabric": "infiniband",
            "gpufabric_instance_type": instance,
            "gpufabric_leaf": leaves[h],
            **((hostvars or {}).get(h) or {}),
        }
        for h in hosts
    }
    inv = Inventory(hosts, "n1", hv, {"gpu_nodes": hosts})
    runner = runner or FakeRunner({h: tuned("infiniband", gpus=8) for h in hosts}, {})
    ran: list[tuple[list[str], str]] = []

    def collective(hs: list[str], coll: str) -> str:
        ran.append((list(hs), coll))
        return text_for(hs, coll)

    report = certify(
        inv,
        runner,
        holder or Holder("none", runner, "n1"),
        lambda hs, _l: doctor_report(hs, {}),
        collective,
        Options(soak_repeats=0),
        shown,
    )
    return report, ran


def test_a_leaf_named_cluster_is_run_and_held_as_a_leaf() -> None:
    """A leaf whose name is "cluster" is not replaced by the whole cluster's run: it is run,
    named as a leaf, and its failing nodes are held."""
    named = {h: {"gpufabric_leaf": "cluster"} for h in ("n1", "n2")}
    report, ran = run_collectives(
        lambda hs, coll: p4de() if hs == ["n1", "n2"] else proven(), hostvars=named
    )
    assert [hs for hs, coll in ran if coll == "all_reduce"] == [
        ["n1", "n2"],
        ["n3", "n4"],
        ["n1", "n2", "n3", "n4", "n5"],
    ]
    rows = [r for r in report["rows"] if r["stage"] == 5]
    assert rows[0]["name"] == "5 collectives: all_reduce leaf cluster"
    held = {r["host"] for r in rows if r["host"] and r["status"] == "failed"}
    assert held == {"n1", "n2"}


def test_collectives_run_per_leaf_of_two_or_more_and_across_every_node() -> None:
    report, ran = run_collectives(lambda hs, coll: proven())
    assert ran == [
        (["n1", "n2"], "all_reduce"),
        (["n1", "n2"], "all_gather"),
        (["n3", "n4"], "all_reduce"),
        (["n3", "n4"], "all_gather"),
        (["n1", "n2", "n3", "n4", "n5"], "all_reduce"),
        (["n1", "n2", "n3", "n4", "n5"], "all_gather"),
    ]
    rows = [r for r in report["rows"] if r["stage"] == 5]
    assert [r["name"] for r in rows] == [
        "5 collectives: all_reduce leaf1",
        "5 collectives: all_gather leaf1",
        "5 collectives: all_reduce leaf2",
        "5 collectives: all_gather leaf2",
        "5 collectives: all_reduce cluster",
        "5 collectives: all_gather cluster",
    ]
    first = rows[0]
    assert (first["host"], first["status"], first["reason"]) == ("", "passed", "")
    assert first["measurement"] == "busbw 78.3 GB/s, 0.84 of tree bound, ib"
    assert first["extra"]["collective"] == report["collectives"][0]
    assert len(report["collectives"]) == 6
    assert report["verdict"] == "certified"


def test_a_failing_leaf_holds_its_nodes_with_the_collective_named() -> None:
    report, _ran = run_collectives(lambda hs, coll: p4de() if hs == ["n3", "n4"] else proven())
    why = "transport not proven: the log names none (NCCL_DEBUG=INFO)"
    for h in ("n3", "n4"):
        held = report["hosts"][h]
        assert held["stage"] == "5 collectives"
        assert held["reason"] == f"collective: all_reduce leaf2: {why}"
        assert held["todo"].startswith("run gpufabric health run")
    # both collectives failed on leaf2: each node is held once, with the first
    leaf2 = [r for r in report["rows"] if r["name"] == "5 collectives: all_reduce leaf2"]
    assert leaf2[0]["reason"] == f"collective: {why}"
    assert leaf2[0]["measurement"] == "busbw 78.3 GB/s, 0.84 of tree bound, None"
    held_rows = [r for r in report["rows"] if r["stage"] == 5 and r["host"] == "n3"]
    assert [r["measurement"] for r in held_rows] == [
        "busbw 78.3 GB/s, 0.84 of tree bound, None",  # all_reduce: tree on 2 nodes
        "busbw 78.3 GB/s, 1.57 of ring bound, None",  # all_gather: ring
    ]
    assert {h: v["status"] for h, v in report["hosts"].items()} == {
        "n1": "certified",
        "n2": "certified",
        "n3": "held",
        "n4": "held",
        "n5": "certified",
    }


def test_the_cluster_failing_alone_names_no_node_and_fails_the_run() -> None:
    report, _ran = run_collectives(lambda hs, coll: proven() if len(hs) == 2 else "")
    assert all(v["status"] == "certified" for v in report["hosts"].values())
    failed = [r for r in report["rows"] if r["status"] == "failed"]
    assert [(r["name"], r["host"], r["reason"]) for r in failed] == [
        ("5 collectives: all_reduce cluster", "", "collective: no result table"),
        ("5 collectives: all_gather cluster", "", "collective: no result table"),
    ]
    assert failed[0]["measurement"] == "busbw 0.0 GB/s, - of ? bound, None"
    assert report["verdict"] == "not certified"


def test_without_an_instance_type_or_a_launcher_collectives_are_skipped() -> None:
    hosts = ["n1", "n2"]
    inv = Inventory(hosts, "n1", {h: {"gpufabric_fabric": "infiniband"} for h in hosts}, {})
    runner = FakeRunner({h: tuned("infiniband", gpus=8) for h in hosts}, {})
    report = certify(
        inv,
        runner,
        Holder("none", runner, "n1"),
        lambda hs, _l: doctor_report(hs, {}),
        lambda hs, c: proven(),
        Options(soak_repeats=0),
    )
    [row] = [r for r in report["rows"] if r["stage"] == 5]
    assert (row["status"], row["measurement"]) == (
        "skipped",
        "collectives skipped: no instance type / launcher",
    )
    assert row["name"] == "5 collectives: 2 host(s)"


def test_a_stage_that_holds_every_node_leaves_the_next_skipped() -> None:
    """A collectives run that fails everywhere leaves nobody for storage or soak."""
    report, _ran = run_collectives(
        lambda hs, coll: p4de(), hostvars={"n5": {"gpufabric_leaf": "leaf2"}}
    )
    assert {v["stage"] for v in report["hosts"].values()} == {"5 collectives"}
    rows = {r["stage"]: r["measurement"] for r in report["rows"] if r["stage"] in (6, 7)}
    assert rows == {6: "no node left", 7: "soak: no repeat asked or fewer than 2 hosts"}


def test_write_keeps_the_ctrf_document_and_the_page(tmp_path: Path) -> None:
    report, _shown, _calls = run_lab({h: node_report() for h in "ab"})
    files = write(report, tmp_path / "out" / "run1")
    assert files == [tmp_path / "out/run1/certify.json", tmp_path / "out/run1/certify.html"]
    doc = json.loads(files[0].read_text())
    want = ctrf(report)
    assert {**doc, "reportId": ""} == {**want, "reportId": ""}
    assert files[0].read_text().endswith("}\n") and files[0].read_text().startswith('{\n  "')
    assert files[1].read_text() == render_html(report)
    # the same --out again: the scorecard is replaced, not refused
    again, _shown, _calls = run_lab({h: node_report() for h in "ab"}, fabric_bad={"b": ["mtu: x"]})
    write(again, tmp_path / "out" / "run1")
    assert json.loads(files[0].read_text())["results"]["extra"]["verdict"] == "not certified"


def test_a_transport_other_than_the_fabrics_holds_the_leaf() -> None:
    """An InfiniBand log on an EFA cluster: the run did not use the fabric it was built for."""
    hosts = ["n1", "n2", "n3", "n4", "n5"]
    hv = {h: {"gpufabric_fabric": "efa", "gpufabric_cloud": "aws"} for h in hosts}
    runner = FakeRunner({h: tuned("efa", gpus=8) for h in hosts}, {})
    report, _ran = run_collectives(lambda hs, coll: proven(), hostvars=hv, runner=runner)
    why = "transport ib, the efa fabric uses NET/OFI (aws-ofi-nccl) with the efa provider"
    assert report["hosts"]["n1"]["reason"] == f"collective: all_reduce leaf1: {why}"


def test_the_instance_types_gpu_count_is_asked_of_every_node() -> None:
    hosts = ["n1", "n2", "n3", "n4", "n5"]
    runner = FakeRunner({h: tuned("infiniband", gpus=4) for h in hosts}, {})
    report, ran = run_collectives(lambda hs, coll: proven(), runner=runner)
    assert ran == []  # no node left: the launcher is not started on nobody
    [row] = [r for r in report["rows"] if r["stage"] == 5]
    assert (row["status"], row["measurement"]) == ("skipped", "no node left")
    assert {v["reason"] for v in report["hosts"].values()} == {
        "gpu-count: 4 GPU(s), the instance type 8"
    }


def test_a_node_held_early_leaves_its_leaf_runs() -> None:
    hosts = ["n1", "n2", "n3", "n4", "n5"]
    reports: dict[str, Any] = {h: tuned("infiniband", gpus=8) for h in hosts}
    reports["n2"] = None
    report, ran = run_collectives(lambda hs, coll: proven(), runner=FakeRunner(reports, {}))
    assert [hs for hs, coll in ran if coll == "all_reduce"] == [
        ["n3", "n4"],
        ["n1", "n3", "n4", "n5"],
    ]
    assert report["hosts"]["n2"]["stage"] == "1 sanity"


def test_the_collector_is_asked_for_the_profiles_plugin_and_the_options_reach_the_stages() -> None:
    hosts = ["g1", "g2"]
    hv = {"gpufabric_fabric": "roce", "gpufabric_cloud": "gcp", "storage_bench_path": "/srv"}
    inv = Inventory(hosts, "g1", {h: dict(hv) for h in hosts}, {})
    runner = FakeRunner({h: tuned("gcp-gib", gpus=8) for h in hosts}, {})
    report = certify(
        inv,
        runner,
        Holder("none", runner, "g1"),
        lambda hs, _l: doctor_report(hs, {}),
        None,
        Options(dcgm=False, soak_repeats=0),
    )
    assert runner.script_args == [["/usr/local/gib/lib64", "--no-dcgm", "--storage=/srv"]]
    assert report["meta"]["cloud"] == "gcp"
    # the cloud's own profile judged the nodes' configuration, not the shared one
    assert {r["measurement"] for r in report["rows"] if r["stage"] == 2} == {
        "gcp-gib profile in place"
    }
    runner = FakeRunner({h: tuned("infiniband", gpus=8) for h in hosts}, {})
    inv = Inventory(hosts, "g1", {h: {"gpufabric_fabric": "infiniband"} for h in hosts}, {})
    report = certify(
        inv,
        runner,
        Holder("none", runner, "g1"),
        lambda hs, _l: doctor_report(hs, {}),
        None,
        Options(soak_repeats=0, fabric_tiers=2),
    )
    assert runner.script_args == [[]]
    [row] = [r for r in report["rows"] if r["stage"] == 2 and r["host"] == "g1"]
    assert (
        "warnings: nccl-ib-qps-entropy: NCCL_IB_QPS_PER_CONNECTION=1 on a multi-tier"
        in (row["measurement"])
    )


def test_the_lab_never_runs_collectives_even_with_a_launcher() -> None:
    """Not even where its inventory names an instance type and its nodes list that many GPUs."""
    ran: list[Any] = []
    runner = FakeRunner({h: node_report(gpus=8) for h in "ab"}, {})
    report = certify(
        lab(["a", "b"], gpufabric_instance_type="p4de.24xlarge"),
        runner,
        Holder("none", runner, "a"),
        lambda hs, _l: doctor_report(hs, {}),
        lambda hs, c: ran.append(hs) or proven(),
        Options(soak_repeats=0),
    )
    assert ran == []
    [row] = [r for r in report["rows"] if r["stage"] == 5]
    assert row["measurement"] == "collectives skipped: no GPU in the lab"
    assert report["verdict"] == "certified"


def test_soak_stops_once_a_repeat_leaves_fewer_than_two_nodes() -> None:
    """A repeat that holds all but one node (or every node) ends the soak: the fabric doctor is
    never started on one node or on nobody, and the stage says why in one skipped line."""
    runner = FakeRunner({h: node_report() for h in "abc"}, {})
    calls: list[tuple[list[str], str]] = []

    def fabric(hs: list[str], label: str) -> dict[str, Any]:
        calls.append((list(hs), label))
        return doctor_report(hs, {"b": ["mtu: x"], "c": ["mtu: x"]} if label == "soak1" else {})

    shown = Shown()
    holder = Holder("none", runner, "a")
    report = certify(
        lab(["a", "b", "c"]), runner, holder, fabric, None, Options(soak_repeats=3), shown
    )
    assert calls == [(["a", "b", "c"], "fabric"), (["a", "b", "c"], "soak1")]
    soak = [(r["host"], r["status"], r["measurement"]) for r in report["rows"] if r["stage"] == 7]
    assert soak == [
        ("a", "passed", "repeat 1"),
        ("b", "failed", "repeat 1"),
        ("c", "failed", "repeat 1"),
        ("", "skipped", "repeat 2: fewer than 2 hosts left"),
    ]
    assert shown.calls[-3:] == [("done", 7, 2), ("done", 7, 0), ("released", "a")]
    assert {h: v["status"] for h, v in report["hosts"].items()} == {
        "a": "certified",
        "b": "held",
        "c": "held",
    }
    # every node held by the first repeat: the second is not started on nobody either
    calls.clear()
    runner = FakeRunner({h: node_report() for h in "ab"}, {})
    report = certify(
        lab(["a", "b"]),
        runner,
        Holder("none", runner, "a"),
        lambda hs, label: (
            calls.append((list(hs), label))
            or doctor_report(hs, {h: ["x"] for h in hs} if label == "soak1" else {})
        ),
        None,
        Options(soak_repeats=2),
    )
    assert calls == [(["a", "b"], "fabric"), (["a", "b"], "soak1")]
    assert [r["measurement"] for r in report["rows"] if r["stage"] == 7][-1] == (
        "repeat 2: fewer than 2 hosts left"
    )


def test_an_inventory_without_a_fabric_or_with_an_unknown_instance_type_holds_nothing() -> None:
    """Both refused in one line naming the variable, before any node is held."""
    hosts = ["n1", "n2"]
    for hostvars, want in (
        ({}, "inventory: gpufabric_fabric must be set, one value for every host"),
        (
            {"gpufabric_fabric": "infiniband", "gpufabric_instance_type": "p4de.24xlarg"},
            "gpufabric_instance_type: 'p4de.24xlarg' is not valid; did you mean 'p4de.24xlarge'?",
        ),
    ):
        inv = Inventory(hosts, "n1", {h: dict(hostvars) for h in hosts}, {})
        runner = FakeRunner({h: node_report() for h in hosts}, {})
        holder = Holder("none", runner, "n1")
        with pytest.raises(UserError) as err:
            certify(inv, runner, holder, lambda hs, _l: {}, None, Options())
        assert str(err.value).startswith(want)
        assert holder.log == [] and runner.script_args == []


def test_each_stage_reports_its_own_number_when_done() -> None:
    """The progress display hears `done` with the stage's number on every path: run, skipped,
    nobody left."""
    _report, shown, _calls = run_lab({"a": node_report(), "b": node_report()})
    done = [c[1] for c in shown.calls if c[0] == "done"]
    assert done == [1, 2, 3, 4, 5, 6, 7]
    _report, shown, _calls = run_lab({"a": None, "b": None}, opts=Options(soak_repeats=2))
    assert [c[1:] for c in shown.calls if c[0] == "done"] == [
        (n, 2 if n == 1 else 0) for n in range(1, 8)
    ]
    _report, shown, _calls = run_lab({"a": node_report()})  # one node: no fabric, no soak
    assert [c[1] for c in shown.calls if c[0] == "done"] == [1, 2, 3, 4, 5, 6, 7]


class Failing(Holder):
    """A holder that keeps each failure's reason (what Slurm's drain shows)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.fails: list[tuple[str, str]] = []

    def fail(self, host: str, reason: str) -> None:
        self.fails.append((host, reason))
        super().fail(host, reason)


def test_a_node_failing_a_stage_is_held_with_the_stage_and_reason() -> None:
    """The hold's reason (what Slurm's drain shows) names the stage by number and name."""
    runner = FakeRunner(
        {h: tuned("infiniband", gpus=8) for h in ("n1", "n2", "n3", "n4", "n5")}, {}
    )
    holder, shown = Failing("none", runner, "n1"), Shown()
    report, _ran = run_collectives(
        lambda hs, coll: p4de() if hs == ["n3", "n4"] else proven(),
        runner=runner,
        holder=holder,
        shown=shown,
    )
    why = "transport not proven: the log names none (NCCL_DEBUG=INFO)"
    assert holder.fails == [
        ("n3", f"stage 5 collectives: collective: all_reduce leaf2: {why}"),
        ("n4", f"stage 5 collectives: collective: all_reduce leaf2: {why}"),
    ]
    assert ("done", 5, 2) in shown.calls and ("done", 6, 0) in shown.calls
    assert ("done", 7, 0) in shown.calls
    passed = [r for r in report["rows"] if r["stage"] == 4]
    assert {r["measurement"] for r in passed} == {"no-traffic checks + bisection"}
