"""The loaders every reader calls: a file (or `-`) read within its limits and parsed strictly,
each refusal naming the file (or `- (standard input)`) and the line; `auto` picks JSON or YAML
by the suffix, then by the first character; a config value is JSON where it parses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gpufabric.errors import UserError
from gpufabric.inputs import files, formats


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


def test_standard_input_is_named_as_such(stdin: Callable[[bytes], None]) -> None:
    stdin(b'{"a": 1}')
    assert formats.load_json("-", what="x") == {"a": 1}
    files.reset_stdin()
    stdin(b'{"a": NaN}')
    assert _error(lambda: formats.load_json("-", what="x")) == (
        "- (standard input): line 1: 'a': NaN is not a number gpufabric accepts (JSON)"
    )
    files.reset_stdin()
    stdin(b"a: 1\na: 2\n")
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


def test_auto_reads_a_json_suffix_or_a_leading_bracket_by_json_rules(tmp_path: Path) -> None:
    named = tmp_path / "r.json"
    named.write_text('{"a": NaN}')  # YAML would keep the string "NaN"
    assert _error(lambda: formats.load_data(named, what="x")) == (
        f"{named}: line 1: 'a': NaN is not a number gpufabric accepts (JSON)"
    )
    bare = tmp_path / "outputs"
    bare.write_text('\n  {"a": NaN}')
    assert _error(lambda: formats.load_data(bare, what="x")) == (
        f"{bare}: line 2: 'a': NaN is not a number gpufabric accepts (JSON)"
    )
    deep = tmp_path / "r.yaml"
    deep.write_text("a:\n  b:\n    c: 1\n")
    assert _error(lambda: formats.load_data(deep, what="x", max_depth=2)) == (
        f"{deep}: line 2: nested deeper than 2 levels (YAML)"
    )


def test_json_refusals_count_lines_before_and_not_after() -> None:
    assert _error(lambda: formats.parse_json("\n[1,\nNaN,\n2]\n\n", where="w")) == (
        "w: line 3: NaN is not a number gpufabric accepts (JSON)"
    )
    deep = "{\n" + '"a": ' + "[" * 3 + "1" + "]" * 3 + "\n}\n\n"
    assert _error(lambda: formats.parse_json(deep, where="w", max_depth=3)) == (
        "w: line 2: JSON nested deeper than 3 levels"
    )
    # a raw line break inside a string still counts as a line
    broken = '{"a\nb": ' + "[" * 3 + "]" * 3 + "}"
    assert _error(lambda: formats.parse_json(broken, where="w", max_depth=3)) == (
        "w: line 2: JSON nested deeper than 3 levels"
    )


def test_json_constant_glued_to_a_word_is_still_named() -> None:
    assert _error(lambda: formats.parse_json("[NaNx]", where="w")) == (
        "w: NaN is not a number gpufabric accepts (JSON)"
    )
    assert _error(lambda: formats.parse_json("[-Infinity2]", where="w")) == (
        "w: -Infinity is not a number gpufabric accepts (JSON)"
    )


def test_json_depth_falls_back_after_each_closed_container() -> None:
    # depth 3 reached only after a sibling closed: [[ [] , [[1]] ]] nests 4 deep
    assert _error(lambda: formats.parse_json("[[[],[[1]]]]", where="w", max_depth=3)) == (
        "w: line 1: JSON nested deeper than 3 levels"
    )
    assert formats.parse_json("[[[],[1]]]", where="w", max_depth=3) == [[[], [1]]]


def test_nesting_past_pythons_own_limit_is_one_line_not_a_recursion_error() -> None:
    text = "[" * 5000 + "]" * 5000
    assert _error(lambda: formats.parse_json(text, where="w", max_depth=10**6)) == (
        "w: JSON nested deeper than 1000000 levels"
    )
    assert _error(lambda: formats.parse_yaml(text, where="w", max_depth=10**6)) == (
        "w: YAML nested deeper than 1000000 levels"
    )


def test_yaml_errors_name_the_line_and_what_is_wrong() -> None:
    assert _error(lambda: formats.parse_yaml("\nb: \x07\n", where="w")) == (
        "w: line 2: not valid YAML (character U+0007)"
    )
    assert _error(lambda: formats.parse_yaml("x: &a 1\ny: &a 2\n", where="w")) == (
        "w: line 2: not valid YAML (found duplicate anchor 'a'; first occurrence on line 1, "
        "then again here)"
    )
