"""`gpufabric` entry point: one Typer app, one sub-command module per concern.

Every UserError (bad config, bad flag, bad file) becomes one line on stderr and exit code 2;
usage errors are Typer's own (also exit code 2).
"""

from __future__ import annotations

import sys

import typer

from gpufabric.cli import health, lab, nccl, plan, topology
from gpufabric.errors import UserError

app = typer.Typer(
    name="gpufabric",
    help="GPU training clusters whose network is fast by construction.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """GPU training clusters whose network is fast by construction."""


app.command("plan")(plan.plan)
app.add_typer(lab.app, name="lab")
app.add_typer(topology.app, name="topology")
app.add_typer(nccl.app, name="nccl")
app.add_typer(health.app, name="health")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except OSError as exc:  # last resort: a file the command could not read or write
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        sys.exit(2)
