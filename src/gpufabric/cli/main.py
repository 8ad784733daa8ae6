"""`gpufabric` entry point: one Typer app, one sub-command module per concern.

Every UserError (bad config, bad flag, bad file) becomes one line on stderr and exit code 2;
usage errors are Typer's own (also exit code 2). Each command's --help lists its exit codes
(cli/conventions.py); a closed pipe (`gpufabric plan ... | head`) ends quietly with 0.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from gpufabric import __version__
from gpufabric.cli import (
    capacity,
    certify,
    conventions,
    health,
    lab,
    nccl,
    plan,
    storage,
    topology,
)
from gpufabric.errors import UserError

app = typer.Typer(
    name="gpufabric",
    help="GPU training clusters whose network is fast by construction.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"gpufabric {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit"
        ),
    ] = False,
) -> None:
    """GPU training clusters whose network is fast by construction."""


app.command("plan")(plan.plan)
app.add_typer(lab.app, name="lab")
app.add_typer(topology.app, name="topology")
app.add_typer(nccl.app, name="nccl")
app.add_typer(health.app, name="health")
app.add_typer(storage.app, name="storage")
app.add_typer(capacity.app, name="capacity")
app.add_typer(certify.app, name="certify")


def main() -> None:
    """Console-script entry point."""
    command = typer.main.get_command(app)
    conventions.add_exit_code_epilogs(command)
    stdout_at_start = conventions.stdout_file()
    try:
        command(prog_name="gpufabric")
    except BrokenPipeError:
        conventions.quiet_exit_on_closed_pipe()
    except SystemExit:
        if conventions.closed_pipe(stdout_at_start):
            conventions.quiet_exit_on_closed_pipe()
        raise
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except OSError as exc:  # last resort: a file the command could not read or write
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        sys.exit(2)
