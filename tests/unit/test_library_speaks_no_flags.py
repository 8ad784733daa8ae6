"""The library speaks in its own words: no error it raises names one of gpufabric's CLI flags.

A library function names what is wrong by its argument (`ArgumentError("nodes", ...)`) or
mentions another argument as `Arg("input")`; the CLI says each as the flag that set it
(`cli.conventions.error_line`). The flags are gpufabric's own, read from the Typer app, so the
options of other programs' command lines (ip, openssl, iperf3, fio) are not caught; where
one of those is spelled like ours, it sits in that program's command line, written out whole
(`pulumi stack output --json`), and so does a gpufabric command line the user is told to run
(`gpufabric lab down --name x`): those name a command's options, not this call's arguments.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from gpufabric.cli.conventions import error_line
from gpufabric.cli.main import build
from gpufabric.errors import Arg, ArgumentError, UserError

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "src/gpufabric"
CLI = LIBRARY / "cli"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# A command line written out whole: a program's name, then its words up to the end of the
# sentence part (`:`, `;`, a bracket or a backtick closes it).
COMMAND_LINE = re.compile(r"\b(?:gpufabric|pulumi|gcloud)\b[^:;()`]*$")


def cli_flags() -> frozenset[str]:
    """Every long option of every gpufabric command."""
    flags: set[str] = set()

    def walk(command: Any) -> None:
        for param in getattr(command, "params", []):
            flags.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
        for sub in (getattr(command, "commands", None) or {}).values():
            walk(sub)

    walk(typer.main.get_command(build()))
    return frozenset(flags)


def _strings(node: ast.AST) -> Iterator[tuple[int, str, bool]]:
    """(line, text, followed by a value made at run time) of every string piece in `node`."""
    for part in ast.walk(node):
        if isinstance(part, ast.JoinedStr):
            for i, piece in enumerate(part.values):
                if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                    formatted = i + 1 < len(part.values)
                    yield piece.lineno, piece.value, formatted
        elif isinstance(part, ast.Constant) and isinstance(part.value, str):
            yield part.lineno, part.value, False


def _name(func: ast.expr) -> str:
    return getattr(func, "id", None) or getattr(func, "attr", "")


def _error_calls(tree: ast.AST) -> Iterator[ast.AST]:
    """What a raise raises, and every call of an error class (`UserError(...)` returned)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            yield node.exc
        elif isinstance(node, ast.Call) and _name(node.func).endswith(("Error", "Exception")):
            yield node


def _flags_in(text: str, formatted: bool, ours: frozenset[str]) -> list[str]:
    found = []
    for match in FLAG.finditer(text):
        if match.group() in ours and not COMMAND_LINE.search(text[: match.start()]):
            found.append(match.group())
    if formatted and re.search(r"(?<![\w-])--$", text) and not COMMAND_LINE.search(text):
        found.append("--{...}")  # a flag made up from an argument's name at run time
    return found


def flags_named(source: str, ours: frozenset[str]) -> list[str]:
    """`line: flag` for each of our flags that the library's errors in `source` name."""
    tree = ast.parse(source)
    hits = {
        f"{line}: {flag}"
        for call in _error_calls(tree)
        for line, text, formatted in _strings(call)
        for flag in _flags_in(text, formatted, ours)
    }
    # a flag handed to a helper that builds the error (`_one_of("--disruption", ...)`) or
    # set as a parameter's default (`flag="--out"`); not the options of a module that is a
    # command of its own (typer.Option in `python -m gpufabric.ipsec.ca`)
    for node in ast.walk(tree):
        values: list[ast.expr] = []
        if isinstance(node, ast.Call) and _name(node.func) not in ("Option", "Argument"):
            values = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.arguments):
            values = [*node.defaults, *(d for d in node.kw_defaults if d is not None)]
        for value in values:
            if isinstance(value, ast.Constant) and str(value.value).strip() in ours:
                hits.add(f"{value.lineno}: {str(value.value).strip()}")
    return sorted(hits)


def library_files() -> list[Path]:
    return [p for p in sorted(LIBRARY.rglob("*.py")) if CLI not in p.parents]


def test_library_errors_name_no_cli_flag() -> None:
    ours = cli_flags()
    found = [
        f"{path.relative_to(REPO)}:{hit}"
        for path in library_files()
        for hit in flags_named(path.read_text(), ours)
    ]
    assert found == [], "library errors that name a CLI flag:\n" + "\n".join(found)


def test_the_flags_are_the_apps_own() -> None:
    ours = cli_flags()
    assert {"--nodes", "--out", "--hosts", "--label-scheme", "--input"} <= ours
    assert not {"--output-format", "--show-secrets", "--bidir"} & ours  # fio's, pulumi's, iperf3's


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('raise UserError(f"--slots {slots}: must be at least 1")', ["1: --slots"]),
        ('raise UserError("pass --input with its saved output")', ["1: --input"]),
        ('return UserError(f"--source {s} needs --input FILE")', ["1: --input", "1: --source"]),
        ('raise UserError(f"--{dim}: must be at least 1")', ["1: --{...}"]),
        ('_one_of("--disruption", schedule, SCHEDULES)', ["1: --disruption"]),
        ('def prepare(path, flag="--out"): ...', ["1: --out"]),
        ('raise UserError("run fio with --output-format=json")', []),
        ('raise UserError("(pulumi stack output --json --show-secrets)")', []),
        ('raise UserError(f"up: `gpufabric lab down --name {n}` first")', []),
        ('raise ArgumentError("slots", f"{slots}: must be at least 1")', []),
        ('raise UserError("not among ", Arg("hosts"))', []),
        ('argv = ["srun", "--nodes=2", "--out"]', []),
        ('Opt = typer.Option("--out", help="The folder")', []),
    ],
)
def test_the_walk_sees_our_flags_and_no_others(source: str, found: list[str]) -> None:
    ours = frozenset({"--slots", "--input", "--source", "--disruption", "--out", "--json"})
    assert flags_named(source, ours | {"--nodes", "--name"}) == found


def test_the_cli_says_each_argument_as_its_flag() -> None:
    err = ArgumentError("label_scheme", "choose one of a, b", value="'eks'")
    assert str(err) == "label_scheme 'eks': choose one of a, b"
    assert error_line(err) == "error: --label-scheme 'eks': choose one of a, b"
    mention = UserError("results: not among ", Arg("hosts"), " (a, b)")
    assert str(mention) == "results: not among `hosts` (a, b)"
    assert error_line(mention) == "error: results: not among --hosts (a, b)"
    assert error_line(ArgumentError("nodes", "0 is not valid")) == "error: --nodes: 0 is not valid"
