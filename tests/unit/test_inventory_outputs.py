"""Reading a stack's outputs for the inventory (gpufabric.inventory.outputs), in-process: the
outputs file, the leaf map and `pulumi stack output` (a fake `pulumi` on a temporary path),
each refusal one exact line naming what was read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.unit.test_inventory_build import OUTPUTS

from gpufabric.errors import UserError
from gpufabric.inventory import outputs
from gpufabric.stack_outputs import parse


def _refused(call: Any, *args: Any) -> str:
    with pytest.raises(UserError) as err:
        call(*args)
    return str(err.value)


# ---------------------------------------------------------------------------- outputs file
def test_outputs_file(tmp_path: Path) -> None:
    f = tmp_path / "o.json"
    f.write_text(json.dumps(OUTPUTS, indent=2))
    assert outputs.load_file(f) == parse(OUTPUTS)
    assert outputs.load_file(str(f)).cluster.stack == "train-h100"


def test_outputs_file_refusals(tmp_path: Path) -> None:
    f = tmp_path / "o.json"
    f.write_text("[1, 2]")
    assert _refused(outputs.load_file, f) == (
        f"outputs file {f}: expected a JSON object of stack outputs, got list"
    )
    f.write_text('{"cluster": {}, "cluster": {}}')
    assert _refused(outputs.load_file, f) == (f"{f}: key 'cluster' given twice in one JSON object")
    f.write_text(json.dumps({**OUTPUTS, "nodes": {"count": 0, "groups": []}}))
    assert _refused(outputs.load_file, f) == (
        f"outputs file {f}: nodes.count: Input should be greater than or equal to 1"
    )
    assert _refused(outputs.load_file, tmp_path) == (
        f"{tmp_path}: is a directory, expected a stack outputs file (pulumi stack output --json)"
    )


# ---------------------------------------------------------------------------- leaf map
def test_leaf_map(tmp_path: Path) -> None:
    f = tmp_path / "leaves.yml"
    f.write_text("ip-10-0-0-1: nn-a\n10.0.0.2: 'leaf 2'\n7: no\n")
    assert outputs.load_leaf_map(f) == {"ip-10-0-0-1": "nn-a", "10.0.0.2": "leaf 2", "7": "no"}
    j = tmp_path / "leaves.json"
    j.write_text('{"h1": "c1/b0/s1"}')
    assert outputs.load_leaf_map(str(j)) == {"h1": "c1/b0/s1"}


@pytest.mark.parametrize(
    "text",
    ["- h1\n- h2\n", "h1: 3\n", "h1: [a]\n", "h1:\n", "", "leaf\n"],
    ids=["list", "number", "list-value", "null", "empty", "scalar"],
)
def test_leaf_map_not_a_mapping_of_names(tmp_path: Path, text: str) -> None:
    f = tmp_path / "leaves.yml"
    f.write_text(text)
    assert _refused(outputs.load_leaf_map, f) == (
        f"leaf map {f}: expected a mapping of host or address to leaf name"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('h1: "nn-a\\nSwitchName=evil"\n', "'nn-a\\nSwitchName=evil' holds the control"),
        ('h1: "a\\tb"\n', "'a\\tb' holds the control character '\\t'"),
        ("h1: '   '\n", "'   ' must be 1-255 characters, not only spaces"),
        (f"h1: {'x' * 256}\n", "must be 1-255 characters"),
    ],
    ids=["newline", "tab", "blank", "long"],
)
def test_leaf_map_refuses_a_leaf_no_writer_can_hold(
    tmp_path: Path, text: str, problem: str
) -> None:
    f = tmp_path / "leaves.yml"
    f.write_text("h0: ok\n" + text)
    line = _refused(outputs.load_leaf_map, f)
    assert line.startswith(f"leaf map {f}: 'h1': ")
    assert problem in line and "\n" not in line


def test_leaf_map_file_problems_name_what_was_expected(tmp_path: Path) -> None:
    assert _refused(outputs.load_leaf_map, tmp_path) == (
        f"{tmp_path}: is a directory, expected a leaf map (YAML/JSON: host or address -> leaf name)"
    )


# ---------------------------------------------------------------------------- pulumi stack output
@pytest.fixture
def pulumi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A fake `pulumi` found on the path: it records its directory and arguments, prints the
    given stdout / stderr and exits with the given code."""
    calls = tmp_path / "called"
    script = tmp_path / "bin" / "pulumi"
    script.parent.mkdir()
    monkeypatch.setattr(
        outputs.shutil, "which", lambda name: str(script) if name == "pulumi" else None
    )

    def make(stdout: bytes = b"", stderr: bytes = b"", rc: int = 0, body: str = "") -> Path:
        (tmp_path / "out").write_bytes(stdout)
        (tmp_path / "err").write_bytes(stderr)
        script.write_text(
            "#!/bin/sh\n"
            f"{body}"
            f'printf "%s\\n" "$PWD" "$@" > {calls}\n'
            f"cat {tmp_path / 'out'}\ncat {tmp_path / 'err'} >&2\nexit {rc}\n"
        )
        script.chmod(0o755)
        return calls

    return make


def test_stack_outputs_from_the_pulumi_cli(pulumi: Any, tmp_path: Path) -> None:
    calls = pulumi(json.dumps(OUTPUTS).encode(), b"warning: a newer version is available\n")
    here = tmp_path / "project"
    here.mkdir()
    assert outputs.load_stack("dev", cwd=here) == parse(OUTPUTS)
    assert calls.read_text().splitlines() == [
        str(here),
        *["stack", "output", "--json", "--show-secrets", "--stack", "dev"],
    ]


def test_stack_runs_where_it_is_called_without_cwd(
    pulumi: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = pulumi(json.dumps(OUTPUTS).encode())
    monkeypatch.chdir(tmp_path / "bin")
    outputs.load_stack("org/proj/dev")
    assert calls.read_text().splitlines()[0] == str(tmp_path / "bin")
    assert calls.read_text().splitlines()[-1] == "org/proj/dev"


def test_no_pulumi_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outputs.shutil, "which", lambda name: None)
    assert _refused(outputs.load_stack, "dev") == (
        "stack: the pulumi CLI is not installed; pass an outputs file instead "
        "(pulumi stack output --json --show-secrets > outputs.json)"
    )


@pytest.mark.parametrize(
    ("stderr", "rc", "shown"),
    [
        (b"error: no stack named 'dev' found\nmore\n", 255, "error: no stack named 'dev' found"),
        (b"\n  error: login required  \n", 1, "error: login required"),
        (b"   \n", 1, "no output"),
        (b"", 2, "no output"),
        (b"\x1b[31merror:\x1b[0m bad \xff\n", 1, "\\x1b[31merror:\\x1b[0m bad \ufffd"),
    ],
    ids=["first-line", "stripped", "blank", "none", "controls"],
)
def test_pulumi_fails_in_one_line(pulumi: Any, stderr: bytes, rc: int, shown: str) -> None:
    pulumi(json.dumps(OUTPUTS).encode(), stderr, rc)
    assert _refused(outputs.load_stack, "dev") == (
        f"stack dev: pulumi stack output failed: {shown}"
    )


@pytest.mark.parametrize(
    ("stdout", "line"),
    [
        (b"[1]", "stack dev: expected a JSON object of stack outputs, got list"),
        (
            b'{"cluster": ',
            "stack dev: `pulumi stack output --json`: line 1 column 13: not valid JSON "
            "(Expecting value; cut short?)",
        ),
        (
            b'{"cluster": 1, "cluster": 2}',
            "stack dev: `pulumi stack output --json`: key 'cluster' given twice in one JSON object",
        ),
        (
            b'{"a": "\xff"}',
            "stack dev: `pulumi stack output --json`: line 1: not UTF-8 (byte 0xff), expected "
            "the JSON of stack outputs",
        ),
        (
            b"{}",
            "stack dev: no 'cluster' section; these are not the outputs of a gpufabric stack "
            "(expected: cluster, nodes, network, storage)",
        ),
    ],
    ids=["list", "cut", "duplicate", "not-utf8", "empty"],
)
def test_pulumi_prints_something_else(pulumi: Any, stdout: bytes, line: str) -> None:
    pulumi(stdout)
    assert _refused(outputs.load_stack, "dev") == line


def test_pulumi_that_hangs_is_given_up(pulumi: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    pulumi(body="exec sleep 10\n")
    monkeypatch.setattr(outputs, "PULUMI_TIMEOUT_S", 0.3)
    assert _refused(outputs.load_stack, "dev") == (
        "stack dev: pulumi stack output did not finish in 0.3 s "
        "(is the backend reachable and logged in?)"
    )


def test_pulumi_that_cannot_run(pulumi: Any, tmp_path: Path) -> None:
    pulumi(json.dumps(OUTPUTS).encode())
    script = tmp_path / "bin" / "pulumi"
    script.chmod(0o644)
    assert _refused(outputs.load_stack, "dev") == (
        f"stack dev: cannot run {script}: Permission denied"
    )
