"""The strict stack-file reader (gpufabric.config.stack_reader) word for word: each refusal's
whole line, the key forms Pulumi takes (`name`, `ns:name`, `ns:config:name`) and those it does
not, the sections a stack file may hold, and the size limit at its edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.config.stack_reader import STACK_SECTIONS, full_key, parse_stack_document
from gpufabric.errors import UserError
from gpufabric.inputs.files import MiB

SECTIONS = "config, encryptedkey, encryptionsalt, environment, secretsprovider"


def refusal(data: bytes) -> str:
    with pytest.raises(UserError) as err:
        parse_stack_document(data, "f.yaml", "proj")
    return str(err.value)


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"", "f.yaml: empty file, expected a 'config:' mapping"),
        (b"  \n\n", "f.yaml: empty file, expected a 'config:' mapping"),
        (b"- a\n", "f.yaml: the top level is a list, expected a mapping with 'config:'"),
        (b"42\n", "f.yaml: the top level is an int, expected a mapping with 'config:'"),
        (b"just words\n", "f.yaml: the top level is a str, expected a mapping with 'config:'"),
        (
            b"config: {a: 1}\nconfg: {}\n",
            f"f.yaml: unknown top-level section 'confg'; a stack file has {SECTIONS}",
        ),
        (
            b"zzz: 1\nyyy: 2\nconfig: {a: 1}\n",
            f"f.yaml: unknown top-level section 'zzz'; a stack file has {SECTIONS}",
        ),
        (b"secretsprovider: passphrase\n", "f.yaml: no 'config:' section"),
        (b"config:\n", "f.yaml: 'config' is empty, expected a mapping of keys"),
        (b"config: {}\n", "f.yaml: 'config' is empty, expected a mapping of keys"),
        (b"config: []\n", "f.yaml: 'config' is a list, expected a mapping of keys"),
        (b"config: 3\n", "f.yaml: 'config' is an int, expected a mapping of keys"),
        (b"config: x\n", "f.yaml: 'config' is a str, expected a mapping of keys"),
        (b"config:\n  1: x\n", "f.yaml: config key 1 is not a string"),
        (b"config:\n  true: x\n", "f.yaml: config key True is not a string"),
        (
            b"config:\n  nodes: 1\n  proj:nodes: 2\n",
            "f.yaml: config key 'proj:nodes' given twice ('proj:nodes')",
        ),
        (
            b"config:\n  aws:region: a\n  aws:config:region: b\n",
            "f.yaml: config key 'aws:region' given twice ('aws:config:region')",
        ),
    ],
)
def test_a_broken_stack_file_is_this_one_line(data: bytes, line: str) -> None:
    assert refusal(data) == line


def test_every_section_pulumi_takes_is_taken_and_only_config_is_read() -> None:
    data = b"".join(
        b"config: {a: 1}\n" if s == "config" else f"{s}: x\n".encode() for s in STACK_SECTIONS
    )
    assert parse_stack_document(data, "f.yaml", "proj") == {"proj:a": 1}


@pytest.mark.parametrize(
    ("key", "full"),
    [
        ("nodes", "proj:nodes"),
        ("aws:region", "aws:region"),
        ("aws:config:region", "aws:region"),
        ("gpufabric:config:nodes", "gpufabric:nodes"),
    ],
)
def test_config_keys_in_the_forms_pulumi_takes(key: str, full: str) -> None:
    assert full_key(key, "proj", "f.yaml") == full
    assert parse_stack_document(f"config:\n  '{key}': 1\n".encode(), "f.yaml", "proj") == {full: 1}


@pytest.mark.parametrize(
    "key",
    [
        ":nodes",
        "gpufabric:",
        ":",
        "a:b:c",  # three parts, the middle not 'config'
        ":config:x",  # no namespace
        "a:config:",  # no name
        "a::b",
        "a:b:c:d",
        "a:config:b:c",
        "a:config:b:",
    ],
)
def test_config_keys_in_other_forms_are_refused_with_an_example(key: str) -> None:
    line = f"f.yaml: config key {key!r} is not of the form <namespace>:<name> (e.g. proj:nodes)"
    with pytest.raises(UserError) as err:
        full_key(key, "proj", "f.yaml")
    assert str(err.value) == line
    assert refusal(f"config:\n  '{key}': 1\n".encode()) == line


def test_a_stack_file_of_1_mib_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    from gpufabric.config.stack_reader import load_stack_file

    head = b"config:\n  a: '"
    path = tmp_path / "Pulumi.s.yaml"
    path.write_bytes(head + b"x" * (MiB - len(head) - 2) + b"'\n")
    assert len(load_stack_file(path, "proj")["proj:a"]) == MiB - len(head) - 2
    path.write_bytes(head + b"x" * (MiB - len(head) - 1) + b"'\n")
    with pytest.raises(UserError) as err:
        load_stack_file(path, "proj")
    assert str(err.value) == f"{path}: 1.0 MiB, too large for a stack file"


def test_a_stack_file_that_is_no_text_names_what_was_expected() -> None:
    assert refusal(b"config:\n  a: caf\xe9\n") == (
        "f.yaml: line 2: not UTF-8 (byte 0xe9), expected a stack file"
    )
    assert (
        refusal(b"config:\0\0") == "f.yaml: line 1: binary data (NUL byte), expected a stack file"
    )
