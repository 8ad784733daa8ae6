"""The loaders every reader calls: a file (or `-`) read within its limits and parsed strictly,
each refusal naming the file (or `- (standard input)`) and the line; `auto` picks JSON or YAML
by the suffix, then by the first character; a config value is JSON where it parses."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.inputs import files, formats


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    files.reset_stdin()
    yield
    files.reset_stdin()


def _feed(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _error(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError) as err:
        call()
    return str(err.value)


def test_load_json_and_yaml_read_the_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"a": [1, 2]}')
    assert formats.load_json(path, what="a report") == {"a": [1, 2]}
    assert formats.load_yaml(path, what="a report") == {"a": [1, 2]}
    path.write_text("a: no\n")
    assert formats.load_yaml(str(path), what="a report") == {"a": "no"}


def test_the_loaders_pass_their_limits_on(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"a": {"b": {"c": 1}}}')
    assert "JSON nested deeper than 2 levels" in _error(
        lambda: formats.load_json(path, what="x", max_depth=2)
    )
    assert "nested deeper than 2 levels (YAML)" in _error(
        lambda: formats.load_yaml(path, what="x", max_depth=2)
    )
    assert "nested deeper than 2 levels" in _error(
        lambda: formats.load_data(path, what="x", max_depth=2)
    )
    for load in (formats.load_json, formats.load_yaml, formats.load_data):
        message = _error(lambda load=load: load(path, what="a report", max_bytes=8))
        assert message == f"{path}: 22 bytes, too large for a report"


def test_an_error_names_the_file_and_its_line(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{\n"a": 1,\n"a": 2}')
    assert _error(lambda: formats.load_json(path, what="x")) == (
        f"{path}: key 'a' given twice in one JSON object"
    )
    assert _error(lambda: formats.load_yaml(path, what="x")) == (
        f"{path}: line 3: key 'a' given twice (YAML)"
    )


def test_standard_input_is_named_as_such(stdin: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _feed(monkeypatch, b'{"a": 1}')
    assert formats.load_json("-", what="x") == {"a": 1}
    files.reset_stdin()
    _feed(monkeypatch, b'{"a": NaN}')
    assert _error(lambda: formats.load_json("-", what="x")) == (
        "- (standard input): line 1: 'a': NaN is not a number gpufabric accepts (JSON)"
    )
    files.reset_stdin()
    _feed(monkeypatch, b"a: 1\na: 2\n")
    assert _error(lambda: formats.load_data("-", what="x")) == (
        "- (standard input): line 2: key 'a' given twice (YAML)"
    )


@pytest.mark.parametrize(
    ("name", "text", "fmt", "result"),
    [
        ("r.json", "a: 1\n", "auto", "json"),  # by the suffix: not JSON, refused as JSON
        ("r.JSON", '{"a": 1}', "auto", {"a": 1}),
        ("r.yaml", "a: 1\n", "auto", {"a": 1}),
        ("r.YML", '{"a": NaN}', "auto", {"a": "NaN"}),  # YAML: a plain string
        ("r.txt", '  {"a": 1}', "auto", {"a": 1}),
        ("r.txt", "[1, NaN]", "auto", "json"),  # first character '[': JSON's rules
        ("r.txt", "a: [1]\n", "auto", {"a": [1]}),
        ("r.json", "a: 1\n", "yaml", {"a": 1}),  # an explicit format wins over the suffix
        ("r.yaml", "a: 1\n", "json", "json"),
    ],
)
def test_load_data_picks_the_format(
    tmp_path: Path, name: str, text: str, fmt: formats.Format, result: object
) -> None:
    path = tmp_path / name
    path.write_text(text)
    if result == "json":
        message = _error(lambda: formats.load_data(path, what="x", fmt=fmt))
        assert message.startswith(f"{path}: ") and "JSON" in message
    else:
        assert formats.load_data(path, what="x", fmt=fmt) == result


def test_a_config_value_is_json_where_it_parses() -> None:
    assert formats.parse_json_or_text('{"a": 1}', where="-c x") == {"a": 1}
    assert formats.parse_json_or_text("plain words", where="-c x") == "plain words"
    assert formats.parse_json_or_text("[1,", where="-c x") == "[1,"
    for strict in ('{"a": 1, "a": 2}', "NaN"):
        assert _error(lambda s=strict: formats.parse_json_or_text(s, where="-c x")).startswith(
            "-c x: "
        )


def test_json_refusals_name_the_line() -> None:
    text = '{"s": "NaN [[ here",\n"t": 1,\n"v": NaN}'
    assert _error(lambda: formats.parse_json(text, where="w")) == (
        "w: line 3: 'v': NaN is not a number gpufabric accepts (JSON)"
    )
    assert _error(lambda: formats.parse_json('{"a": -Infinity}', where="w")) == (
        "w: line 1: 'a': -Infinity is not a number gpufabric accepts (JSON)"
    )
    assert _error(lambda: formats.parse_json("\n\n[[[1]]]", where="w", max_depth=2)) == (
        "w: line 3: JSON nested deeper than 2 levels"
    )


def test_json_depth_counts_open_containers_only() -> None:
    assert formats.parse_json('{"s": "[[[[[[[["}', where="w", max_depth=2) == {"s": "[[[[[[[["}
    assert formats.parse_json("[[1],[2],[3],[4]]", where="w", max_depth=2) == [[1], [2], [3], [4]]


def test_json_cut_short_is_told_apart_from_extra_data() -> None:
    assert _error(lambda: formats.parse_json('{"a": 1', where="w")) == (
        "w: line 1 column 8: not valid JSON (Expecting ',' delimiter; cut short?)"
    )
    assert _error(lambda: formats.parse_json('{"a": "x', where="w")) == (
        "w: line 1 column 7: not valid JSON (Unterminated string starting at; cut short?)"
    )
    assert _error(lambda: formats.parse_json('{"a": 1}}', where="w")) == (
        "w: line 1 column 9: not valid JSON (Extra data)"
    )


def test_json_numbers_out_of_range() -> None:
    assert formats.parse_json("9" * 100, where="w") == int("9" * 100)
    assert formats.parse_json("-" + "9" * 100, where="w") == -int("9" * 100)
    assert _error(lambda: formats.parse_json("9" * 101, where="w")) == (
        "w: integer of 101 digits is out of range (JSON)"
    )
    assert _error(lambda: formats.parse_json("1e999", where="w")) == (
        "w: number 1e999 is out of range (JSON)"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "a: 1\nb: [1,\n",
            "w: line 3: not valid YAML (expected the node content, but found '<stream end>')",
        ),
        ("a: 1\n  b: 2\n", "w: line 2: not valid YAML (mapping values are not allowed here)"),
        ('a: "x\n', "w: line 2: not valid YAML (found unexpected end of stream)"),
        ("{a: 1, b\n", "w: line 2: not valid YAML (expected ',' or '}', but got '<stream end>')"),
        (
            "a: !!python/object x\n",
            "w: line 1: not valid YAML (tag !!python/object is not accepted (YAML 1.2 core schema only))",
        ),
        ("a: 1\nb: \x07\n", "w: line 2: not valid YAML (character U+0007)"),
        ("a: " + "9" * 101, "w: line 1: integer of 101 digits is out of range (YAML)"),
        ("a: 1\nb: 1e999", "w: line 2: 1e999 is out of range (YAML)"),
        ("a: .NaN", "w: line 1: .NaN is not a number gpufabric accepts (YAML)"),
        ("a: -.inf", "w: line 1: -.inf is not a number gpufabric accepts (YAML)"),
        ("? [a]\n: 1\n", "w: line 1: a list or mapping used as a key (YAML)"),
    ],
)
def test_yaml_refusals_name_the_line(text: str, line: str) -> None:
    assert _error(lambda: formats.parse_yaml(text, where="w")) == line


def test_yaml_1_2_scalars() -> None:
    doc = "a: 0x1F\nb: 0o17\nc: 1_000\nd: +12\ne: 1.5e3\nf: 2001-12-14\ng: " + "9" * 100
    assert formats.parse_yaml(doc, where="w") == {
        "a": 31, "b": 15, "c": "1_000", "d": 12, "e": 1500.0, "f": "2001-12-14",
        "g": int("9" * 100),
    }  # fmt: skip
    nulls = "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: True\ng: FALSE\nh: yes\ni: nULL"
    assert formats.parse_yaml(nulls, where="w") == {
        "a": None, "b": None, "c": None, "d": None, "e": None, "f": True, "g": False,
        "h": "yes", "i": "nULL",
    }  # fmt: skip
