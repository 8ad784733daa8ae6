"""`gpufabric nccl`: parse, gate, tune and report NCCL benchmarks of the fabric.

Exit codes: 0 ok, 1 a gate failed (or a tuner file broke the example tuner's rules),
2 bad input (UserError: one line on stderr).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from gpufabric.catalog import lookup
from gpufabric.nccl.gate import GateReport, gate, human_bytes
from gpufabric.nccl.parse import capture_to_dict, parse_file
from gpufabric.nccl.transport import transport

app = typer.Typer(
    help="Parse, gate, tune and report NCCL benchmarks (nccl-tests + NCCL_DEBUG=INFO logs).",
    no_args_is_help=True,
)

Files = Annotated[
    list[Path], typer.Argument(help="nccl-tests output (text or -J JSON) / NCCL logs")
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
        typer.echo(json.dumps([capture_to_dict(c) for c in captures], indent=2))
        return
    for capture in captures:
        typer.echo(f"{capture.path}")
        for result in capture.results:
            last = result.rows[-1] if result.rows else None
            hosts = f", {len(result.hosts)} hosts" if result.hosts else ""
            ranks = f"{result.n_ranks} ranks{hosts}" if result.n_ranks else "ranks not listed"
            typer.echo(
                f"  {result.collective or 'unknown collective'}: {len(result.rows)} sizes, {ranks}, "
                f"avg busbw {result.avg_busbw if result.avg_busbw is not None else 'n/a'}"
                + (", elided" if result.elided else "")
                + ("" if result.complete else ", NO FOOTER (cut short?)")
            )
            if last is not None:
                typer.echo(
                    f"  largest: {human_bytes(last.size)} busbw {last.best_busbw():.2f} GB/s"
                )
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
    lookup(instance_type, key="--instance-type")  # a bad type is the first thing to report
    captures = [parse_file(f, collective) for f in files]
    report = gate(captures, instance_type, nodes, strict=strict)
    if as_json:
        typer.echo(
            json.dumps(
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
