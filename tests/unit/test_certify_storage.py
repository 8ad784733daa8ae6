"""certify's stage 6 over stand-in nodes: the storage bench's real fio reports (two nodes `a` and
`b`, tests/unit/storage_data/fio-3.33: 0.298 GB/s of writes from both at once) judged against
the checkpoint goal by the storage gate; who is measured, who is held and why, and the one-line
skips that never claim a pass."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.unit.certify_fakes import FakeRunner, doctor_report, node_report

from gpufabric.certify.hosts import PREFIX, Holder, Inventory
from gpufabric.certify.run import Options, certify
from gpufabric.certify.scorecard import ctrf
from gpufabric.errors import UserError

DATA = Path(__file__).parent / "storage_data" / "fio-3.33"
HOSTS = ["a", "b"]
SHARED = "/srv/shared"
MOUNTED = {"path": SHARED, "dir": True, "mount": SHARED, "fstype": "lustre"}
MET = {"sizeGiB": 1, "writeSeconds": 60}  # 0.018 GB/s
IMPOSSIBLE = {"sizeGiB": 100000, "writeSeconds": 1}  # 107,374 GB/s


class Bench:
    """Stands in for the storage bench: copies the captured reports (less `drop`) and records
    which hosts and path it was asked to measure."""

    def __init__(self, tmp: Path, drop: tuple[str, ...] = ()) -> None:
        self.tmp, self.drop = tmp, drop
        self.calls: list[tuple[list[str], str]] = []

    def __call__(self, hosts: list[str], path: str) -> Path:
        self.calls.append((list(hosts), path))
        out = self.tmp / f"storage{len(self.calls)}"
        shutil.copytree(DATA, out)
        for h in self.drop:
            shutil.rmtree(out / h)
        return out


def run(
    tmp: Path,
    goal: Any = MET,
    storage: dict[str, Any] | None = None,
    path: str | None = SHARED,
    drop: tuple[str, ...] = (),
    opts: Options | None = None,
) -> tuple[dict[str, Any], Bench, FakeRunner]:
    mounts = storage or {}
    hv: dict[str, Any] = {"gpufabric_fabric": "lab"}
    if goal is not None:
        hv["gpufabric_storage_checkpoint"] = goal
    if path is not None:
        hv["storage_bench_path"] = path
    inv = Inventory(HOSTS, "a", {h: dict(hv) for h in HOSTS}, {"gpu_nodes": HOSTS})
    reports: dict[str, dict[str, Any] | None] = {
        h: node_report(storage=mounts.get(h, MOUNTED)) for h in HOSTS
    }
    runner = FakeRunner(reports, {h: {"state": "IDLE", "reason": ""} for h in HOSTS})
    bench = Bench(tmp, drop)

    def fabric(hosts: list[str], label: str) -> dict[str, Any]:
        return doctor_report(hosts, {})

    report = certify(
        inv,
        runner,
        Holder("slurm", runner, "a"),
        fabric,
        None,
        opts or Options(soak_repeats=0),
        storage_bench=bench,
    )
    return report, bench, runner


def stage6(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["rows"] if r["stage"] == 6]


def test_a_met_goal_passes_every_node_measured_at_once(tmp_path: Path) -> None:
    report, bench, runner = run(tmp_path)
    assert bench.calls == [(HOSTS, SHARED)]  # every node in one run
    rows = stage6(report)
    assert [(r["host"], r["status"]) for r in rows] == [("a", "passed"), ("b", "passed")]
    assert rows[0]["measurement"].startswith("write 0.298 GB/s, read 1.209 GB/s from 2 node(s)")
    assert "goal 0.018 GB/s (a 1 GiB checkpoint in 60 s)" in rows[0]["measurement"]
    assert rows[0]["extra"]["figures"]["write_gbps"] == pytest.approx(0.298, abs=5e-4)
    assert report["verdict"] == "certified"
    assert all(v == {"state": "IDLE", "reason": ""} for v in runner.slurm.values())
    assert runner.script_args == [["--storage=/srv/shared"]]  # each node reports its mount


def test_an_impossible_goal_holds_every_node_at_stage_6_with_measurement_and_todo(
    tmp_path: Path,
) -> None:
    report, _bench, runner = run(tmp_path, goal=IMPOSSIBLE)
    assert report["verdict"] == "not certified"
    for h in HOSTS:
        held = report["hosts"][h]
        assert held["status"] == "held" and held["stage"] == "6 storage"
        assert held["reason"].startswith("storage-goal: write 2 nodes: 0.298 GB/s aggregate")
        assert "< goal 107374.182 GB/s" in held["reason"]
        assert "tier" in held["todo"]  # what to do, from thresholds.yaml's advice
        assert runner.slurm[h]["reason"].startswith(f"{PREFIX} stage 6 storage: storage-goal: ")
    failed = [t for t in ctrf(report)["results"]["tests"] if t["status"] == "failed"]
    assert [t["name"] for t in failed] == ["6 storage: a", "6 storage: b"]
    assert failed[0]["extra"]["measurement"].startswith("write 0.298 GB/s")


@pytest.mark.parametrize(
    ("goal", "path", "storage", "says"),
    [
        (None, SHARED, None, "no checkpoint goal (gpufabric_storage_checkpoint)"),
        (MET, None, None, "no shared file system named"),
        (
            MET,
            SHARED,
            {h: {**MOUNTED, "mount": "/"} for h in HOSTS},
            "no shared file system mounted at /srv/shared on any node",
        ),
        (
            MET,
            SHARED,
            {h: {**MOUNTED, "dir": False, "mount": "/"} for h in HOSTS},
            "no shared file system mounted at /srv/shared on any node",
        ),
    ],
)
def test_no_goal_or_no_shared_file_system_is_one_skipped_line_never_a_pass(
    tmp_path: Path, goal: Any, path: str | None, storage: Any, says: str
) -> None:
    report, bench, _runner = run(tmp_path, goal=goal, path=path, storage=storage)
    (only,) = stage6(report)
    assert only["status"] == "skipped" and only["host"] == ""
    assert says in only["measurement"] and "not measured" in only["measurement"]
    assert "\n" not in only["measurement"]
    assert bench.calls == []


def test_a_node_without_the_mount_is_held_and_the_others_measured(tmp_path: Path) -> None:
    report, bench, _runner = run(tmp_path, storage={"b": {**MOUNTED, "mount": "/"}}, drop=("b",))
    assert bench.calls == [(["a"], SHARED)]
    assert report["hosts"]["b"]["stage"] == "6 storage"
    assert report["hosts"]["b"]["reason"] == (
        "storage-mount: /srv/shared lies on the root file system, not a shared mount"
    )
    assert "mount" in report["hosts"]["b"]["todo"]
    assert report["hosts"]["a"]["status"] == "certified"


def test_a_node_that_left_no_report_is_held_fail_closed(tmp_path: Path) -> None:
    report, _bench, _runner = run(tmp_path, drop=("b",))
    assert report["hosts"]["b"]["status"] == "held"
    assert report["hosts"]["b"]["reason"].startswith("storage-run: complete: no write report")
    assert report["hosts"]["a"]["status"] == "certified"  # its own figure meets the goal


def test_no_report_at_all_holds_every_node(tmp_path: Path) -> None:
    report, _bench, _runner = run(tmp_path, drop=("a", "b"))
    assert {h: v["stage"] for h, v in report["hosts"].items()} == dict.fromkeys(HOSTS, "6 storage")
    assert all(r["status"] == "failed" for r in stage6(report))
    assert all(r["reason"].startswith("storage-run: ") for r in stage6(report))


def test_the_stacks_goal_and_mount_count_where_the_inventory_sets_none(tmp_path: Path) -> None:
    opts = Options(soak_repeats=0, storage_goal=IMPOSSIBLE, storage_path="/fsx")
    report, bench, _runner = run(
        tmp_path,
        goal=None,
        path=None,
        opts=opts,
        storage={h: {**MOUNTED, "path": "/fsx"} for h in HOSTS},
    )
    assert bench.calls == [(HOSTS, "/fsx")]
    assert report["hosts"]["a"]["reason"].startswith("storage-goal: ")


@pytest.mark.parametrize(
    ("goal", "says"),
    [
        ({"sizeGiB": 0, "writeSeconds": 60}, "gpufabric_storage_checkpoint: sizeGiB: "),
        ({"sizeGiB": 1}, "gpufabric_storage_checkpoint: writeSeconds: "),
        ("fast", "gpufabric_storage_checkpoint: "),
    ],
)
def test_a_bad_goal_is_refused_in_one_line(tmp_path: Path, goal: Any, says: str) -> None:
    with pytest.raises(UserError, match=says) as err:
        run(tmp_path, goal=goal)
    assert "\n" not in str(err.value)


def test_with_a_stack_the_stack_files_goal_and_mount_point_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufabric.cli.certify import stack_storage

    repo = Path(__file__).resolve().parents[2]
    (tmp_path / "stacks").mkdir()
    shutil.copy(repo / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    text = (repo / "stacks" / "Pulumi.aws-h100.yaml").read_text()
    text = text.replace(
        "    capacityGib: 9600", "    checkpoint: {sizeGiB: 2048, writeSeconds: 60}"
    )
    text = text.replace("    throughputPerTib: 1000", "")
    (tmp_path / "stacks" / "Pulumi.goal.yaml").write_text(text)
    monkeypatch.setenv("GPUFABRIC_PROJECT", str(tmp_path))
    assert stack_storage("goal") == ({"sizeGiB": 2048, "writeSeconds": 60.0}, "/fsx")
    assert stack_storage("absent") == (None, "")  # a stack only in the Pulumi backend
    assert stack_storage("org/proj/goal") == (None, "")
