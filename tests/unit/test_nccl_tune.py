"""Sweep planner pruning, and picking from recorded results.

The recorded results are SYNTHETIC: nccl-tests text tables written by `write_table` from a
small latency/bandwidth model (`model_time`), so the test knows which choice must win in each
bucket. They exercise the planner, the runner interface, the picker and the writers; they say
nothing about real NCCL performance.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufabric.catalog import lookup
from gpufabric.errors import UserError
from gpufabric.nccl.parse.capture import parse_file
from gpufabric.nccl.tune.run import PlaybookRunner, RecordedRunner, pick, run_sweep
from gpufabric.nccl.tune.sweep import Trial, plan_sweep
from gpufabric.nccl.tune.tunerconf import errors, validate

FACTOR = {
    "all_reduce": 2 * 15 / 16,
    "all_gather": 15 / 16,
    "reduce_scatter": 15 / 16,
    "alltoall": 15 / 16,
    "sendrecv": 1.0,
}


def model_time(size: int, trial: Trial) -> float:
    """Microseconds. Default: 20 us + size / 300 GB/s. tree/LL wins small, ring/simple/16 large."""
    lat, bw = 20.0, 300e9
    c = trial.choice
    if c is not None:
        lat = {"ll": 12.0, "ll128": 16.0, "simple": 25.0}[c.protocol] + (
            2.0 if c.algorithm == "ring" else 0
        )
        bw = {"ll": 100e9, "ll128": 250e9, "simple": 320e9}[c.protocol]
        bw *= min(c.channels, 16) / 16
    env = trial.env_dict
    if env.get("NCCL_BUFFSIZE") == "8388608":
        bw *= 1.08  # a global setting that helps
    if "NCCL_NCHANNELS_PER_NET_PEER" in env:
        bw *= 0.9  # one that hurts
    return lat + size / bw * 1e6


def write_table(trial: Trial, nodes: int | None = 2) -> str:
    """The trial's table, after the rank lines nccl-tests prints for `nodes` nodes of 8 GPUs
    (None: no rank lines, an output that does not say its node count)."""
    lines = [
        f"# nThread 1 nGpus 1 minBytes {trial.min_bytes} maxBytes {trial.max_bytes} step: "
        "2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong",
    ]
    size = trial.min_bytes
    while size <= trial.max_bytes:
        t = model_time(size, trial)
        alg = size / t / 1e3
        bus = alg * FACTOR[trial.collective]
        lines.append(
            f"{size} {size // 4} float sum -1 {t:.2f} {alg:.2f} {bus:.2f} 0 "
            f"{t:.2f} {alg:.2f} {bus:.2f} 0"
        )
        size *= 2
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 1.0", "#"]
    if trial.stage == "default":
        lines.insert(
            0, "h:1:1 [0] NCCL INFO 16 coll channels, 16 p2p channels, 2 p2p channels per peer"
        )
    return (_ranks(nodes) if nodes is not None else "") + "\n".join(lines) + "\n"


@pytest.fixture()
def recorded(tmp_path: Path):
    plan = plan_sweep(lookup("p5.48xlarge"), 2)
    for trial in plan.trials:
        (tmp_path / f"{trial.id}.txt").write_text(write_table(trial))
    return plan, tmp_path


def test_plan_prunes_what_cannot_win() -> None:
    plan = plan_sweep(lookup("p4d.24xlarge"), 1)
    ids = [t.id for t in plan.trials]
    assert not any(".tree-" in i or ".nvls" in i or ".collnet" in i or ".pat-" in i for i in ids)
    assert "nvls needs NVLink SHARP (Hopper or later), not A100" in plan.pruned
    assert any("more than one node" in r for r in plan.pruned)
    for t in plan.trials:
        if t.choice and t.choice.protocol == "ll":
            assert t.max_bytes < 1 << 20  # LL never swept at >= 1 MiB
        if t.choice and t.choice.channels < plan.net_devices:
            assert t.max_bytes < 16 << 20  # too few channels for the NICs: no large sizes
    assert {t.collective for t in plan.trials} == {
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "alltoall",
        "sendrecv",
    }


def test_plan_on_hopper_two_nodes_keeps_tree_and_nvls() -> None:
    plan = plan_sweep(lookup("p5.48xlarge"), 2)
    ids = {t.id for t in plan.trials}
    assert "all_reduce.tree-simple-c16" in ids and "all_reduce.nvls_tree-simple-c16" in ids
    # NVLS across nodes needs CollNet (none on EFA); NVLS-tree runs Simple only (tuning.cc)
    assert not any(".nvls-" in i for i in ids) and "all_reduce.nvls_tree-ll-c4" not in ids
    assert "all_gather.tree-simple-c16" not in ids
    assert len(plan.trials) == 77  # 121 before: 44 trials NCCL could not run
    assert plan.net_devices == 8  # 32 EFA grouped per GPU by aws-ofi-nccl: min(32, 8)
    assert any("NCCL_TUNER_PLUGIN" in dict(t.env) for t in plan.trials)  # efa plugin setting
    assert plan.sizes_measured() > len(plan.trials)


def test_plan_bad_input() -> None:
    with pytest.raises(UserError, match="not tunable"):
        plan_sweep(lookup("p5.48xlarge"), 2, ["alltoall"])
    with pytest.raises(UserError, match=r"^nodes: 0 is not valid"):
        plan_sweep(lookup("p5.48xlarge"), 0)


def test_pick_from_recorded_results(recorded) -> None:
    plan, directory = recorded
    result = pick(plan, run_sweep(plan, RecordedRunner(directory)))
    picks = {(p.collective, p.bucket): p for p in result.picks}
    small, large = picks[("all_reduce", "<64K")], picks[("all_reduce", ">=256M")]
    assert small.choice.protocol == "ll" and small.choice.algorithm != "ring"
    assert small.gain > 0.3  # 20 us -> 12 us latency in the model
    assert large.choice.channels >= 16  # fewer channels cap bandwidth in the model
    assert large.choice.protocol == "simple" and 0.05 < large.gain < 0.08  # 320 vs 300 GB/s
    assert result.global_env == {"NCCL_BUFFSIZE": "8388608"}
    assert result.global_gains["NCCL_NCHANNELS_PER_NET_PEER=4"] < 0
    assert result.default_channels == 16  # from the default trial's '16 coll channels'
    assert "NCCL_BUFFSIZE=8388608" in result.nccl_conf().splitlines()
    assert result.regressions == []
    assert result.curves["all_reduce"]["tuned"] and result.curves["all_reduce"]["default"]


def test_tuner_file_passes_the_validator_at_the_tuned_and_any_scale(recorded) -> None:
    plan, directory = recorded
    result = pick(plan, run_sweep(plan, RecordedRunner(directory)))
    text = result.tuner_conf()
    assert errors(validate(text, nodes=2, ranks=16)) == []
    assert errors(validate(text)) == []  # catch-all lines cover other scales too
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    # tuned lines carry the measured channel count; the catch-all leaves NCCL's default (0)
    tuned, catch_all = lines[:-5], lines[-5:]
    assert all(int(line.split(",")[5]) > 0 for line in tuned)
    assert [line.split(",")[5] for line in catch_all] == ["0"] * 5
    assert lines[0].startswith("allreduce,0,") and lines[0].endswith(",2,16")


def test_missing_recording_is_a_user_error(tmp_path: Path) -> None:
    plan = plan_sweep(lookup("p5.48xlarge"), 2)
    with pytest.raises(UserError, match="no recorded output"):
        RecordedRunner(tmp_path).run(plan.trials[0])


def test_playbook_runner_command() -> None:
    trial = plan_sweep(lookup("p5.48xlarge"), 2).trials[1]
    cmd = PlaybookRunner("inv.ini", Path("/tmp/out")).command(trial)
    assert cmd[:4] == ["ansible-playbook", "-i", "inv.ini", "playbooks/benchmark.yml"]
    variables = json.loads(cmd[-1])
    assert variables["nccl_tests_collectives"] == [trial.collective]
    assert variables["nccl_tests_extra_env"]["NCCL_ALGO"] in ("Ring", "Tree", "NVLS", "NVLSTree")
    assert variables["nccl_tests_gate"] is False


def test_synthetic_table_round_trips_through_the_parser(tmp_path: Path) -> None:
    trial = plan_sweep(lookup("p5.48xlarge"), 2).trials[0]
    path = tmp_path / f"{trial.id}.txt"
    path.write_text(write_table(trial))
    (result,) = parse_file(path, trial.collective).results
    assert result.complete and result.rows[0].size == 8 and result.max_size == trial.max_bytes


def test_cli_tune_pick_writes_files_and_tuner_check_accepts_them(recorded, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from gpufabric.cli.main import app

    _plan, directory = recorded
    out = tmp_path / "out"
    runner = CliRunner()
    res = runner.invoke(
        app,
        ["nccl", "tune", "pick", str(directory), "-t", "p5.48xlarge", "-n", "2", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    assert "all_reduce      <64K" in res.output and "global NCCL_BUFFSIZE=8388608" in res.output
    assert (out / "nccl.conf").read_text().endswith("NCCL_BUFFSIZE=8388608\n")
    tuned = json.loads((out / "tune.json").read_text())
    assert tuned["nodes"] == 2 and tuned["picks"]
    check = runner.invoke(
        app, ["nccl", "tuner-check", str(out / "nccl_tuner.conf"), "--nodes", "2", "--ranks", "16"]
    )
    assert check.exit_code == 0 and "0 errors" in check.output
    bad = tmp_path / "bad.conf"
    bad.write_text("allreduce,0,65536,tree,simple,-1,1,-1\n")
    check = runner.invoke(app, ["nccl", "tuner-check", str(bad)])
    assert check.exit_code == 1 and "channel caveat" in check.output


def test_failed_trials_are_skipped_not_fatal(recorded) -> None:
    plan, directory = recorded
    broken = "h:1:1 [0] init.cc:1 NCCL WARN NVLS is not supported on this system\n"
    for trial in plan.trials:
        if ".nvls" in trial.id or trial.env_dict.get("NCCL_BUFFSIZE") == "8388608":
            (directory / f"{trial.id}.txt").write_text(broken)
    result = pick(plan, run_sweep(plan, RecordedRunner(directory)))
    assert "all_reduce.nvls_tree-simple-c16" in result.failed_trials
    assert all(p.choice.algorithm != "nvls_tree" for p in result.picks)
    assert result.global_env == {}  # the helpful setting now breaks runs: not a candidate
    assert errors(validate(result.tuner_conf(), nodes=2, ranks=16)) == []
    (directory / "all_reduce.default.txt").write_text(broken)
    with pytest.raises(UserError, match="NCCL-default run has no complete table"):
        pick(plan, run_sweep(plan, RecordedRunner(directory)))


def test_sweep_plans_for_every_catalog_type() -> None:
    from gpufabric.catalog import catalog

    for name, facts in catalog().items():
        for nodes in (1, 2):
            plan = plan_sweep(lookup(name), nodes)
            assert plan.trials and plan.net_devices >= 1, name
            defaults = [t for t in plan.trials if t.stage == "default"]
            assert {t.collective for t in defaults} >= set(plan.collectives), name
            if nodes == 1:
                assert not any(t.choice and t.choice.algorithm == "tree" for t in plan.trials)
            if facts.gpu.model.startswith("A100"):
                assert not any(
                    t.choice and t.choice.algorithm.startswith("nvls") for t in plan.trials
                )


def _ranks(hosts: int, gpus: int = 8) -> str:
    return "".join(
        f"#  Rank {r:2d} Group  0 Pid  1234 on node{r // gpus} device  {r % gpus} [0x53] NVIDIA H100\n"
        for r in range(hosts * gpus)
    )


def test_pick_refuses_trials_recorded_on_other_nodes(tmp_path: Path) -> None:
    """`tune pick -n 16` on trials whose rank lines name 4 hosts: the tables say nothing about
    16 nodes."""
    plan = plan_sweep(lookup("p5.48xlarge"), 16)
    for trial in plan.trials:
        (tmp_path / f"{trial.id}.txt").write_text(write_table(trial, nodes=4))
    with pytest.raises(UserError, match=r"^nodes: 16 is not valid for trial .*recorded on 4 nodes"):
        pick(plan, run_sweep(plan, RecordedRunner(tmp_path)))


def test_pick_refuses_a_trial_that_does_not_say_its_node_count(recorded) -> None:
    """A sendrecv table without rank lines or NCCL nNodes (busbw = algbw: its figures hold no
    rank count) shows nothing about the 2 nodes being tuned for: refused, not assumed."""
    plan, directory = recorded
    trial = next(t for t in plan.trials if t.collective == "sendrecv" and t.stage == "global")
    (directory / f"{trial.id}.txt").write_text(write_table(trial, nodes=None))
    with pytest.raises(UserError) as err:
        pick(plan, run_sweep(plan, RecordedRunner(directory)))
    assert str(err.value) == (
        f"trial {trial.id}: its output does not say how many nodes it ran on (no rank lines, "
        f"no NCCL nNodes), so it shows nothing about 2 nodes ({directory / trial.id}.txt)"
    )


def test_a_failed_trial_without_a_node_count_is_skipped_not_refused(recorded) -> None:
    """A table cut short before its footer is not read (a failed trial), so its missing node
    count judges nothing."""
    plan, directory = recorded
    trial = next(t for t in plan.trials if t.collective == "sendrecv" and t.stage == "global")
    cut = write_table(trial, nodes=None).split("# Out of bounds")[0]
    (directory / f"{trial.id}.txt").write_text(cut)
    result = pick(plan, run_sweep(plan, RecordedRunner(directory)))
    assert result.failed_trials == [trial.id]


def test_pick_with_every_choice_failed_measured_nothing(recorded) -> None:
    plan, directory = recorded
    broken = "h:1:1 [0] init.cc:1 NCCL WARN NCCL failure\n"
    for trial in plan.trials:
        if trial.stage != "default":
            (directory / f"{trial.id}.txt").write_text(broken)
    with pytest.raises(UserError, match=r"no trial measured a choice .*: nothing to pick"):
        pick(plan, run_sweep(plan, RecordedRunner(directory)))


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("gain", float("nan"), "NaN is not a number gpufabric accepts"),
        ("gain", float("inf"), "Infinity is not a number gpufabric accepts"),
        (
            "channels",
            -16,
            "picks[0].choice.channels: Input should be greater than or equal to 1 (got -16)",
        ),
        ("channels", 0, "picks[0].choice.channels"),
    ],
)
def test_tune_json_with_impossible_values_is_refused(
    tmp_path: Path, field: str, value: float, words: str
) -> None:
    from gpufabric.nccl.report.tunefile import read_tune

    pick_ = {
        "collective": "all_reduce",
        "bucket": "<64K",
        "gain": 0.25,
        "choice": {"algorithm": "tree", "protocol": "ll", "channels": 8},
    }
    if field == "gain":
        pick_["gain"] = value
    else:
        pick_["choice"]["channels"] = value  # type: ignore[index]
    path = tmp_path / "tune.json"
    path.write_text(json.dumps({"picks": [pick_]}))  # json writes NaN / Infinity as Python does
    with pytest.raises(UserError) as err:
        read_tune(path)
    assert str(err.value).startswith(str(path)) and words in str(err.value)
    pick_["gain"], pick_["choice"]["channels"] = 0.25, 8  # type: ignore[index]
    path.write_text(json.dumps({"picks": [pick_]}))
    assert read_tune(path)["picks"][0]["gain"] == 0.25


def test_a_tune_json_that_is_missing_or_not_json_is_named_as_one(tmp_path: Path) -> None:
    from gpufabric.nccl.report.tunefile import read_tune

    with pytest.raises(UserError) as err:
        read_tune(tmp_path / "none.json")
    assert (
        str(err.value)
        == f"{tmp_path / 'none.json'}: cannot read: no such file, expected a tune.json"
    )
