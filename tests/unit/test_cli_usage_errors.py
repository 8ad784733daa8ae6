"""Usage errors Typer / click find themselves (a bad option value, an unknown option, a missing
argument) are the project's one `error: ...` line on stderr with exit 2, never Typer's box: a
walk over every command of the app gives each typed option a bad value."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Any

import pytest
import typer

from gpufabric.cli import conventions
from gpufabric.cli.main import build, main


def run_main(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """gpufabric's real entry point in this process: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["gpufabric", *args])
    code: Any = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return int(code or 0), out.out, out.err


def one_line(code: int, out: str, err: str) -> str:
    assert code == 2, (code, out, err)
    assert out == "", out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    assert "╭" not in err and "Usage:" not in err and "Traceback" not in err
    return lines[0]


def _bad_value(param: Any) -> str | None:
    """A value the option's type refuses, or None for a type that takes any text."""
    kind = param.type_descriptor.annotation
    if kind is int:
        return str(param.min - 1) if param.min is not None else "1.5"  # under the range
    if kind is float:
        return str(param.min - 1) if param.min is not None else "many"
    if isinstance(kind, type) and issubclass(kind, Enum):
        return "no-such-choice"
    return None


def typed_options() -> list[tuple[str, str, str]]:
    """(command path, option, bad value) for every typed option of every command."""
    root = typer.main.get_command(build())
    cases = []
    for path, command in sorted(conventions.leaf_commands(root).items()):
        for param in command.params:
            if param.param_type_name != "option" or param.is_flag or not param.opts:
                continue
            bad = _bad_value(param)
            if bad is not None:
                cases.append((path, param.opts[0], bad))
    return cases


CASES = typed_options()


def test_the_walk_finds_the_typed_options() -> None:
    commands = {c for c, _, _ in CASES}
    assert len(CASES) >= 20 and len(commands) >= 10, CASES
    assert ("storage gate", "--size-gib", "1.5") in CASES


@pytest.mark.parametrize(("command", "option", "bad"), CASES, ids=[f"{c}:{o}" for c, o, _ in CASES])
def test_a_bad_value_of_every_typed_option_is_one_line(
    command: str,
    option: str,
    bad: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = one_line(*run_main([*command.split(), option, bad], monkeypatch, capsys))
    assert option in line and f"(see 'gpufabric {command} --help')" in line, line


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["storage", "gate", "d", "--size-gib", "1.5"], "Invalid value for '--size-gib'"),
        (["topology", "order", "--gpus-per-node", "0"], "Invalid value for '--gpus-per-node'"),
        (["nccl", "gate", "x.txt", "-t", "p5.48xlarge", "--no-such"], "No such option: --no-such"),
        (["nccl", "gate", "-t", "p5.48xlarge"], "Missing argument 'files'"),
        (["nccl", "gate", "x.txt"], "Missing option '--instance-type'"),
        (["no-such-command"], "No such command 'no-such-command'"),
    ],
)
def test_usage_errors_are_one_line(
    args: list[str],
    words: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert words in one_line(*run_main(args, monkeypatch, capsys))


def test_help_and_bare_groups_still_show_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _err = run_main(["nccl", "gate", "--help"], monkeypatch, capsys)
    assert code == 0 and "Exit codes:" in out
    code, out, err = run_main(["nccl"], monkeypatch, capsys)
    assert "gate" in out + err and "error:" not in err  # the group's help, as before


def test_exit_codes_of_commands_pass_through(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(["--version"], monkeypatch, capsys)
    assert code == 0 and out.startswith("gpufabric ")
    code, _, err = run_main(
        ["nccl", "gate", "/nonexistent.txt", "-t", "p5.48xlarge"], monkeypatch, capsys
    )
    assert code == 2 and err.startswith("error: ")
