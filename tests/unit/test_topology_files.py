"""The topology command's own files: a recorded response, ibnetdiscover output and a names
file, each refused in one line naming the file (or `- (standard input)`) and what it should
be; a names file within its 16 MiB limit, its comments and its ids."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.inputs import files
from gpufabric.topology.files import read_names
from gpufabric.topology.load import load

RESPONSE = "a recorded topology response (JSON or YAML)"
NAMES = "a names file (id: name mapping or 'id name' lines)"


def _line(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError) as err:
        call()
    return str(err.value)


def test_each_input_says_what_it_should_be(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    assert _line(lambda: load("file", missing)) == (
        f"{missing}: cannot read: no such file, expected {RESPONSE}"
    )
    assert _line(lambda: load("ib", tmp_path)) == (
        f"{tmp_path}: is a directory, expected a topology input"
    )
    assert _line(lambda: read_names(tmp_path)) == f"{tmp_path}: is a directory, expected {NAMES}"


def test_names_file_limit_is_16_mib(tmp_path: Path) -> None:
    """16 MiB is read (here: refused for its content), one byte more is refused unread."""
    path = tmp_path / "names.txt"
    with path.open("wb") as fh:
        fh.truncate(16 * files.MiB + 1)
    assert _line(lambda: read_names(path)) == f"{path}: 16.0 MiB, too large for {NAMES}"
    os.truncate(path, 16 * files.MiB)
    assert "binary data (NUL byte)" in _line(lambda: read_names(path))


def test_names_file_comments_end_at_the_first_hash(tmp_path: Path) -> None:
    path = tmp_path / "names.txt"
    path.write_text("i-1 gpu-1  # renamed # twice\n# i-2 gpu-2\n")
    assert read_names(path) == {"i-1": "gpu-1"}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1.5: gpu-1\n", "id 1.5 is not a string"),
        ("true: gpu-1\n", "id True is not a string"),
        ("# nothing here\n\n", "names file maps no ids to names"),
        ("{}\n", "names file maps no ids to names"),
        ("i-1: [gpu-1\n", "line 2: not valid YAML"),
    ],
)
def test_names_file_refusals_name_the_file(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "names.yml"
    path.write_text(text)
    line = _line(lambda: read_names(path))
    assert line.startswith(f"{path}: ") and words in line


def test_names_from_standard_input(stdin: Callable[[bytes], None]) -> None:
    stdin(b"i-1 gpu-1\n")
    assert read_names(Path("-")) == {"i-1": "gpu-1"}
    files.reset_stdin()
    stdin(b"# none\n")
    assert _line(lambda: read_names(Path("-"))) == (
        "- (standard input): names file maps no ids to names"
    )
    files.reset_stdin()
    stdin(b"i-1: a\n1.5: b\n")
    assert _line(lambda: read_names(Path("-"))) == "- (standard input): id 1.5 is not a string"
