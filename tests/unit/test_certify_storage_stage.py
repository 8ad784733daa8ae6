"""certify's stage 6 decisions, in-process and word for word: the goal, mount point and rated
share read from the inventory (refused in one line when wrong), who is measured, the skips that
never pass, and the storage gate's verdicts turned into rows (a node's own failure, the shared
file system's failure on every measured node, warnings kept on the passing rows)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.unit.certify_fakes import node_report

from gpufabric.certify import storage as stage6
from gpufabric.certify.hosts import Inventory
from gpufabric.errors import UserError
from gpufabric.storage.sizing import Goal

DATA = Path(__file__).parent / "storage_data" / "fio-3.33"  # nodes a and b, 0.298 GB/s write
MOUNTED = {"path": "/srv", "dir": True, "mount": "/srv", "fstype": "lustre"}


def inv(**hostvars: Any) -> Inventory:
    return Inventory(["a", "b"], "a", {h: dict(hostvars) for h in "ab"})


def test_no_goal_is_none_and_a_goal_reads_the_stack_files_words() -> None:
    for unset in (None, "", {}):
        assert stage6.goal_of(unset) is None
    goal = stage6.goal_of({"sizeGiB": 1, "writeSeconds": 60, "readGBps": 2})
    assert isinstance(goal, Goal)
    assert goal.write_gbps == pytest.approx(2**30 / 60 / 1e9) and goal.read_gbps == 2


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"sizeGiB": -1, "writeSeconds": 60}, "inventory: gpufabric_storage_checkpoint: sizeGiB: "),
        ([1, 2], "inventory: gpufabric_storage_checkpoint: (top): "),
    ],
)
def test_a_bad_goal_names_the_variable_and_the_field(value: Any, says: str) -> None:
    with pytest.raises(UserError) as err:
        stage6.goal_of(value)
    assert str(err.value).startswith(says) and "\n" not in str(err.value)


def test_the_mount_point_from_the_bench_variable_else_the_labs_shared_directory() -> None:
    assert stage6.path_of(inv(storage_bench_path="/fsx", gpufabric_lab_shared_dir="/lab")) == "/fsx"
    assert stage6.path_of(inv(gpufabric_lab_shared_dir="/lab")) == "/lab"
    assert stage6.path_of(inv(storage_bench_path="", gpufabric_lab_shared_dir="/lab")) == "/lab"
    assert stage6.path_of(inv(storage_bench_path=7)) == ""  # not a path: not named
    assert stage6.path_of(inv()) == ""
    split = Inventory(["a", "b"], "a", {"a": {"storage_bench_path": "/x"}, "b": {}})
    assert stage6.path_of(split) == ""  # not every node's
    with pytest.raises(UserError) as err:
        stage6.path_of(inv(storage_bench_path="fsx"))
    assert str(err.value) == "inventory: storage_bench_path: 'fsx' is not an absolute path"
    with pytest.raises(UserError, match=r"^inventory: gpufabric_lab_shared_dir: 'lab' is not"):
        stage6.path_of(inv(gpufabric_lab_shared_dir="lab"))


def test_the_rated_share_is_a_positive_number_or_unset() -> None:
    for unset in (None, "", 0):
        assert stage6.rated_of(inv(storage_bench_rated_gbps=unset)) is None
    assert stage6.rated_of(inv()) is None
    assert stage6.rated_of(inv(storage_bench_rated_gbps=12)) == 12.0
    assert stage6.rated_of(inv(storage_bench_rated_gbps=0.5)) == 0.5
    for bad in (True, -1, "fast", [1]):
        with pytest.raises(UserError) as err:
            stage6.rated_of(inv(storage_bench_rated_gbps=bad))
        assert (
            str(err.value)
            == f"inventory: storage_bench_rated_gbps: {bad!r} is not a positive number"
        )


def goal(write_seconds: float = 60, read: float | None = None) -> Goal:
    g = stage6.goal_of(
        {"sizeGiB": 1, "writeSeconds": write_seconds, **({"readGBps": read} if read else {})}
    )
    assert g is not None
    return g


def data(**mounts: dict[str, Any] | None) -> dict[str, Any]:
    return {h: node_report(storage=mounts.get(h, MOUNTED)) for h in "ab"}


def test_a_node_without_the_directory_is_held_and_no_bench_is_one_skipped_line() -> None:
    rows = stage6.storage_stage(["a", "b"], data(b={**MOUNTED, "dir": False}), goal(), "/srv", None)
    assert [(r["host"], r["status"], r["measurement"], r["reason"]) for r in rows] == [
        (
            "b",
            "failed",
            "not measured",
            "storage-mount: /srv is not a directory on this node (not mounted)",
        ),
        ("", "skipped", "no storage bench to run: storage not measured", ""),
    ]
    assert rows[1]["name"] == "6 storage: 1 host(s)"  # the one node that would be measured
    rows = stage6.storage_stage(["a", "b"], data(a=None, b=None), goal(), "/srv", None)
    assert (
        rows[0]["measurement"]
        == "no shared file system mounted at /srv on any node: storage not measured"
    )
    rows = stage6.storage_stage(["a"], {}, goal(), "/srv", None)
    assert rows[0]["status"] == "skipped"  # a node with no report at all is not measured


def bench_dir(tmp: Path, edit: Any = None) -> Path:
    out = tmp / "storage"
    shutil.copytree(DATA, out)
    if edit:
        edit(out)
    return out


def judged(
    tmp: Path, g: Goal, edit: Any = None, rated: float | None = None
) -> list[dict[str, Any]]:
    calls: list[tuple[list[str], str]] = []

    def bench(hosts: list[str], path: str) -> Path:
        calls.append((hosts, path))
        return bench_dir(tmp, edit)

    rows = stage6.storage_stage(["a", "b"], data(), g, "/srv", bench, rated)
    assert calls == [(["a", "b"], "/srv")]
    return rows


def test_passing_rows_carry_the_figures_and_the_goal(tmp_path: Path) -> None:
    rows = judged(tmp_path, goal(read=0.5))
    assert [(r["host"], r["status"], r["reason"]) for r in rows] == [
        ("a", "passed", ""),
        ("b", "passed", ""),
    ]
    assert rows[0]["measurement"] == (
        "write 0.298 GB/s, read 1.209 GB/s from 2 node(s) at once; "
        "goal 0.018 GB/s (a 1 GiB checkpoint in 60 s and 0.5 GB/s of reads)"
    )
    figures = rows[0]["extra"]["figures"]
    assert figures["write_gbps"] == pytest.approx(0.298, abs=5e-4)
    assert figures["read_gbps"] == pytest.approx(1.209, abs=5e-4)


def test_a_read_under_its_goal_holds_every_measured_node(tmp_path: Path) -> None:
    rows = judged(tmp_path, goal(read=50))
    assert {r["status"] for r in rows} == {"failed"}
    assert rows[0]["reason"].startswith("storage-goal: read 2 nodes: 1.209 GB/s aggregate")
    assert rows[0]["reason"] == rows[1]["reason"]


def test_a_node_whose_report_is_missing_is_held_alone(tmp_path: Path) -> None:
    rows = judged(tmp_path, goal(), edit=lambda out: (out / "b" / "read.json").unlink())
    got = {r["host"]: (r["status"], r["reason"]) for r in rows}
    assert got["b"] == (
        "failed",
        "storage-run: complete: no read report (run cut short or fio failed to start)",
    )
    assert got["a"][0] == "passed"


def test_unreadable_reports_hold_every_node_fail_closed(tmp_path: Path) -> None:
    rows = judged(tmp_path, goal(), edit=lambda out: (out / "a" / "write.json").write_text("{"))
    assert {r["status"] for r in rows} == {"failed"}
    assert {r["measurement"] for r in rows} == {"no figure"}
    assert all(r["reason"].startswith("storage-run: ") for r in rows)
    assert "write.json" in rows[0]["reason"]


def test_no_write_figure_holds_every_node(tmp_path: Path) -> None:
    def no_writes(out: Path) -> None:
        for h in "ab":
            (out / h / "write.json").unlink()

    rows = judged(tmp_path, goal(), edit=no_writes)
    why = f"storage-run: no write figure from the 2 node(s) (see {tmp_path / 'storage'})"
    assert [(r["host"], r["status"], r["measurement"], r["reason"]) for r in rows] == [
        ("a", "failed", "no figure", why),
        ("b", "failed", "no figure", why),
    ]


def test_under_the_rated_share_warns_on_every_passing_row_or_holds_all(tmp_path: Path) -> None:
    rows = judged(tmp_path / "warn", goal(), rated=0.45)  # 0.298 of 0.45: 66%, under 80%
    warned = "; warnings: rated: write 0.298 GB/s = 66% of the rated 0.450 GB/s (below 80%)"
    assert [(r["host"], r["status"]) for r in rows] == [("a", "passed"), ("b", "passed")]
    assert all(r["measurement"].endswith(warned) for r in rows)
    rows = judged(tmp_path / "fail", goal(), rated=1000)
    assert {r["status"] for r in rows} == {"failed"}
    assert rows[0]["reason"] == (
        "storage-goal: rated 2 nodes: write 0.298 GB/s = 0% of the rated 1000.000 GB/s (below 50%)"
    )
    assert rows[0]["measurement"].startswith("write 0.298 GB/s, read 1.209 GB/s from 2 node(s)")


def test_certify_judges_the_inventorys_rated_share(tmp_path: Path) -> None:
    from tests.unit.certify_fakes import FakeRunner, doctor_report

    from gpufabric.certify.hosts import Holder
    from gpufabric.certify.run import Options, certify

    hv = {
        "gpufabric_fabric": "lab",
        "gpufabric_storage_checkpoint": {"sizeGiB": 1, "writeSeconds": 60},
        "storage_bench_path": "/srv",
        "storage_bench_rated_gbps": 1000,
    }
    inventory = Inventory(["a", "b"], "a", {h: dict(hv) for h in "ab"})
    runner = FakeRunner({h: node_report(storage=MOUNTED) for h in "ab"}, {})
    report = certify(
        inventory,
        runner,
        Holder("none", runner, "a"),
        lambda hs, _l: doctor_report(hs, {}),
        None,
        Options(soak_repeats=0),
        storage_bench=lambda hosts, path: bench_dir(tmp_path),
    )
    assert report["hosts"]["a"]["reason"].startswith("storage-goal: rated 2 nodes: write 0.298")


def test_a_node_whose_path_lies_on_no_mount_is_held_as_on_the_root_file_system() -> None:
    """The collector names no mount ("") when none holds the path, "/" for the root's own."""
    for mount in ("", "/"):
        rows = stage6.storage_stage(
            ["a", "b"], data(b={**MOUNTED, "mount": mount}), goal(), "/srv", None
        )
        assert (rows[0]["host"], rows[0]["status"], rows[0]["reason"]) == (
            "b",
            "failed",
            "storage-mount: /srv lies on the root file system, not a shared mount",
        )


def edit_phase(host: str, phase: str, **change: int) -> Any:
    """A bench-directory edit: the fio report of HOST's PHASE with its timestamp_ms moved or
    its runtime (ms) set."""

    def edit(out: Path) -> None:
        path = out / host / f"{phase}.json"
        doc = json.loads(path.read_text())
        doc["timestamp_ms"] += change.get("later_ms", 0)
        if "runtime" in change:
            doc["jobs"][0][phase]["runtime"] = change["runtime"]
        path.write_text(json.dumps(doc))

    return edit


def test_every_row_of_an_unreadable_run_is_its_nodes_stage_6_row(tmp_path: Path) -> None:
    rows = judged(tmp_path, goal(), edit=lambda out: (out / "a" / "write.json").write_text("{"))
    assert [(r["stage"], r["host"], r["name"]) for r in rows] == [
        (6, "a", "6 storage: a"),
        (6, "b", "6 storage: b"),
    ]


def test_a_node_held_alone_keeps_the_measurement_of_the_run(tmp_path: Path) -> None:
    """The write figure came from one node of the two: every row says so."""
    rows = judged(tmp_path, goal(), edit=lambda out: (out / "b" / "write.json").unlink())
    b = next(r for r in rows if r["host"] == "b")
    assert (b["stage"], b["status"]) == (6, "failed")
    assert {r["measurement"] for r in rows} == {
        "write 0.150 GB/s (1 of 2), read 1.209 GB/s from 2 node(s) at once; "
        "goal 0.018 GB/s (a 1 GiB checkpoint in 60 s)"
    }
    rows = judged(tmp_path / "r", goal(), edit=lambda out: (out / "a" / "read.json").unlink())
    assert rows[0]["measurement"].startswith("write 0.298 GB/s, read 0.652 GB/s (1 of 2) from")


def test_without_read_reports_the_measurement_names_no_read(tmp_path: Path) -> None:
    def no_reads(out: Path) -> None:
        for h in "ab":
            (out / h / "read.json").unlink()

    rows = judged(tmp_path, goal(), edit=no_reads)
    assert {r["measurement"] for r in rows} == {
        "write 0.298 GB/s from 2 node(s) at once; goal 0.018 GB/s (a 1 GiB checkpoint in 60 s)"
    }
    assert {r["status"] for r in rows} == {"failed"}  # each node's missing read report


def test_a_phase_not_run_together_holds_every_node_as_a_failed_run(tmp_path: Path) -> None:
    rows = judged(tmp_path, goal(), edit=edit_phase("b", "write", later_ms=120_000))
    assert {r["status"] for r in rows} == {"failed"}
    assert rows[0]["reason"] == rows[1]["reason"]
    assert rows[0]["reason"].startswith("storage-run: complete 2 nodes: write started 120 s apart")


def test_a_slow_node_warns_on_its_own_row_only(tmp_path: Path) -> None:
    def slow_b(out: Path) -> None:
        edit_phase("b", "write", runtime=4480)(out)
        edit_phase("b", "read", runtime=1030)(out)

    rows = judged(tmp_path, goal(), edit=slow_b)
    assert [(r["host"], r["status"]) for r in rows] == [("a", "passed"), ("b", "passed")]
    assert "warnings" not in rows[0]["measurement"]
    assert rows[1]["measurement"] == rows[0]["measurement"] + (
        "; warnings: balance: write 0.015 GB/s is under 50% of the median node's 0.083 GB/s"
        "; balance: read 0.065 GB/s is under 50% of the median node's 0.432 GB/s"
    )


def test_no_goal_or_no_path_is_one_skipped_line_word_for_word() -> None:
    rows = stage6.storage_stage(["a", "b"], data(), None, "/srv", None)
    assert [(r["host"], r["status"], r["measurement"]) for r in rows] == [
        (
            "",
            "skipped",
            "no checkpoint goal (gpufabric_storage_checkpoint): storage not measured, not passed",
        ),
    ]
    rows = stage6.storage_stage(["a", "b"], data(), goal(), "", None)
    assert [(r["host"], r["status"], r["measurement"]) for r in rows] == [
        ("", "skipped", "no shared file system named (storage_bench_path): storage not measured"),
    ]
