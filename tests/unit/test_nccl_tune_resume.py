"""`gpufabric nccl tune run`: progress (trial i of N) and resuming after an interruption without
running a finished trial again. The benchmark playbook is stood in for by a script that writes a
constructed nccl-tests table where the playbook would, and logs each run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpufabric.catalog import lookup
from gpufabric.cli.main import app
from gpufabric.errors import UserError
from gpufabric.nccl.tune import run as tune_run
from gpufabric.nccl.tune.run import PlaybookRunner, check_sweep_dir, run_sweep
from gpufabric.nccl.tune.sweep import Trial, plan_sweep

HEADER = (
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
    "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
    "     (us)  (GB/s)  (GB/s)\n"
)
ROWS = "".join(
    f"{8 << k:>12} {(8 << k) // 4:>12}     float     sum      -1 {20.0 + k:8.1f}  100.00  300.00"
    f"      0 {20.0 + k:8.1f}  100.00  300.00      0\n"
    for k in range(31)
)
RANKS = "".join(  # 2 nodes of 8 GPUs: the node count pick checks against --nodes
    f"#  Rank {r:2d} Group  0 Pid  1234 on node{r // 8} device  {r % 8} [0x53] NVIDIA H100\n"
    for r in range(16)
)
TABLE = RANKS + HEADER + ROWS + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.5 \n"
FAKE = """
import sys, pathlib
out, collective, log = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
out.mkdir(parents=True, exist_ok=True)
(out / f"{collective}.txt").write_text(sys.argv[4])
with open(log, "a") as fh:
    fh.write(out.name + "\\n")
"""


class FakePlaybook(PlaybookRunner):
    """The playbook's effect without Ansible; stops the run at trial `stop_at` like Ctrl-C."""

    def __init__(self, out_dir: Path, log: Path, stop_at: int | None = None) -> None:
        super().__init__("unused-inventory", out_dir)
        self.log, self.stop_at, self.calls = log, stop_at, 0

    def command(self, trial: Trial) -> list[str]:
        self.calls += 1
        if self.stop_at is not None and self.calls == self.stop_at:
            raise KeyboardInterrupt
        return [
            sys.executable,
            "-c",
            FAKE,
            str(self.out_dir / trial.id),
            trial.collective,
            str(self.log),
            TABLE,
        ]


def ran(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def test_an_interrupted_sweep_resumes_without_redoing_finished_trials(tmp_path: Path) -> None:
    plan = plan_sweep(lookup("p5.48xlarge"), 2, ["all_reduce"])
    ids = [t.id for t in plan.trials][:5]
    plan = type(plan)(**{**plan.__dict__, "trials": plan.trials[:5]})
    log = tmp_path / "ran.log"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(plan, FakePlaybook(tmp_path, log, stop_at=4))
    assert ran(log) == ids[:3]
    seen: list[tuple[int, int, str]] = []
    results = run_sweep(
        plan, FakePlaybook(tmp_path, log), lambda i, n, trial: seen.append((i, n, trial.id))
    )
    assert ran(log) == ids  # trials 1-3 were not run again, 4 and 5 ran once
    assert list(results) == ids and all(c.results for c in results.values())
    assert seen == [(i, 5, ids[i - 1]) for i in range(1, 6)]


def test_an_unreadable_record_is_run_again(tmp_path: Path) -> None:
    trial = plan_sweep(lookup("p5.48xlarge"), 2, ["all_reduce"]).trials[0]
    (tmp_path / f"{trial.id}.txt").write_bytes(b"\0\0binary")
    log = tmp_path / "ran.log"
    runner = FakePlaybook(tmp_path, log)
    assert runner.finished(trial) is None
    runner.run(trial)
    assert ran(log) == [trial.id] and runner.finished(trial) is not None
    assert not list(tmp_path.glob("*.partial"))  # the record was written whole


def test_another_sweep_s_trials_are_not_reused(tmp_path: Path) -> None:
    check_sweep_dir(tmp_path, {"instance_type": "p5.48xlarge", "nodes": 2})
    check_sweep_dir(tmp_path, {"instance_type": "p5.48xlarge", "nodes": 2})  # same: resume
    with pytest.raises(UserError, match="holds trials of another sweep"):
        check_sweep_dir(tmp_path, {"instance_type": "p5.48xlarge", "nodes": 4})


def test_cli_shows_trial_i_of_n_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "ran.log"
    stop = {"at": 3}

    def command(self: PlaybookRunner, trial: Trial) -> list[str]:
        stop["at"] -= 1
        if stop["at"] == 0:
            raise KeyboardInterrupt
        return [
            sys.executable,
            "-c",
            FAKE,
            str(self.out_dir / trial.id),
            trial.collective,
            str(log),
            TABLE,
        ]

    monkeypatch.setattr(tune_run.PlaybookRunner, "command", command)
    args = [
        "nccl",
        "tune",
        "run",
        "-i",
        "inv",
        "-t",
        "p5.48xlarge",
        "-n",
        "2",
        "-c",
        "all_reduce",
        "--out",
        str(tmp_path / "out"),
    ]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 130, first.output
    total = len(plan_sweep(lookup("p5.48xlarge"), 2, ["all_reduce"]).trials)
    assert f"trial 1 of {total}: all_reduce.default" in first.output
    assert f"interrupted with 2 of {total} trials finished" in first.output
    stop["at"] = 0  # no more interruptions
    second = CliRunner().invoke(app, args)
    assert second.exit_code in (0, 1), second.output
    assert f"trial 1 of {total}: all_reduce.default (finished before, reused)" in second.output
    assert f"trial {total} of {total}:" in second.output
    assert len(ran(log)) == total  # every trial ran exactly once over the two runs
    assert json.loads((tmp_path / "out" / "tune.json").read_text())["picks"]
