"""The NCCL library takes parsed objects and speaks in its own words: only the CLI looks the
instance type up (once a run) and names its flags."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.unit.test_nccl_strict import GOOD_ROWS, table
from typer.testing import CliRunner

import gpufabric.catalog
from gpufabric.cli.main import app

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "src/gpufabric/nccl"
FLAG = re.compile(r"(?<![\w-])--[a-z]")


def _raised_texts(path: Path) -> list[str]:
    """The string pieces of every `raise X(...)` in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for part in ast.walk(node.exc):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    out.append(part.value)
    return out


def test_library_errors_name_no_cli_flag() -> None:
    found = {
        f"{path.relative_to(REPO)}: {text!r}"
        for path in LIBRARY.rglob("*.py")
        for text in _raised_texts(path)
        if FLAG.search(text)
    }
    assert found == set()


def test_the_check_sees_a_flag() -> None:
    assert FLAG.search("--nodes: 0 is not valid") and FLAG.search("x--y") is None


# The profile chooser is the nccl role's filter (gpufabric_nccl_profile): it looks the type up
# under the role's own variable, nccl_instance_type, as filters do.
FILTER_FACING = {"src/gpufabric/nccl/profiles.py"}


def test_the_library_looks_nothing_up() -> None:
    users = [
        str(p.relative_to(REPO))
        for p in LIBRARY.rglob("*.py")
        if re.search(r"\blookup\(", p.read_text())
    ]
    assert set(users) <= FILTER_FACING, users


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["gate", "-t", "p5.48xlarge", "-n", "0"], "error: --nodes: 0 is not valid; must be 1 to "),
        (
            ["gate", "-t", "p5.48xlarge", "--collective", "allreduce"],
            "error: --collective: 'allreduce' is not an nccl-tests collective; one of ",
        ),
        (["tune", "plan", "-t", "p5.48xlarge", "-n", "0"], "error: --nodes: 0 is not valid; must be 1 or more"),
        (["gate", "-t", "p5.48xlarg"], "error: --instance-type: 'p5.48xlarg' is not valid; did you mean"),
    ],
)  # fmt: skip
def test_the_cli_names_its_own_flags(tmp_path: Path, argv: list[str], line: str) -> None:
    data = tmp_path / "all_reduce_perf.txt"
    data.write_text(table(*GOOD_ROWS))
    files = [str(data)] if argv[0] == "gate" else []
    proc = subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "nccl", *argv, *files],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2 and proc.stderr.startswith(line), proc.stderr


def test_one_report_run_looks_the_type_up_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = gpufabric.catalog.catalog

    def counted():  # type: ignore[no-untyped-def]
        calls.append("catalog")
        return real()

    monkeypatch.setattr(gpufabric.catalog, "catalog", counted)
    data = tmp_path / "all_reduce_perf.txt"
    data.write_text(table(*GOOD_ROWS))
    argv = [
        "nccl",
        "report",
        str(data),
        "-t",
        "p5.48xlarge",
        "-n",
        "1",
        "--out",
        str(tmp_path / "r"),
    ]
    result = CliRunner().invoke(app, argv)
    assert (tmp_path / "r" / "report.html").is_file(), (result.output, result.exception)
    assert calls == ["catalog"]
