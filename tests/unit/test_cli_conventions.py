"""What every command does alike: --version, completion, exit codes in --help, `-` for standard
input, and a quiet exit when the reader of its output goes away (`gpufabric plan | head`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import typer

from gpufabric import __version__
from gpufabric.cli import conventions
from gpufabric.cli.main import app

REPO = Path(__file__).resolve().parents[2]
MIXED = REPO / "tests" / "fixtures_topology" / "aws_mixed_p5_p6b200_pages.json"  # constructed


def gpufabric(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args],
        cwd=REPO,
        input=stdin,
        env={**os.environ, "COLUMNS": "100"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_version_is_pyproject_s_and_the_changelog_s_latest() -> None:
    result = gpufabric("--version")
    assert result.returncode == 0 and result.stdout == f"gpufabric {__version__}\n"
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"] == __version__
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert released and released[0] == __version__


def test_every_command_lists_its_exit_codes() -> None:
    root = typer.main.get_command(app)
    conventions.add_exit_code_epilogs(root)
    leaves = conventions.leaf_commands(root)
    assert {"plan", "nccl gate", "nccl tune run", "topology render", "lab up"} <= set(leaves)
    for path, command in leaves.items():
        assert command.epilog and command.epilog.startswith("Exit codes: 0 "), path
        assert "2 usage error" in command.epilog, path
    assert set(conventions.EXIT_CODES) <= set(leaves)  # no entry for a command that is gone
    shown = gpufabric("nccl", "gate", "--help")
    assert shown.returncode == 0
    assert "Exit codes: 0 every check passed; 1 a check failed" in " ".join(shown.stdout.split())


def test_shell_completion_is_on() -> None:
    result = gpufabric("--show-completion", "bash")
    assert result.returncode == 0, result.stderr
    assert "_GPUFABRIC_COMPLETE=complete_bash" in result.stdout


@pytest.mark.parametrize("json_out", [False, True], ids=["table", "json"])
def test_a_closed_pipe_ends_quietly_with_0(json_out: bool) -> None:
    """The reader is gone before the plan is printed (`gpufabric plan ... | head -0`)."""
    read, write = os.pipe()
    os.close(read)  # EPIPE on the first write
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "gpufabric.cli",
                "plan",
                "-s",
                "aws-h100",
                *(["--json"] if json_out else []),
            ],
            cwd=REPO,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        os.close(write)
    assert proc.returncode == 0 and proc.stderr == ""


def test_devnull_output_keeps_a_failure_s_exit_code() -> None:
    """Output sent to /dev/null on purpose is not a closed pipe: exit 1 stays 1."""
    devnull = conventions._devnull()
    assert not conventions.closed_pipe(devnull)


def test_dash_reads_standard_input() -> None:
    from_file = gpufabric(
        "topology", "render", "--source", "aws", "-i", str(MIXED), "--format", "slurm-tree"
    )
    from_stdin = gpufabric(
        "topology",
        "render",
        "--source",
        "aws",
        "-i",
        "-",
        "--format",
        "slurm-tree",
        stdin=MIXED.read_text(),
    )
    assert from_file.returncode == 0 and from_stdin.returncode == 0, from_stdin.stderr
    header, *body = from_stdin.stdout.splitlines()
    assert header.startswith("# Slurm topology/tree from -;")
    assert body == from_file.stdout.splitlines()[1:]
    csv = "allreduce,0,65535,tree,ll,0,-1,-1\n"
    checked = gpufabric("nccl", "tuner-check", "--plugin-rules-only", "-", stdin=csv)
    assert checked.returncode == 0 and "-: 0 errors" in checked.stdout, checked.stdout


def test_standard_input_is_read_once() -> None:
    result = gpufabric(
        "topology",
        "render",
        "--source",
        "aws",
        "-i",
        "-",
        "--names",
        "-",
        stdin="i-0c5d1e8f2a3b4c903 n1\n",
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: - (standard input): already read; name standard input once per command"
    ]
