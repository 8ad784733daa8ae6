"""`gpufabric` entry point: one Typer app, one sub-command module per concern.

Every UserError (bad config, bad flag, bad file) becomes one line on stderr and exit code 2;
so do usage errors Typer finds itself (a bad option value, an unknown option, a missing
argument): `error: ...`, never Typer's box. Each command's --help lists its exit codes
(cli/conventions.py); a closed pipe (`gpufabric plan ... | head`) ends quietly with 0.
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, NoReturn

import typer
from typer._click.exceptions import ClickException

from gpufabric import __version__
from gpufabric.cli import conventions
from gpufabric.errors import UserError
from gpufabric.inputs import files

# name -> (module, attribute): a Typer sub-app, or a function for a single command. Only the
# module of the command being run is imported (`gpufabric topology render` does not pay for
# the Pulumi SDK that `plan` imports); `app` (for --help and the tests) has them all.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "plan": ("gpufabric.cli.plan", "plan"),
    "lab": ("gpufabric.cli.lab", "app"),
    "topology": ("gpufabric.cli.topology", "app"),
    "nccl": ("gpufabric.cli.nccl", "app"),
    "health": ("gpufabric.cli.health", "app"),
    "storage": ("gpufabric.cli.storage", "app"),
    "capacity": ("gpufabric.cli.capacity", "app"),
    "certify": ("gpufabric.cli.certify", "app"),
    "bundle": ("gpufabric.cli.bundle", "app"),
}


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"gpufabric {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit"
        ),
    ] = False,
) -> None:
    """GPU training clusters whose network is fast by construction."""


def build(only: str | None = None) -> typer.Typer:
    """The app with every sub-command, or only `only` (when it names one)."""
    app = typer.Typer(
        name="gpufabric",
        help="GPU training clusters whose network is fast by construction.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    for name, (module, attribute) in SUBCOMMANDS.items():
        if only in SUBCOMMANDS and name != only:
            continue
        target = getattr(importlib.import_module(module), attribute)
        if isinstance(target, typer.Typer):
            app.add_typer(target, name=name)
        else:
            app.command(name)(target)
    return app


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        return build()
    raise AttributeError(name)


def main() -> None:
    """Console-script entry point."""
    run(build(sys.argv[1] if len(sys.argv) > 1 else None), "gpufabric")


def run(app: typer.Typer, prog_name: str, argv: list[str] | None = None) -> NoReturn:
    """Run a Typer app the project's way (also `python -m gpufabric.ipsec.ca` and
    `python -m gpufabric.hostkeys`): one `error: ...` line and exit 2 for a UserError or a usage
    error, exit codes in --help, a quiet end when stdout's reader goes away."""
    files.reset_stdin()  # one command: standard input readable once (tests run several)
    command = typer.main.get_command(app)
    conventions.add_exit_code_epilogs(command)
    stdout_at_start = conventions.stdout_file()
    code: object = 0
    try:
        code = command.main(args=argv, prog_name=prog_name, standalone_mode=False)
    except BrokenPipeError:
        conventions.quiet_exit_on_closed_pipe()
    except SystemExit:
        if conventions.closed_pipe(stdout_at_start):
            conventions.quiet_exit_on_closed_pipe()
        raise
    except ClickException as exc:
        line = conventions.usage_line(exc)
        if line is None:
            exc.show()
        else:
            print(line, file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Abort:  # end of input at a prompt
        print("error: aborted", file=sys.stderr)
        sys.exit(1)
    except UserError as exc:
        print(conventions.error_line(exc), file=sys.stderr)
        sys.exit(exc.exit_code)
    except OSError as exc:  # last resort: a file the command could not read or write
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        sys.exit(2)
    if conventions.closed_pipe(stdout_at_start):
        conventions.quiet_exit_on_closed_pipe()
    sys.exit(code if isinstance(code, int) else 0)
