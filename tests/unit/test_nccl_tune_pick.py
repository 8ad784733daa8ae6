"""`nccl tune pick` on a small hand-made sweep whose times say which choice wins each bucket by
how much: the gains, the regressions, the merged tuner lines, the global settings kept and the
files' text, figure for figure. The tables are CONSTRUCTED (times chosen by hand), not measured.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.nccl import model
from gpufabric.nccl.model import Capture, DebugInfo, Measurement, Row
from gpufabric.nccl.tune.run import (
    BucketPick,
    PlaybookRunner,
    RecordedRunner,
    TuneResult,
    check_sweep_dir,
    pick,
    speedup,
)
from gpufabric.nccl.tune.sweep import Bucket, Choice, Plan, Trial, sweep_space
from gpufabric.nccl.tune.tunerconf import SIZE_MAX

SMALL = Bucket("small", 0, 1023)
MID = Bucket("mid", 1024, (1 << 20) - 1)
LARGE = Bucket("large", 1 << 20, (2 << 20) - 1)
HUGE = Bucket("huge", 2 << 20, SIZE_MAX)
SIZES = (512, 4096, 1 << 20, 2 << 20)

TREE = Choice("tree", "ll", 8)
RING = Choice("ring", "simple", 16)
DEFAULT = Trial("all_reduce.default", "all_reduce", 8, 2 << 20)
TRIALS = (
    DEFAULT,
    Trial("all_reduce.tree", "all_reduce", 8, 2 << 20, (), "choice", TREE),
    Trial("all_reduce.ring", "all_reduce", 8, 2 << 20, (), "choice", RING),
    Trial("all_reduce.buff", "all_reduce", 8, 2 << 20, (("NCCL_BUFFSIZE", "8388608"),), "global"),
    Trial("all_reduce.small", "all_reduce", 8, 2 << 20, (("NCCL_X", "1"),), "global"),
    Trial(
        "all_reduce.uneven", "all_reduce", 8, 2 << 20, (("NCCL_Y", "1"), ("NCCL_Z", "2")), "global"
    ),
)
# microseconds per size (SIZES order): tree wins small by 2x and loses elsewhere; ring is 4.8%
# slower than the default in `mid` (a regression) and 2x faster in the large buckets; of the
# global settings NCCL_BUFFSIZE gains 11.1%, NCCL_X 2% (under min_gain 3%), NCCL_Y with NCCL_Z 20.6% on
# average but loses 3% in `huge` (over max_regression 2%)
TIMES = {
    "all_reduce.default": (10.0, 20.0, 100.0, 200.0),
    "all_reduce.tree": (5.0, 25.0, 400.0, 800.0),
    "all_reduce.ring": (8.0, 21.0, 50.0, 100.0),
    "all_reduce.buff": (10.0, 20.0, 90.0, 180.0),
    "all_reduce.small": (10.0, 20.0, 100 / 1.02, 200 / 1.02),
    "all_reduce.uneven": (10.0, 20.0, 100 / 1.5, 200 / 0.97),
}


def plan(trials: tuple[Trial, ...] = TRIALS, net_devices: int = 8) -> Plan:
    return Plan(
        "p5.48xlarge", 2, 8, net_devices, ("all_reduce",), (SMALL, MID, LARGE, HUGE), trials
    )


def table(times: tuple[float | None, ...], sizes: tuple[int, ...] = SIZES) -> model.TestsResult:
    """A complete all_reduce table (16 ranks: busbw = algbw * 2 * 15/16)."""
    rows = tuple(
        Row(size, size // 4, "float", "sum", -1, measured(size, t), measured(size, t))
        for size, t in zip(sizes, times, strict=True)
    )
    return model.TestsResult("all_reduce", rows, complete=True)


def measured(size: int, time_us: float | None) -> Measurement | None:
    if time_us is None:
        return None
    algbw = size / time_us / 1e3 if time_us else 0.0
    return Measurement(time_us, algbw, algbw * 1.875, 0)


def capture(trial_id: str, *results: model.TestsResult, channels: int | None = None) -> Capture:
    return Capture(f"{trial_id}.txt", results, DebugInfo(coll_channels=channels, n_nodes=2))


def captures(**changed: Capture) -> dict[str, Capture]:
    out = {tid: capture(tid, table(times)) for tid, times in TIMES.items()}
    out["all_reduce.default"] = capture(
        "all_reduce.default", table(TIMES["all_reduce.default"]), channels=24
    )
    return {**out, **changed}


def test_speedup_is_the_geometric_mean_over_sizes_both_measured_in_the_bucket() -> None:
    sizes = (0, 1, 8, 16, 32, 64, 128, 2048)
    base = table((1.0, 8.0, 10.0, 20.0, 30.0, 0.5, None, 5.0), sizes)
    cand = table((100.0, 2.0, 5.0, 5.0, 0.0, 0.5, 1.0, 1.0), sizes)
    # size 0, a time of 0, a missing measurement and sizes outside the bucket do not count
    assert speedup(base, cand, Bucket("b", 0, 1023)) == pytest.approx((4 * 2 * 4 * 1) ** (1 / 4))
    assert speedup(base, cand, Bucket("b", 8, 8)) == pytest.approx(2.0)
    assert speedup(cand, base, Bucket("b", 8, 16)) == pytest.approx(math.sqrt(1 / 8))
    assert speedup(base, cand, Bucket("b", 4096, SIZE_MAX)) is None
    assert speedup(base, table((1.0,), (4096,)), Bucket("b", 0, SIZE_MAX)) is None


def test_pick_per_bucket_with_gains_regressions_and_curves() -> None:
    result = pick(plan(), captures())
    assert result.picks == [
        BucketPick("all_reduce", "small", TREE, pytest.approx(1.0), 2),  # type: ignore[arg-type]
        BucketPick("all_reduce", "mid", RING, pytest.approx(20 / 21 - 1), 2),  # type: ignore[arg-type]
        BucketPick("all_reduce", "large", RING, pytest.approx(1.0), 2),  # type: ignore[arg-type]
        BucketPick("all_reduce", "huge", RING, pytest.approx(1.0), 2),  # type: ignore[arg-type]
    ]
    assert result.regressions == [
        "all_reduce mid: best explicit choice ring/simple/16ch is 4.8% slower than default"
    ]
    assert (result.instance_type, result.nodes, result.ranks) == ("p5.48xlarge", 2, 16)
    assert result.default_channels == 24  # the default run's 'coll channels'
    assert result.failed_trials == []
    busbw = {t: [s / x / 1e3 * 1.875 for s, x in zip(SIZES, TIMES[t], strict=True)] for t in TIMES}
    assert result.curves == {
        "all_reduce": {
            "default": list(zip(SIZES, busbw["all_reduce.default"], strict=True)),
            "tuned": [
                (512, busbw["all_reduce.tree"][0]),
                *zip(SIZES[1:], busbw["all_reduce.ring"][1:], strict=True),
            ],
        }
    }


def test_a_bucket_within_max_regression_is_no_regression() -> None:
    times = dict(TIMES)
    times["all_reduce.ring"] = (8.0, 20 / 0.985, 50.0, 100.0)  # 1.5% slower in `mid`
    found = captures(
        **{"all_reduce.ring": capture("all_reduce.ring", table(times["all_reduce.ring"]))}
    )
    assert pick(plan(), found).regressions == []


def test_global_settings_kept_only_above_min_gain_and_within_max_regression() -> None:
    result = pick(plan(), captures())
    assert result.global_gains == {
        "NCCL_BUFFSIZE=8388608": pytest.approx(1 / 0.9 - 1),
        "NCCL_X=1": pytest.approx(0.02),
        "NCCL_Y=1,NCCL_Z=2": pytest.approx(math.sqrt(1.5 * 0.97) - 1),
    }
    assert result.global_env == {"NCCL_BUFFSIZE": "8388608"}
    assert result.nccl_conf() == (
        "# /etc/nccl.conf: global NCCL settings chosen by `gpufabric nccl tune` for "
        "p5.48xlarge x 2 nodes (VAR=value; the environment wins).\n"
        "# NCCL_BUFFSIZE=8388608: +11.1% vs NCCL defaults\n"
        "# NCCL_X=1: +2.0% vs NCCL defaults\n"
        "# NCCL_Y=1,NCCL_Z=2: +20.6% vs NCCL defaults\n"
        "NCCL_BUFFSIZE=8388608\n"
    )


@pytest.mark.parametrize(("above", "kept"), [(0.001, True), (-0.001, False)])
def test_a_global_setting_is_kept_from_min_gain_on(above: float, kept: bool) -> None:
    gain = 1 + float(sweep_space()["min_gain"]) + above
    only = {
        "all_reduce.small": capture("all_reduce.small", table((10.0, 20.0, 100 / gain, 200 / gain)))
    }
    trials = tuple(t for t in TRIALS if t.id not in ("all_reduce.buff", "all_reduce.uneven"))
    assert pick(plan(trials), captures(**only)).global_env == ({"NCCL_X": "1"} if kept else {})


@pytest.mark.parametrize(
    ("broken", "small_only"),
    [("all_reduce.buff", "all_reduce.uneven"), ("all_reduce.uneven", "all_reduce.buff")],
)
def test_a_global_setting_that_breaks_a_run_or_measures_no_large_size_is_no_candidate(
    broken: str, small_only: str
) -> None:
    """Either one before NCCL_X: the settings after it are still weighed."""
    found = captures(
        **{
            broken: capture(broken, model.TestsResult("all_reduce", (), complete=False)),
            small_only: capture(small_only, table((5.0,), (512,))),
        }
    )
    result = pick(plan(), found)
    assert result.global_gains == {"NCCL_X=1": pytest.approx(0.02)}
    assert result.global_env == {}
    assert result.failed_trials == [broken]


def test_the_node_count_of_a_table_without_rank_lines_comes_from_its_figures() -> None:
    """busbw / algbw = 2 * 15/16: 16 ranks, 8 GPUs a node: 2 nodes, as `--nodes` says; the same
    table is refused for 4 nodes."""
    unnamed = {
        tid: Capture(f"{tid}.txt", (table(times),), DebugInfo(coll_channels=24))
        for tid, times in TIMES.items()
    }
    assert pick(plan(), unnamed).global_env == {"NCCL_BUFFSIZE": "8388608"}
    four = Plan("p5.48xlarge", 4, 8, 8, ("all_reduce",), (SMALL, MID, LARGE, HUGE), TRIALS)
    with pytest.raises(UserError) as err:
        pick(four, unnamed)
    assert str(err.value) == (
        "nodes: 4 is not valid for trial all_reduce.buff: its output was recorded on 2 nodes "
        "(all_reduce.buff.txt)"
    )


def test_tuner_lines_merge_adjacent_buckets_with_the_same_choice() -> None:
    result = pick(plan(), captures())
    lines = [line for line in result.tuner_conf().splitlines() if not line.startswith("#")]
    assert lines == [
        "allreduce,0,1023,tree,ll,8,2,16",
        f"allreduce,1024,{SIZE_MAX},ring,simple,16,2,16",
        "allreduce,0,1023,tree,ll,8,-1,-1",
        f"allreduce,1024,{SIZE_MAX},ring,simple,16,-1,-1",
        *(f"{c},0,{SIZE_MAX},ring,simple,0,-1,-1" for c in
          ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")),
    ]  # fmt: skip
    head = result.tuner_conf().splitlines()
    assert head[0] == (
        "# NCCL example tuner config written by `gpufabric nccl tune` for p5.48xlarge x 2 nodes "
        "(16 ranks)."
    )
    assert "# (NCCL used 24 channels in the default run)." in head


def test_buckets_with_the_same_choice_apart_are_not_merged() -> None:
    times = dict(TIMES)
    times["all_reduce.tree"] = (5.0, 25.0, 400.0, 10.0)  # tree now wins `huge` too
    found = captures(
        **{"all_reduce.tree": capture("all_reduce.tree", table(times["all_reduce.tree"]))}
    )
    lines = [
        line for line in pick(plan(), found).tuner_conf().splitlines() if not line.startswith("#")
    ]
    assert lines[:3] == [
        "allreduce,0,1023,tree,ll,8,2,16",
        f"allreduce,1024,{(2 << 20) - 1},ring,simple,16,2,16",
        f"allreduce,{2 << 20},{SIZE_MAX},tree,ll,8,2,16",
    ]


@pytest.mark.parametrize(("net_devices", "channels"), [(8, 8), (1, 2)])
def test_without_a_channel_count_in_the_default_run_one_per_nic_at_least_two(
    net_devices: int, channels: int
) -> None:
    default = capture("all_reduce.default", table(TIMES["all_reduce.default"]))
    tree = capture("all_reduce.tree", table(TIMES["all_reduce.tree"]), channels=32)  # not NCCL's
    found = captures(**{"all_reduce.default": default, "all_reduce.tree": tree})
    result = pick(plan(net_devices=net_devices), found)
    assert result.default_channels == channels


def test_the_default_run_without_a_complete_table_is_nothing_to_compare_against() -> None:
    cut = capture("all_reduce.default", model.TestsResult("all_reduce", table((1.0,), (8,)).rows))
    with pytest.raises(UserError) as err:
        pick(plan(), captures(**{"all_reduce.default": cut}))
    assert str(err.value) == (
        "trial all_reduce.default: the NCCL-default run has no complete table; "
        "nothing to compare against"
    )


def test_every_choice_failed_says_how_many_of_how_many() -> None:
    failed = {
        t.id: capture(t.id) for t in TRIALS if t.stage == "choice" or t.id == "all_reduce.buff"
    }
    with pytest.raises(UserError) as err:
        pick(plan(), captures(**failed))
    assert str(err.value) == "no trial measured a choice (3 of 5 failed): nothing to pick"


def test_playbook_runner_command_passes_the_trial_and_the_extra_variables() -> None:
    trial = TRIALS[1]
    runner = PlaybookRunner("inv.ini", Path("/out"), extra={"nccl_tests_gate": "x", "k": "v"})
    cmd = runner.command(trial)
    assert cmd[:5] == ["ansible-playbook", "-i", "inv.ini", "playbooks/benchmark.yml", "-e"]
    assert len(cmd) == 6
    assert json.loads(cmd[5]) == {
        "nccl_tests_collectives": ["all_reduce"],
        "nccl_tests_min_bytes": 8,
        "nccl_tests_max_bytes": 2 << 20,
        "nccl_tests_extra_env": {},
        "nccl_tests_results_dir": "/out/all_reduce.tree",
        "nccl_tests_gate": "x",  # the caller's extra variables win
        "k": "v",
    }
    assert cmd[5] == json.dumps(json.loads(cmd[5]), sort_keys=True)
    assert PlaybookRunner("i", Path("/o"), "other.yml").command(trial)[3] == "other.yml"
    assert json.loads(PlaybookRunner("i", Path("/o")).command(trial)[5])["nccl_tests_gate"] is False


class Failing(PlaybookRunner):
    def command(self, trial: Trial) -> list[str]:
        return [sys.executable, "-c", "raise SystemExit(3)"]


def test_a_failed_playbook_run_names_the_trial_and_its_exit_status(tmp_path: Path) -> None:
    with pytest.raises(UserError) as err:
        Failing("inv", tmp_path).run(TRIALS[1])
    assert str(err.value) == "benchmark playbook failed for trial all_reduce.tree (rc 3)"
    assert not (tmp_path / "all_reduce.tree.txt").exists()


def test_a_missing_recording_names_the_directory_the_trial_and_the_way_out(tmp_path: Path) -> None:
    with pytest.raises(UserError) as err:
        RecordedRunner(tmp_path).run(TRIALS[1])
    assert str(err.value) == (
        f"{tmp_path}: no recorded output for trial all_reduce.tree (all_reduce.tree.txt); "
        "run `gpufabric nccl tune plan` for the list"
    )


def test_the_sweep_stamp_is_written_once_and_an_unreadable_one_is_another_sweep(
    tmp_path: Path,
) -> None:
    sweep = {"nodes": 2, "instance_type": "p5.48xlarge"}
    check_sweep_dir(tmp_path, sweep)
    assert (tmp_path / "sweep.json").read_text() == '{"instance_type": "p5.48xlarge", "nodes": 2}'
    (tmp_path / "sweep.json").write_text("{not json")
    with pytest.raises(UserError) as err:
        check_sweep_dir(tmp_path, sweep)
    assert str(err.value) == (
        f"{tmp_path}: holds trials of another sweep (None); "
        "write to another directory or remove that one"
    )
    assert (tmp_path / "sweep.json").read_text() == "{not json"  # left for the user to look at


def test_tune_result_files_without_global_settings() -> None:
    result = TuneResult("p5.48xlarge", 4, 32, [], {}, {}, 16)
    assert result.nccl_conf() == (
        "# /etc/nccl.conf: global NCCL settings chosen by `gpufabric nccl tune` for "
        "p5.48xlarge x 4 nodes (VAR=value; the environment wins).\n"
    )
    # the header says how to load the file and why every line sets channels
    assert result.tuner_conf() == (
        "# NCCL example tuner config written by `gpufabric nccl tune` for p5.48xlarge x 4 nodes "
        "(32 ranks).\n"
        "# Load: NCCL_TUNER_PLUGIN=<path>/libnccl-tuner-example.so "
        "NCCL_TUNER_CONFIG_FILE=<this>.\n"
        "# Every line sets channels explicitly and every collective is covered over all sizes:\n"
        "# the example tuner caps unmatched collectives at 1 channel (NVIDIA/nccl@5067397c\n"
        "# plugins/tuner/example/plugin.c with src/enqueue.cc; gpufabric docs/sources.md F.3).\n"
        "# Tuned lines first (this scale), then the same choices for any scale, then a "
        "ring/simple\n"
        "# catch-all with channels 0: NCCL's own per-size channel count where nothing was tuned\n"
        "# (NCCL used 16 channels in the default run).\n"
        "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks\n"
    )


def test_a_recording_in_nccl_tests_json_is_read_as_the_trial_s_collective(tmp_path: Path) -> None:
    """`<trial>.json` (nccl-tests -J) when there is no `<trial>.txt`; the table is the trial's
    collective whatever binary its args name."""
    doc = {
        "args": ["/opt/nccl-tests/build/all_reduce_perf", "-b", "8"],
        "config": {"devices": [{"rank": 0, "group": 0, "pid": 1, "hostname": "h", "device": 0}]},
        "results": [
            {
                "size": 8,
                "count": 2,
                "type": "float",
                "redop": "sum",
                "root": "-1",
                "out_of_place": {"time": 9.5, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
                "in_place": {"time": 9.5, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
            }
        ],
        "average_bus_bandwidth": {"bandwidth": 0.0, "okay": "unchecked"},
    }
    (tmp_path / "all_gather.default.json").write_text(json.dumps(doc))
    trial = Trial("all_gather.default", "all_gather", 8, 8)
    (result,) = RecordedRunner(tmp_path).run(trial).results
    assert result.collective == "all_gather" and result.rows[0].out_of_place.time_us == 9.5  # type: ignore[union-attr]


def test_buckets_with_the_same_choice_around_an_unmeasured_one_are_not_merged() -> None:
    """No trial measured `mid`: its sizes are left to the catch-all line, not to tree."""
    sizes = (512, 1 << 20, 2 << 20)
    times = {
        "all_reduce.default": (10.0, 100.0, 200.0),
        "all_reduce.tree": (5.0, 50.0, 100.0),
        "all_reduce.ring": (8.0, 60.0, 120.0),
    }
    trials = tuple(t for t in TRIALS if t.id in times)
    found = {t: capture(t, table(x, sizes)) for t, x in times.items()}
    result = pick(plan(trials), found)
    assert [p.bucket for p in result.picks] == ["small", "large", "huge"]
    lines = [line for line in result.tuner_conf().splitlines() if not line.startswith("#")]
    assert lines[:2] == [
        "allreduce,0,1023,tree,ll,8,2,16",
        f"allreduce,{1 << 20},{SIZE_MAX},tree,ll,8,2,16",
    ]


def test_choices_are_weighed_per_collective() -> None:
    """all_reduce's tree trial is no candidate for all_gather, however fast it ran."""
    gather = (
        Trial("all_gather.default", "all_gather", 8, 2 << 20),
        Trial("all_gather.ring", "all_gather", 8, 2 << 20, (), "choice", RING),
    )
    trials = (*TRIALS[:3], *gather)
    found = {t.id: capture(t.id, table(TIMES[t.id])) for t in TRIALS[:3]}
    found["all_gather.default"] = capture("all_gather.default", table((10.0, 20.0, 100.0, 200.0)))
    found["all_gather.ring"] = capture("all_gather.ring", table((9.0, 19.0, 99.0, 199.0)))
    two = Plan(
        "p5.48xlarge", 2, 8, 8, ("all_reduce", "all_gather"), (SMALL, MID, LARGE, HUGE), trials
    )
    result = pick(two, found)
    assert [(p.collective, p.bucket, p.choice, p.candidates) for p in result.picks][4:] == [
        ("all_gather", b.name, RING, 1) for b in (SMALL, MID, LARGE, HUGE)
    ]


def test_the_curves_leave_out_the_zero_byte_row() -> None:
    sizes = (0, 1, 512, 4096, 1 << 20, 2 << 20)
    found = {
        tid: capture(tid, table((7.0, *times[:1], *times), sizes)) for tid, times in TIMES.items()
    }
    curves = pick(plan(), found).curves["all_reduce"]
    assert [size for size, _ in curves["default"]] == list(sizes[1:])
    assert [size for size, _ in curves["tuned"]] == list(sizes[1:])
