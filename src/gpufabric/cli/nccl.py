"""`gpufabric nccl`: parse, gate, tune and report NCCL benchmarks of the fabric.

Exit codes: 0 ok, 1 a gate failed (or a tuner file broke the example tuner's rules),
2 bad input (UserError: one line on stderr).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from gpufabric import jsonout, outdir
from gpufabric.catalog import lookup
from gpufabric.errors import UserError
from gpufabric.inputs.files import MiB, read_text
from gpufabric.nccl.gate.fabric import merge_debug
from gpufabric.nccl.gate.verdict import GateReport, gate
from gpufabric.nccl.model import Capture
from gpufabric.nccl.parse.capture import capture_to_dict, parse_file
from gpufabric.nccl.parse.transport import transport
from gpufabric.nccl.report import summary as report_summary
from gpufabric.nccl.report.html import render_report, write_report
from gpufabric.nccl.report.tunefile import read_tune
from gpufabric.nccl.tune.run import (
    PlaybookRunner,
    RecordedRunner,
    TuneResult,
    check_sweep_dir,
    pick,
    run_sweep,
)
from gpufabric.nccl.tune.sweep import Plan as SweepPlan
from gpufabric.nccl.tune.sweep import Trial, plan_sweep
from gpufabric.nccl.tune.tunerconf import errors, validate
from gpufabric.nccl.units import human_bytes

app = typer.Typer(
    help="Parse, gate, tune and report NCCL benchmarks (nccl-tests + NCCL_DEBUG=INFO logs).",
    no_args_is_help=True,
)

Files = Annotated[
    list[Path],
    typer.Argument(help="nccl-tests output (text or -J JSON) / NCCL logs; - for standard input"),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of text")]
InstanceTypeOpt = Annotated[
    str, typer.Option("--instance-type", "-t", help="Catalog instance type, e.g. p5.48xlarge")
]
NodesOpt = Annotated[
    int | None, typer.Option("--nodes", "-n", help="Nodes in the run (default: from the output)")
]
CollectiveOpt = Annotated[
    str | None,
    typer.Option("--collective", help="Collective of the table (default: from output / file name)"),
]


@app.command("parse")
def parse_cmd(files: Files, as_json: AsJson = False, collective: CollectiveOpt = None) -> None:
    """Print what the files say: tables, ranks, hosts, NCCL version, transport, NICs."""
    captures = [parse_file(f, collective) for f in files]
    if as_json:
        typer.echo(jsonout.dumps([capture_to_dict(c) for c in captures], indent=2))
        return
    for capture in captures:
        typer.echo(f"{capture.path}")
        for result in capture.results:
            last = result.rows[-1] if result.rows else None
            hosts = f", {len(result.hosts)} hosts" if result.hosts else ""
            ranks = f"{result.n_ranks} ranks{hosts}" if result.n_ranks else "ranks not listed"
            nccl = f", NCCL {result.nccl_version}" if result.nccl_version else ""
            typer.echo(
                f"  {result.collective or 'unknown collective'}: {len(result.rows)} sizes, {ranks}"
                f"{nccl}, "
                f"avg busbw {result.avg_busbw if result.avg_busbw is not None else 'n/a'}"
                + (", elided" if result.elided else "")
                + ("" if result.complete else ", NO FOOTER (cut short?)")
            )
            if last is not None:
                typer.echo(
                    f"  largest: {human_bytes(last.size)} busbw {last.best_busbw():.2f} GB/s"
                )
            for problem in result.problems:
                typer.echo(f"  PROBLEM {problem}")
        d = capture.debug
        if d.seen:
            nics = ", ".join(x.name for x in d.net_devices) or ", ".join(d.net_nics_used) or "-"
            typer.echo(
                f"  NCCL {d.nccl_version or '?'}; transport {transport(d) or '?'}; "
                f"plugin {d.net_plugin or '?'}; NICs {nics}; channels {d.channels or '?'}; "
                f"nRanks {d.n_ranks or '?'} nNodes {d.n_nodes or '?'}; tuner {d.tuner or '?'}"
            )


def _print_report(report: GateReport) -> None:
    for verdict in report.verdicts:
        typer.echo(verdict.line())
    word = "PASSED" if report.passed else "FAILED"
    typer.echo(f"gate {word} for {report.instance_type} x {report.nodes or '?'} nodes")


@app.command("gate")
def gate_cmd(
    files: Files,
    instance_type: InstanceTypeOpt,
    nodes: NodesOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too")] = False,
    as_json: AsJson = False,
    collective: CollectiveOpt = None,
) -> None:
    """Gate results against the instance type's fabric; exit 1 when a check fails."""
    instance = lookup(instance_type, key="--instance-type")  # a bad type is reported first
    captures = [parse_file(f, collective) for f in files]
    report = gate(captures, instance, nodes, strict=strict)
    if as_json:
        typer.echo(
            jsonout.dumps(
                {
                    "instance_type": report.instance_type,
                    "nodes": report.nodes,
                    "transport": report.transport,
                    "passed": report.passed,
                    "verdicts": [v.__dict__ for v in report.verdicts],
                },
                indent=2,
            )
        )
    else:
        _print_report(report)
    if not report.passed:
        raise typer.Exit(1)


tune_app = typer.Typer(
    help="Sweep NCCL settings per message size and write nccl.conf + tuner CSV.",
    no_args_is_help=True,
)
app.add_typer(tune_app, name="tune")

TuneCollectives = Annotated[
    list[str] | None,
    typer.Option("--collective", "-c", help="Collective to tune (repeat); default: sweep.yaml"),
]


@tune_app.command("plan")
def tune_plan_cmd(
    instance_type: InstanceTypeOpt,
    nodes: Annotated[int, typer.Option("--nodes", "-n", help="Nodes to tune for")],
    collectives: TuneCollectives = None,
    as_json: AsJson = False,
) -> None:
    """List the trials worth running (file names for recorded results) and what was pruned."""
    plan = plan_sweep(lookup(instance_type, key="--instance-type"), nodes, collectives)
    if as_json:
        typer.echo(jsonout.dumps(asdict(plan), indent=2))
        return
    typer.echo(
        f"{len(plan.trials)} trials, ~{plan.sizes_measured()} message sizes, for "
        f"{instance_type} x {nodes} ({plan.net_devices} NCCL net devices per node)"
    )
    for trial in plan.trials:
        env = " ".join(f"{k}={v}" for k, v in trial.env)
        typer.echo(f"  {trial.id}.txt  -b {trial.min_bytes} -e {trial.max_bytes}  {env}")
    typer.echo("pruned (trial, bucket) points:")
    for reason, count in sorted(plan.pruned.items(), key=lambda x: -x[1]):
        typer.echo(f"  {count:4}  {reason}")


def _write_tune(result: TuneResult, out: Path, as_json: bool) -> None:
    outdir.prepare(out)
    (out / "nccl.conf").write_text(result.nccl_conf())
    tuner = result.tuner_conf()
    (out / "nccl_tuner.conf").write_text(tuner)
    tune_json = jsonout.dumps(asdict(result), indent=2)
    (out / "tune.json").write_text(tune_json)
    problems = validate(tuner, result.nodes, result.ranks)
    if as_json:
        typer.echo(tune_json)
    else:
        typer.echo(f"{'collective':15} {'bucket':10} {'choice':22} gain vs NCCL default")
        for p in result.picks:
            typer.echo(f"{p.collective:15} {p.bucket:10} {p.choice.label():22} {p.gain:+.1%}")
        for label, gain in sorted(result.global_gains.items()):
            kept = (
                " (kept)"
                if label == ",".join(f"{k}={v}" for k, v in sorted(result.global_env.items()))
                else ""
            )
            typer.echo(f"global {label}: {gain:+.1%}{kept}")
        for line in result.regressions:
            typer.echo(f"WARN {line}")
        if result.failed_trials:
            typer.echo(
                f"WARN {len(result.failed_trials)} trials failed (no complete table), "
                f"skipped: {', '.join(result.failed_trials[:5])}"
                + (" ..." if len(result.failed_trials) > 5 else "")
            )
        typer.echo(f"wrote {out / 'nccl.conf'}, {out / 'nccl_tuner.conf'}, {out / 'tune.json'}")
    for problem in problems:
        typer.echo(f"tuner file {problem.text()}", err=True)
    if errors(problems):
        raise typer.Exit(1)


OutDir = Annotated[Path, typer.Option("--out", "-o", help="Where to write the results")]


@tune_app.command("pick")
def tune_pick_cmd(
    results: Annotated[Path, typer.Argument(help="Directory of recorded outputs <trial>.txt")],
    instance_type: InstanceTypeOpt,
    nodes: Annotated[int, typer.Option("--nodes", "-n", help="Nodes the results were taken on")],
    out: OutDir = Path("nccl-tune"),
    collectives: TuneCollectives = None,
    as_json: AsJson = False,
) -> None:
    """Pick per-bucket settings from recorded trial outputs; write nccl.conf and the tuner CSV."""
    if not results.is_dir():
        raise UserError(f"{results}: not a directory of recorded trial outputs")
    plan = plan_sweep(lookup(instance_type, key="--instance-type"), nodes, collectives)
    _write_tune(pick(plan, run_sweep(plan, RecordedRunner(results))), out, as_json)


@tune_app.command("run")
def tune_run_cmd(
    inventory: Annotated[str, typer.Option("--inventory", "-i", help="Ansible inventory")],
    instance_type: InstanceTypeOpt,
    nodes: Annotated[int, typer.Option("--nodes", "-n", help="Nodes to tune for")],
    out: OutDir = Path("nccl-tune"),
    collectives: TuneCollectives = None,
    as_json: AsJson = False,
) -> None:
    """Run every trial through playbooks/benchmark.yml (real GPU nodes), then pick.

    Shows trial i of N as it goes. Interrupted (Ctrl-C, a lost node), the same command resumes:
    trials whose record is in OUT/trials are read back, not run again."""
    plan = plan_sweep(lookup(instance_type, key="--instance-type"), nodes, collectives)
    outdir.prepare(out)
    trials = outdir.prepare(out / "trials")
    check_sweep_dir(
        trials,
        {"instance_type": instance_type, "nodes": nodes, "trials": [t.id for t in plan.trials]},
    )
    runner = PlaybookRunner(inventory, trials)
    results = _run_with_progress(plan, runner)
    _write_tune(pick(plan, results), out, as_json)


def _run_with_progress(plan: SweepPlan, runner: PlaybookRunner) -> dict[str, Capture]:
    """run_sweep with a progress bar on stderr (stdout stays the result)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = (
        TextColumn("trial"),
        MofNCompleteColumn(),
        BarColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("", total=len(plan.trials))

        def show(number: int, total: int, trial: Trial) -> None:
            reused = " (finished before, reused)" if runner.record(trial).is_file() else ""
            bar.update(task, completed=number - 1, description=f"{trial.id}{reused}")
            bar.console.print(f"trial {number} of {total}: {trial.id}{reused}")

        try:
            results = run_sweep(plan, runner, show)
        except KeyboardInterrupt:
            done = sum(1 for t in plan.trials if runner.record(t).is_file())
            typer.echo(
                f"interrupted with {done} of {len(plan.trials)} trials finished (kept in "
                f"{runner.out_dir}); run the same command again to resume",
                err=True,
            )
            raise typer.Exit(130) from None
        bar.update(task, completed=len(plan.trials), description="done")
    return results


@app.command("tuner-check")
def tuner_check_cmd(
    file: Annotated[Path, typer.Argument(help="NCCL example tuner config (CSV)")],
    nodes: Annotated[int, typer.Option("--nodes", help="Check coverage for this nNodes")] = -1,
    ranks: Annotated[int, typer.Option("--ranks", help="Check coverage for this nRanks")] = -1,
    plugin_rules_only: Annotated[
        bool, typer.Option("--plugin-rules-only", help="Skip the channel-caveat coverage rules")
    ] = False,
) -> None:
    """Validate a tuner CSV against the example tuner's rules; exit 1 on errors."""
    text = read_text(file, what="a NCCL tuner CSV", max_bytes=MiB)  # `-` is standard input
    problems = validate(text, nodes, ranks, caveat=not plugin_rules_only)
    for problem in problems:
        typer.echo(problem.text())
    bad = errors(problems)
    typer.echo(f"{file}: {len(bad)} errors, {len(problems) - len(bad)} warnings")
    if bad:
        raise typer.Exit(1)


@app.command("report")
def report_cmd(
    files: Files,
    instance_type: InstanceTypeOpt,
    nodes: NodesOpt = None,
    tune: Annotated[
        Path | None, typer.Option("--tune", help="tune.json from `gpufabric nccl tune pick|run`")
    ] = None,
    out: OutDir = Path("nccl-report"),
    collective: CollectiveOpt = None,
) -> None:
    """Write report.html (self-contained) and the PNG plots; exit 1 when the gate fails."""
    instance = lookup(instance_type, key="--instance-type")  # the run's one look-up
    captures = [parse_file(f, collective) for f in files]
    tune_data = read_tune(tune) if tune is not None else None
    outdir.prepare(out)
    report = gate(captures, instance, nodes)
    html, plots = render_report(captures, report, merge_debug(captures), tune_data)
    page = write_report(out, html, plots)
    banner = report_summary.verdict(report)
    word = "PASSED" if banner.passed else "FAILED" if banner.fails else "NOT JUDGED"
    typer.echo(f"wrote {page} and {len(plots)} PNGs; gate {word}")
    if not banner.passed:
        if not banner.fails:
            typer.echo(f"{report_summary.NOT_MEASURED}", err=True)
        raise typer.Exit(1)
