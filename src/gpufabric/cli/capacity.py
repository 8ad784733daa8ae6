"""`gpufabric capacity`: choose reserved capacity by network position before launch, check after.

Each cloud's reader (`gpufabric.clouds.<cloud>.capacity`) reads live with the cloud's SDK or from
saved CLI JSON, and turns a choice into stack config; the choice itself is cloud-agnostic
(`gpufabric.capacity.choose`). Imports stay inside the commands: the SDKs take seconds.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from gpufabric.clouds import registry
from gpufabric.errors import UserError

app = typer.Typer(
    no_args_is_help=True,
    help="Choose reservations / blocks by network position before launch; check after.",
)

StackOpt = Annotated[
    str, typer.Option("--stack", "-s", help="Stack name (stacks/Pulumi.<stack>.yaml)")
]
FromOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--from",
        help="Saved CLI JSON (repeat: e.g. the reservations and their topology); "
        "without it, read live with the cloud's SDK",
    ),
]


def _reader(cloud: str) -> ModuleType:
    """The cloud's capacity reader (gpufabric.clouds.<cloud>.capacity)."""
    readers = sorted(n for n in registry.names() if registry.has_module(n, "capacity"))
    if cloud not in readers:
        raise UserError(
            f"capacity by network position is read on {', '.join(readers)}; "
            f"this stack is on {cloud}"
        )
    return registry.module(cloud, "capacity")


def _stack(stack: str) -> tuple[Any, Path, dict[str, Any]]:
    from gpufabric.config.load import parse
    from gpufabric.plan.project import project_root, read_stack

    root = project_root()
    raw = read_stack(root, stack)
    return parse(raw, stack), root / "stacks" / f"Pulumi.{stack}.yaml", raw


def _documents(paths: list[Path]) -> list[tuple[str, Any]]:
    from gpufabric.inputs.formats import load_json

    return [(str(p), load_json(p, what="saved capacity output")) for p in paths]


def _read(cfg: Any, paths: list[Path] | None) -> Any:
    reader = _reader(cfg.instance.cloud)
    docs = _documents(paths) if paths else reader.read_live(cfg)
    source = ", ".join(str(p) for p in paths) if paths else "live"
    return reader.capacity_for(cfg, docs, source)


def config_lines(settings: dict[str, Any]) -> list[str]:
    """`-c KEY=VALUE` lines (JSON values where not a plain string; null clears a key)."""
    out = []
    for key, value in settings.items():
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        out.append(f"-c {shlex.quote(f'{key}={text}')}")
    return out


@app.command("plan")
def plan(
    stack: StackOpt,
    from_files: FromOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the choice as JSON")] = False,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Write the chosen config into the stack file (comments in the file are not kept)",
        ),
    ] = False,
    max_leaves: Annotated[
        int | None,
        typer.Option("--max-leaves", min=1, help="Refuse a choice spread over more leaves"),
    ] = None,
) -> None:
    """Choose the reservations / blocks that hold the stack's nodes on the fewest leaves."""
    from gpufabric.capacity.choose import choose

    cfg, path, raw = _stack(stack)
    capacity = _read(cfg, from_files)
    choice = choose(capacity, cfg.nodes, max_leaves)
    settings = _reader(cfg.instance.cloud).settings(choice, cfg, raw)
    if write:
        from gpufabric.capacity.stackwrite import write_settings

        write_settings(path, settings)
    if as_json:
        typer.echo(json.dumps({**choice.to_dict(), "config": settings}, indent=2))
        return
    kind = capacity.unit_kind
    typer.echo(
        f"{cfg.nodes} nodes on {len(choice.units)} {kind}(s) across {choice.leaves} "
        f"{capacity.leaf_kind}(s); bound {choice.bound} ({choice.ratio:.2f} x the bound); "
        f"{choice.slack} free host(s) left in them"
    )
    for unit, count in choice.shares():
        typer.echo(f"  {unit.id}: {count} of {unit.free} free  ({capacity.leaf_kind} {unit.leaf})")
    for unit in choice.left_out:
        typer.echo(f"  left out {unit.id}: {unit.note or 'unhealthy'}")
    if write:
        typer.echo(f"written to {path}")
    else:
        typer.echo("stack config:")
        for line in config_lines(settings):
            typer.echo(f"  {line}")


@app.command("check")
def check(
    stack: StackOpt,
    landed: Annotated[
        Path | None,
        typer.Option(
            "--landed",
            help="Where the nodes landed: the topology source's recorded input for this cloud "
            "(as `gpufabric topology discover --source CLOUD --input` reads it); without it, "
            "the nodes are found and placed live",
        ),
    ] = None,
    outputs_file: Annotated[
        Path | None,
        typer.Option(
            "--outputs",
            help="Without --landed: the stack's saved `pulumi stack output --json "
            "--show-secrets` (default: ask the Pulumi CLI)",
        ),
    ] = None,
    from_files: FromOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON")] = False,
) -> None:
    """After `up`: which nodes landed outside the reservations / blocks the stack names."""
    from gpufabric.capacity.check import landed_outside

    cfg, path, _raw = _stack(stack)
    planned = _reader(cfg.instance.cloud).planned_ids(cfg)
    if landed is not None:
        from gpufabric.topology.load import load

        if outputs_file is not None:
            raise UserError("--outputs is read without --landed only: give one of them")
        topology = load(cfg.instance.cloud, landed, region=cfg.region)  # local errors first
        capacity = _read(cfg, from_files)
    else:
        from gpufabric.capacity.landed import landed as landed_live
        from gpufabric.capacity.landed import stack_outputs

        outputs = stack_outputs(stack, outputs_file, path.parent.parent)
        if outputs.cluster.cloud != cfg.instance.cloud:
            raise UserError(
                f"stack outputs: of a {outputs.cluster.cloud} stack; {stack} is on "
                f"{cfg.instance.cloud}"
            )
        reader = _reader(cfg.instance.cloud)
        docs = _documents(from_files) if from_files else reader.read_live(cfg)
        positions = reader.positions(docs) if hasattr(reader, "positions") else None
        topology = landed_live(outputs, cfg.region, positions=positions)
        source = ", ".join(str(p) for p in from_files) if from_files else "live"
        capacity = reader.capacity_for(cfg, docs, source)
    result = landed_outside(capacity, planned, topology)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    else:
        for line in result.lines():
            typer.echo(line)
    if result.outside:
        raise typer.Exit(1)


@app.command("report-faulty")
def report_faulty(
    stack: StackOpt,
    behavior: Annotated[
        str,
        typer.Option("--behavior", help="What is wrong, in the cloud's words (e.g. PERFORMANCE)"),
    ],
    description: Annotated[
        str, typer.Option("--description", help="One line: what the doctor or certify found")
    ],
    host: Annotated[
        str | None, typer.Option("--host", help="The instance whose host is bad")
    ] = None,
    block: Annotated[
        str | None,
        typer.Option("--block", help="The reservation sub-block that is bad (its full path)"),
    ] = None,
    component: Annotated[
        str | None, typer.Option("--component", help="A sub-block's failed component")
    ] = None,
    disruption: Annotated[
        str, typer.Option("--disruption", help="When the cloud may disrupt the VMs")
    ] = "IMMEDIATE",
    send: Annotated[
        bool,
        typer.Option("--send", help="Really report it to the cloud (without: print the request)"),
    ] = False,
) -> None:
    """Report a bad host or block to the cloud, where the cloud takes such reports.

    Prints the request; only --send sends it (the cloud then repairs or replaces the host, which
    disrupts the VMs on it)."""
    cfg, _path, _raw = _stack(stack)
    reader = _reader(cfg.instance.cloud)
    if not hasattr(reader, "fault_report"):
        raise UserError(
            f"{registry.get(cfg.instance.cloud).display_name} takes no fault reports from here"
        )
    report = reader.fault_report(
        cfg,
        host=host,
        block=block,
        behavior=behavior,
        description=description,
        component=component,
        schedule=disruption,
    )
    typer.echo(json.dumps(report.to_dict(), indent=2))
    if not send:
        typer.echo("not sent: add --send to report it to the cloud", err=True)
        return
    typer.echo(f"sent: operation {reader.send_fault_report(report)}", err=True)
