"""Run a sweep (through a Runner), pick per message-size bucket, write the settings.

- per-size choices (algorithm, protocol, channels) -> the example tuner plugin's CSV
- global settings (NCCL_BUFFSIZE, plugin settings) -> /etc/nccl.conf lines
- gains are measured against the NCCL-default trial of the same run, per bucket, as the
  geometric mean of time(default) / time(choice) over the sizes both measured (times are
  printed with more digits than busbw at small sizes).
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from gpufabric.errors import ArgumentError, UserError
from gpufabric.inputs.errors import InputError
from gpufabric.inputs.files import read_text
from gpufabric.inputs.formats import load_json
from gpufabric.nccl.gate.verdict import resolve_nodes
from gpufabric.nccl.model import Capture, TestsResult
from gpufabric.nccl.parse.capture import parse_file
from gpufabric.nccl.tune.sweep import Bucket, Choice, Plan, Trial, sweep_space
from gpufabric.nccl.tune.tunerconf import COLLECTIVES, FROM_TESTS, SIZE_MAX, TunerRule, render


class Runner(Protocol):
    """Runs one trial and returns what nccl-tests printed, parsed."""

    def run(self, trial: Trial) -> Capture: ...


class RecordedRunner:
    """Replays recorded outputs: <dir>/<trial.id>.txt (or .json). For tests and re-picks."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def run(self, trial: Trial) -> Capture:
        for suffix in (".txt", ".json"):
            path = self.directory / f"{trial.id}{suffix}"
            if path.exists():
                return parse_file(path, trial.collective)
        raise UserError(
            f"{self.directory}: no recorded output for trial {trial.id} "
            f"({trial.id}.txt); run `gpufabric nccl tune plan` for the list"
        )


class PlaybookRunner:
    """Runs a trial with playbooks/benchmark.yml and reads the output it fetched back."""

    def __init__(
        self,
        inventory: str,
        out_dir: Path,
        playbook: str = "playbooks/benchmark.yml",
        extra: dict[str, str] | None = None,
    ) -> None:
        self.inventory = inventory
        self.out_dir = out_dir
        self.playbook = playbook
        self.extra = extra or {}

    def command(self, trial: Trial) -> list[str]:
        variables: dict[str, Any] = {
            "nccl_tests_collectives": [trial.collective],
            "nccl_tests_min_bytes": trial.min_bytes,
            "nccl_tests_max_bytes": trial.max_bytes,
            "nccl_tests_extra_env": trial.env_dict,
            "nccl_tests_results_dir": str(self.out_dir / trial.id),
            "nccl_tests_gate": False,
            **self.extra,
        }
        return [
            "ansible-playbook",
            "-i",
            self.inventory,
            self.playbook,
            "-e",
            json.dumps(variables, sort_keys=True),
        ]

    def record(self, trial: Trial) -> Path:
        """The replayable record a finished trial leaves (written whole, or not at all)."""
        return self.out_dir / f"{trial.id}.txt"

    def finished(self, trial: Trial) -> Capture | None:
        """The trial's result from an earlier, interrupted run of the same sweep, if it finished
        and its record still parses."""
        record = self.record(trial)
        if not record.is_file():
            return None
        try:
            return parse_file(record, trial.collective)
        except UserError:
            return None  # unreadable: run the trial again

    def run(self, trial: Trial) -> Capture:
        done = self.finished(trial)
        if done is not None:
            return done
        proc = subprocess.run(self.command(trial), check=False)
        if proc.returncode != 0:
            raise UserError(
                f"benchmark playbook failed for trial {trial.id} (rc {proc.returncode})"
            )
        out = self.out_dir / trial.id / f"{trial.collective}.txt"
        capture = parse_file(out, trial.collective)
        partial = self.record(trial).with_suffix(".partial")
        partial.write_text(read_text(out, what="nccl-tests output"))
        partial.replace(self.record(trial))  # atomic: an interruption leaves no half record
        return capture


def check_sweep_dir(directory: Path, sweep: dict[str, Any]) -> None:
    """Resume only the same sweep: `directory` keeps what it was made for (sweep.json)."""
    stamp = directory / "sweep.json"
    if stamp.is_file():
        try:
            before = load_json(stamp, what="a sweep stamp (sweep.json)")
        except InputError:
            before = None
        if before != sweep:
            raise UserError(
                f"{directory}: holds trials of another sweep ({before}); "
                "write to another directory or remove that one"
            )
    else:
        stamp.write_text(json.dumps(sweep, sort_keys=True))


def run_sweep(
    plan: Plan, runner: Runner, progress: Callable[[int, int, Trial], None] | None = None
) -> dict[str, Capture]:
    """Every trial of the plan, in order; `progress(i, n, trial)` before trial i of n."""
    results = {}
    for number, trial in enumerate(plan.trials, start=1):
        if progress is not None:
            progress(number, len(plan.trials), trial)
        results[trial.id] = runner.run(trial)
    return results


def _times(result: TestsResult, bucket: Bucket) -> dict[int, float]:
    return {
        row.size: row.out_of_place.time_us
        for row in result.rows
        if row.size > 0
        and bucket.holds(row.size)
        and row.out_of_place is not None
        and row.out_of_place.time_us > 0
    }


def speedup(base: TestsResult, cand: TestsResult, bucket: Bucket) -> float | None:
    """Geometric mean of time(base)/time(cand) over sizes both measured in `bucket`."""
    tb, tc = _times(base, bucket), _times(cand, bucket)
    common = sorted(set(tb) & set(tc))
    if not common:
        return None
    return math.exp(sum(math.log(tb[s] / tc[s]) for s in common) / len(common))


@dataclass(frozen=True)
class BucketPick:
    collective: str
    bucket: str
    choice: Choice
    gain: float  # speedup - 1 over NCCL's default; negative: the default was faster
    candidates: int


@dataclass
class TuneResult:
    instance_type: str
    nodes: int
    ranks: int
    picks: list[BucketPick]
    global_env: dict[str, str]
    global_gains: dict[str, float]  # candidate label -> gain (geomean, large buckets)
    default_channels: int
    rules: list[TunerRule] = field(default_factory=list)
    curves: dict[str, dict[str, list[tuple[int, float]]]] = field(default_factory=dict)
    regressions: list[str] = field(default_factory=list)
    failed_trials: list[str] = field(default_factory=list)  # runs without a complete table

    def nccl_conf(self) -> str:
        lines = [
            f"# /etc/nccl.conf: global NCCL settings chosen by `gpufabric nccl tune` for "
            f"{self.instance_type} x {self.nodes} nodes (VAR=value; the environment wins)."
        ]
        lines += [
            f"# {label}: {gain:+.1%} vs NCCL defaults"
            for label, gain in sorted(self.global_gains.items())
        ]
        lines += [f"{k}={v}" for k, v in sorted(self.global_env.items())]
        return "\n".join(lines) + "\n"

    def tuner_conf(self) -> str:
        comments = [
            f"NCCL example tuner config written by `gpufabric nccl tune` for {self.instance_type} "
            f"x {self.nodes} nodes ({self.ranks} ranks).",
            "Load: NCCL_TUNER_PLUGIN=<path>/libnccl-tuner-example.so NCCL_TUNER_CONFIG_FILE=<this>.",
            "Every line sets channels explicitly and every collective is covered over all sizes:",
            "the example tuner caps unmatched collectives at 1 channel (NVIDIA/nccl@5067397c",
            "plugins/tuner/example/plugin.c with src/enqueue.cc; gpufabric docs/sources.md F.3).",
            "Tuned lines first (this scale), then the same choices for any scale, then a ring/simple",
            "catch-all with channels 0: NCCL's own per-size channel count where nothing was tuned",
            f"(NCCL used {self.default_channels} channels in the default run).",
        ]
        return render(self.rules, comments)


def _label(env: tuple[tuple[str, str], ...]) -> str:
    return ",".join(f"{k}={v}" for k, v in env)


def _table(capture: Capture | None) -> TestsResult | None:
    """The table pick reads from a trial's output, or None when the run failed (no rows, or cut
    short before its footer: e.g. NCCL refusing a forced algorithm the hardware lacks, or a
    timeout)."""
    if capture is None or not capture.results:
        return None
    result = capture.results[0]
    return result if result.rows and result.complete else None


def _result(captures: dict[str, Capture], trial: Trial) -> TestsResult | None:
    return _table(captures.get(trial.id))


def _default(captures: dict[str, Capture], trial: Trial) -> TestsResult:
    result = _result(captures, trial)
    if result is None:
        raise UserError(
            f"trial {trial.id}: the NCCL-default run has no complete table; "
            "nothing to compare against"
        )
    return result


def _default_channels(plan: Plan, captures: dict[str, Capture]) -> int:
    for trial in plan.trials:
        if trial.stage == "default" and trial.id in captures:
            channels = captures[trial.id].debug.channels
            if channels:
                return channels
    return max(2, plan.net_devices)  # at least one channel per NIC; logged in the file header


def _rules(picks: list[BucketPick], plan: Plan) -> list[TunerRule]:
    by_coll: dict[str, list[tuple[Bucket, Choice]]] = {}
    bucket_of = {b.name: b for b in plan.buckets}
    for p in picks:
        by_coll.setdefault(p.collective, []).append((bucket_of[p.bucket], p.choice))
    ranks = plan.nodes * plan.gpus_per_node
    scoped: list[TunerRule] = []
    for coll, spans in by_coll.items():
        merged: list[tuple[int, int, Choice]] = []
        for bucket, choice in sorted(spans, key=lambda s: s[0].min):
            if merged and merged[-1][2] == choice and merged[-1][1] + 1 == bucket.min:
                merged[-1] = (merged[-1][0], bucket.max, choice)
            else:
                merged.append((bucket.min, bucket.max, choice))
        name = FROM_TESTS[coll]
        for lo, hi, c in merged:
            scoped.append(
                TunerRule(name, lo, hi, c.algorithm, c.protocol, c.channels, plan.nodes, ranks)
            )
    anywhere = [
        TunerRule(r.collective, r.min_bytes, r.max_bytes, r.algorithm, r.protocol, r.channels)
        for r in scoped
    ]
    # Sizes no measured trial won: channels 0 hands the count back to NCCL's per-size default
    # (enqueue.cc); the example tuner has no way to leave the algorithm unset, so ring/simple.
    catch_all = [TunerRule(c, 0, SIZE_MAX, "ring", "simple", 0) for c in COLLECTIVES]
    return scoped + anywhere + catch_all


def _check_recorded_nodes(plan: Plan, captures: dict[str, Capture]) -> None:
    """Every trial must have run on the nodes being tuned for (`--nodes`): a table recorded on
    4 nodes says nothing about 16, and a table that does not say its node count (no rank lines,
    no NCCL nNodes, no rank count in its figures) shows nothing about `--nodes` either."""
    for trial_id, capture in sorted(captures.items()):
        for result in capture.results:
            seen = resolve_nodes(None, result, capture.debug, plan.gpus_per_node)
            if seen is None and result is _table(capture):
                raise UserError(
                    f"trial {trial_id}: its output does not say how many nodes it ran on "
                    f"(no rank lines, no NCCL nNodes), so it shows nothing about {plan.nodes} "
                    f"nodes ({capture.path})"
                )
            if seen is not None and seen != plan.nodes:
                raise ArgumentError(
                    "nodes",
                    f"{plan.nodes} is not valid for trial {trial_id}: its output "
                    f"was recorded on {seen} nodes ({capture.path})",
                )


def pick(
    plan: Plan, captures: dict[str, Capture], space: dict[str, Any] | None = None
) -> TuneResult:
    """Best choice per (collective, bucket), best global settings, and the gains over defaults."""
    space = space or sweep_space()
    _check_recorded_nodes(plan, captures)
    defaults = {t.collective: _default(captures, t) for t in plan.trials if t.stage == "default"}
    failed = [t.id for t in plan.trials if t.stage != "default" and _result(captures, t) is None]
    picks: list[BucketPick] = []
    curves: dict[str, dict[str, list[tuple[int, float]]]] = {}
    regressions: list[str] = []
    for coll in plan.collectives:
        base = defaults[coll]
        tuned_curve: list[tuple[int, float]] = []
        for bucket in plan.buckets:
            scored = []
            for t in plan.trials:
                if t.collective == coll and t.stage == "choice" and t.choice is not None:
                    res = _result(captures, t)
                    s = speedup(base, res, bucket) if res is not None else None
                    if s is not None:
                        scored.append((s, t, res))
            if not scored:
                continue
            best, trial, best_res = max(scored, key=lambda x: x[0])
            assert trial.choice is not None and best_res is not None
            picks.append(BucketPick(coll, bucket.name, trial.choice, best - 1, len(scored)))
            if best - 1 < -float(space["max_regression"]):
                regressions.append(
                    f"{coll} {bucket.name}: best explicit choice "
                    f"{trial.choice.label()} is {1 - best:.1%} slower than default"
                )
            tuned_curve += [
                (r.size, r.best_busbw())
                for r in best_res.rows
                if bucket.holds(r.size) and r.size > 0
            ]
        curves[coll] = {
            "default": [(r.size, r.best_busbw()) for r in base.rows if r.size > 0],
            "tuned": sorted(tuned_curve),
        }
    if not picks:
        raise UserError(
            f"no trial measured a choice ({len(failed)} of "
            f"{sum(t.stage != 'default' for t in plan.trials)} failed): nothing to pick"
        )
    global_env, global_gains = _pick_globals(plan, captures, defaults, space)
    channels = _default_channels(plan, captures)
    result = TuneResult(
        plan.instance_type,
        plan.nodes,
        plan.nodes * plan.gpus_per_node,
        picks,
        global_env,
        global_gains,
        channels,
        curves=curves,
        regressions=regressions,
        failed_trials=failed,
    )
    result.rules = _rules(picks, plan)
    return result


def _pick_globals(
    plan: Plan,
    captures: dict[str, Capture],
    defaults: dict[str, TestsResult],
    space: dict[str, Any],
) -> tuple[dict[str, str], dict[str, float]]:
    by_env: dict[tuple[tuple[str, str], ...], list[Trial]] = {}
    for t in plan.trials:
        if t.stage == "global":
            by_env.setdefault(t.env, []).append(t)
    large = [b for b in plan.buckets if b.min >= 1 << 20]
    gains: dict[str, float] = {}
    best_env: dict[str, str] = {}
    best_gain = float(space["min_gain"])
    for env, trials in by_env.items():
        logs: list[float] = []
        worst = 0.0
        results = [(t, _result(captures, t)) for t in trials]
        if any(res is None for _, res in results):
            continue  # a setting that breaks a run is not a candidate
        for t, res in results:
            assert res is not None
            for b in large:
                s = speedup(defaults[t.collective], res, b)
                if s is not None:
                    logs.append(math.log(s))
                    worst = min(worst, s - 1)
        if not logs:
            continue
        gain = math.exp(sum(logs) / len(logs)) - 1
        gains[_label(env)] = gain
        if gain >= best_gain and worst >= -float(space["max_regression"]):
            best_env, best_gain = dict(env), gain
    return best_env, gains
