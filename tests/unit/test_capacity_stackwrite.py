"""`gpufabric capacity plan --write`: the chosen settings go into the stack file under the
spelling the file already uses, a None removes a key, and a file that cannot take them (or a
failed write) is left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpufabric.capacity import stackwrite
from gpufabric.capacity.stackwrite import apply, write_settings
from gpufabric.config.stack_reader import load_stack_file
from gpufabric.errors import UserError

CHOICE = {
    "gpufabric:capacity.type": "reservation",
    "gpufabric:capacity.reservationId": "cr-0b0000000000000bb",
}


def _stack(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Pulumi.s.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "spelling", ["gpufabric:capacity", "capacity", "gpufabric:config:capacity"]
)
def test_the_files_own_spelling_of_a_key_is_written_in_place(tmp_path: Path, spelling: str):
    """A bare name and Pulumi's older `ns:config:name` are the same key: written beside it, the
    file would hold the key twice and every later read would refuse it."""
    path = _stack(
        tmp_path,
        f"config:\n  aws:region: us-east-1\n  {spelling}:\n    type: on-demand\n  nodes: 16\n",
    )
    write_settings(path, {**CHOICE, "gpufabric:nodes": 30})
    assert path.read_text() == (
        "config:\n"
        "  aws:region: us-east-1\n"
        f"  {spelling}:\n"
        "    type: reservation\n"
        "    reservationId: cr-0b0000000000000bb\n"
        "  nodes: 30\n"
    )
    assert load_stack_file(path, "gpufabric")["gpufabric:capacity"] == {
        "type": "reservation",
        "reservationId": "cr-0b0000000000000bb",
    }


def test_a_key_the_file_lacks_is_added_with_the_namespace():
    config = {"gpufabric:nodes": 16}
    assert apply(config, CHOICE) == {
        "gpufabric:nodes": 16,
        "gpufabric:capacity": {"type": "reservation", "reservationId": "cr-0b0000000000000bb"},
    }
    assert apply({}, {"gpufabric:gcp.a.b": 1}) == {"gpufabric:gcp": {"a": {"b": 1}}}
    deep = {"gpufabric:gcp": {"a": {"x": 0}}}
    assert apply(deep, {"gpufabric:gcp.a.b.c": 1}) == {
        "gpufabric:gcp": {"a": {"x": 0, "b": {"c": 1}}}
    }


def test_none_removes_a_key_and_a_missing_one_is_no_error():
    config = {
        "gpufabric:nodeGroup": "group",
        "gpufabric:capacity": {"type": "reservation", "reservations": [{"id": "r", "nodes": 2}]},
        "gpufabric:gcp": {"maxTopologyDistance": "subBlock", "project": "p"},
    }
    settings = {
        "gpufabric:capacity.reservations": None,
        "gpufabric:capacity.reservationId": "r",
        "gpufabric:nodeGroup": None,
        "gpufabric:gcp.maxTopologyDistance": None,
        "gpufabric:zone": None,
        "gpufabric:gcp.other": None,
    }
    assert apply(config, settings) == {
        "gpufabric:capacity": {"type": "reservation", "reservationId": "r"},
        "gpufabric:gcp": {"project": "p"},
    }


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"gpufabric:capacity": "on-demand"}, "gpufabric:capacity.type"),
        ({"gpufabric:gcp": {"a": 1}}, "gpufabric:gcp.a.b"),
        ({"gpufabric:gcp": ["x"]}, "gpufabric:gcp.a.b"),
    ],
)
def test_a_section_that_is_not_a_mapping_is_one_line(config: dict, key: str):
    top = key.split(".")[0]
    with pytest.raises(UserError) as err:
        apply(config, {key: "x"})
    assert str(err.value) == f"{key}: {top} in the stack file is not a mapping"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "config:\n  gpufabric:nodes: 16\n  gpufabric:nodes: 8\n",
            "line 3: key 'gpufabric:nodes' given twice (YAML)",
        ),
        # the same key in two spellings: only the project's namespace makes them one
        (
            "config:\n  nodes: 16\n  gpufabric:nodes: 8\n",
            "config key 'gpufabric:nodes' given twice ('gpufabric:nodes')",
        ),
        ("config:\n  nodes: 16\n" + "# padding\n" * 120_000, "1.1 MiB, too large for a stack file"),
    ],
)
def test_a_broken_file_is_refused_and_left_as_it_was(tmp_path: Path, text: str, problem: str):
    path = _stack(tmp_path, text)
    with pytest.raises(UserError) as err:
        write_settings(path, CHOICE)
    assert str(err.value) == f"{path}: {problem}"
    assert path.read_text() == text
    assert os.listdir(tmp_path) == [path.name]


def test_text_outside_ascii_is_kept_as_written(tmp_path: Path):
    path = _stack(tmp_path, "config:\n  gpufabric:nodes: 16\n  gpufabric:site: Zürich Ost\n")
    write_settings(path, {"gpufabric:nodes": 8})
    assert (
        path.read_bytes()
        == "config:\n  gpufabric:nodes: 8\n  gpufabric:site: Zürich Ost\n".encode()
    )


def test_a_settings_refusal_writes_nothing(tmp_path: Path):
    text = "config:\n  gpufabric:capacity: on-demand\n"
    path = _stack(tmp_path, text)
    with pytest.raises(UserError, match="is not a mapping"):
        write_settings(path, CHOICE)
    assert path.read_text() == text
    assert os.listdir(tmp_path) == [path.name]


def test_the_new_text_is_a_hidden_temporary_beside_the_file_renamed_over_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Beside it: a rename within one filesystem is what makes the replacement one step; hidden
    and ending in .tmp: one left by a killed run is never read as a stack file."""
    path = _stack(tmp_path, "config:\n  gpufabric:nodes: 16\n")
    renamed: list[tuple[Path, str]] = []
    real_replace = os.replace

    def replace(src: str, dst: Path) -> None:
        renamed.append((Path(src), Path(src).read_text()))
        real_replace(src, dst)

    monkeypatch.setattr(stackwrite.os, "replace", replace)
    write_settings(path, {"gpufabric:nodes": 8})
    [(tmp, text)] = renamed
    assert tmp.parent == tmp_path
    assert tmp.name.startswith(".Pulumi.s.yaml.") and tmp.name.endswith(".tmp")
    assert text == "config:\n  gpufabric:nodes: 8\n" == path.read_text()
    assert os.listdir(tmp_path) == [path.name]


def test_the_files_mode_is_kept(tmp_path: Path):
    path = _stack(tmp_path, "config:\n  gpufabric:nodes: 16\n")
    path.chmod(0o640)
    write_settings(path, CHOICE)
    assert path.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == [path.name]


def test_a_failed_rename_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    text = "config:\n  gpufabric:nodes: 16\n"
    path = _stack(tmp_path, text)

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device", dst)

    monkeypatch.setattr(stackwrite.os, "replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_settings(path, CHOICE)
    assert path.read_text() == text
    assert os.listdir(tmp_path) == [path.name]


def test_an_interruption_just_after_the_rename_is_raised_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The temporary is gone by then: removing it must not replace the interruption with an
    error about the missing temporary."""
    path = _stack(tmp_path, "config:\n  gpufabric:nodes: 16\n")
    real_replace = os.replace

    def replace_then_interrupt(src: str, dst: Path) -> None:
        real_replace(src, dst)
        raise KeyboardInterrupt

    monkeypatch.setattr(stackwrite.os, "replace", replace_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_settings(path, {"gpufabric:nodes": 8})
    assert path.read_text() == "config:\n  gpufabric:nodes: 8\n"
    assert os.listdir(tmp_path) == [path.name]
