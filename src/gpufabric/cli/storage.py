"""`gpufabric storage`: gate and report a storage benchmark (playbooks/storage-benchmark.yml).

Exit codes: 0 gate passed, 1 gate failed, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer

from gpufabric.errors import UserError
from gpufabric.storage.gate import StorageGate, gate
from gpufabric.storage.report import write_report
from gpufabric.storage.results import load_results
from gpufabric.storage.sizing import Goal

app = typer.Typer(
    help="Gate and report storage benchmarks (fio from every node; IOR / mdtest where installed).",
    no_args_is_help=True,
)

ResultsDir = Annotated[Path, typer.Argument(help="Results directory: <host>/<phase>.json")]
SizeGiB = Annotated[
    int | None, typer.Option("--size-gib", help="Checkpoint size (GiB) of the goal")
]
WriteSeconds = Annotated[
    float | None, typer.Option("--write-seconds", help="Seconds the checkpoint may take")
]
ReadGBps = Annotated[
    float | None, typer.Option("--read-gbps", help="Aggregate read goal, GB/s (10^9 B/s)")
]
RatedGBps = Annotated[
    float | None,
    typer.Option("--rated-gbps", help="The file system's rated throughput, GB/s (plan summary)"),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of text")]
Hosts = Annotated[
    str | None,
    typer.Option(
        "--hosts",
        help="Comma-separated hosts the benchmark ran on: reports from others are refused, "
        "an asked host without reports fails",
    ),
]


def hosts_from(value: str | None) -> list[str] | None:
    if value is None:
        return None
    hosts = [h.strip() for h in value.split(",")]
    if not hosts or any(not h or "/" in h or h in (".", "..") for h in hosts):
        raise UserError(f"--hosts: {value!r} is not valid; comma-separated host names")
    return hosts


def _positive(name: str, value: float | None) -> None:
    if value is not None and (not math.isfinite(value) or value <= 0):
        raise UserError(f"{name}: {value!r} is not valid; a positive number")


def goal_from(
    size_gib: int | None, write_seconds: float | None, read_gbps: float | None
) -> Goal | None:
    _positive("--size-gib", size_gib)
    _positive("--write-seconds", write_seconds)
    _positive("--read-gbps", read_gbps)
    if (size_gib is None) != (write_seconds is None):
        raise UserError(
            "--size-gib and --write-seconds: give both (the checkpoint goal) or neither"
        )
    if size_gib is None or write_seconds is None:
        if read_gbps is not None:
            raise UserError(
                "--read-gbps: needs the checkpoint goal too (--size-gib, --write-seconds)"
            )
        return None
    return Goal(size_gib, write_seconds, read_gbps)


def _print(result: StorageGate, as_json: bool) -> None:
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "passed": result.passed,
                    "verdicts": [v.__dict__ for v in result.verdicts],
                    "figures": result.figures,
                },
                indent=2,
            )
        )
        return
    for verdict in result.verdicts:
        typer.echo(verdict.line())
    typer.echo(f"storage gate {'PASSED' if result.passed else 'FAILED'}")


@app.command("gate")
def gate_cmd(
    results: ResultsDir,
    size_gib: SizeGiB = None,
    write_seconds: WriteSeconds = None,
    read_gbps: ReadGBps = None,
    rated_gbps: RatedGBps = None,
    as_json: AsJson = False,
    hosts: Hosts = None,
) -> None:
    """Gate measured figures against the goal and the rated throughput; exit 1 on a failure."""
    goal = goal_from(size_gib, write_seconds, read_gbps)
    _positive("--rated-gbps", rated_gbps)
    result = gate(load_results(results, hosts_from(hosts)), goal, rated_gbps)
    _print(result, as_json)
    if not result.passed:
        raise typer.Exit(1)


@app.command("report")
def report_cmd(
    results: ResultsDir,
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write report.md / .json")],
    size_gib: SizeGiB = None,
    write_seconds: WriteSeconds = None,
    read_gbps: ReadGBps = None,
    rated_gbps: RatedGBps = None,
    hosts: Hosts = None,
) -> None:
    """Write report.md and report.json (figures per node and phase, verdicts); exit 1 on a failure."""
    goal = goal_from(size_gib, write_seconds, read_gbps)
    _positive("--rated-gbps", rated_gbps)
    loaded = load_results(results, hosts_from(hosts))
    result = gate(loaded, goal, rated_gbps)
    page = write_report(out, loaded, result, goal, rated_gbps)
    typer.echo(
        f"wrote {page} and {page.with_suffix('.json')}; gate {'PASSED' if result.passed else 'FAILED'}"
    )
    if not result.passed:
        raise typer.Exit(1)
