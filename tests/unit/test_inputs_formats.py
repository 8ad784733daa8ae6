"""gpufabric.inputs.formats / models: strict JSON and YAML 1.2, one-line errors, pydantic."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from gpufabric.inputs import files, formats, models
from gpufabric.inputs.errors import FormatError, InputError, ModelError

W = "f"


def _err(fn: object, *args: object, **kw: object) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kw)  # type: ignore[operator]
    text = str(info.value)
    assert "\n" not in text
    return text


# --- JSON ---------------------------------------------------------------------------------


def test_json_duplicate_key_named() -> None:
    assert _err(formats.parse_json, '{"a": {"error": 5, "error": 0}}', where=W) == (
        "f: key 'error' given twice in one JSON object"
    )


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("NaN", "line 1: NaN"),
        ("[1,\n Infinity]", "line 2: Infinity"),
        ('{"s": "NaN", "x":\n -Infinity}', "line 2: 'x': -Infinity"),
    ],
)
def test_json_nan_and_infinity_refused_naming_line_and_key(text: str, named: str) -> None:
    assert _err(formats.parse_json, text, where=W) == (
        f"f: {named} is not a number gpufabric accepts (JSON)"
    )


def test_json_identical_duplicates_allowed_only_when_asked() -> None:
    text = '{"sock_bufsize": 0, "sock_bufsize": 0}'
    assert "given twice" in _err(formats.parse_json, text, where=W)
    assert formats.parse_json(text, where=W, duplicates="identical") == {"sock_bufsize": 0}
    assert "key 'error' given twice" in _err(
        formats.parse_json, '{"error": 5, "error": 0}', where=W, duplicates="identical"
    )


@pytest.mark.parametrize("text", ["1e999", "[-1e400]"])
def test_json_overflow_to_infinity_refused(text: str) -> None:
    assert "out of range" in _err(formats.parse_json, text, where=W)


def test_json_huge_integer_refused() -> None:
    assert "integer of 5000 digits" in _err(formats.parse_json, "1" * 5000, where=W)
    serial = 2**159 + 1  # an X.509 serial: up to 20 octets
    assert formats.parse_json(f"[{serial}]", where=W) == [serial]


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_json_deep_nesting_refused_without_recursion_error(opener: str) -> None:
    text = "\n" + opener * 200_000
    assert _err(formats.parse_json, text, where=W) == (
        "f: line 2: JSON nested deeper than 64 levels"
    )


def test_json_depth_limit_is_exact_and_ignores_brackets_in_strings() -> None:
    nested: list[object] = []
    for _ in range(63):
        nested = [nested]
    assert formats.parse_json("[" * 64 + "]" * 64, where=W) == nested
    assert "deeper than 64" in _err(formats.parse_json, "[" * 65 + "]" * 65, where=W)
    assert formats.parse_json('{"s": "[[[[\\"[[[["}', where=W, max_depth=1) == {"s": '[[[["[[[['}


def test_json_truncated_names_line_and_column() -> None:
    assert _err(formats.parse_json, '{\n  "a": [1,\n', where=W) == (
        "f: line 3 column 1: not valid JSON (Expecting value; cut short?)"
    )
    assert _err(formats.parse_json, '{"a": "xyz', where=W).endswith("; cut short?)")
    assert "cut short" not in _err(formats.parse_json, '{"a": x}', where=W)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(), kids, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_json_round_trip(value: object) -> None:
    assert formats.parse_json(json.dumps(value), where=W) == value


@given(st.text(max_size=60))
def test_json_any_text_parses_or_one_line_error(text: str) -> None:
    try:
        formats.parse_json(text, where=W)
    except FormatError as exc:
        assert str(exc).startswith("f: ") and "\n" not in str(exc)


# --- YAML ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("no", "no"),
        ("yes", "yes"),
        ("on", "on"),
        ("Off", "Off"),
        ("y", "y"),
        ("true", True),
        ("FALSE", False),
        ("~", None),
        ("", None),
        ("null", None),
        ("010", 10),
        ("0o17", 15),
        ("0x1F", 31),
        ("+3", 3),
        ("1_000", "1_000"),
        ("0b11", "0b11"),
        ("1:20", "1:20"),
        ("2001-12-14", "2001-12-14"),
        ("1e5", 100000.0),
        (".5", 0.5),
        ("1.", 1.0),
        ("'no'", "no"),
        ("!!str 12", "12"),
    ],
)
def test_yaml_core_schema_scalars(text: str, value: object) -> None:
    got = formats.parse_yaml(f"k: {text}\n", where=W)["k"]
    assert got == value and type(got) is type(value)


def test_yaml_duplicate_key_named_with_line() -> None:
    assert _err(formats.parse_yaml, "a: 1\nb:\n  c: 1\n  c: 2\n", where=W) == (
        "f: line 4: key 'c' given twice (YAML)"
    )


@pytest.mark.parametrize("text", [".nan", ".inf", "-.Inf", "1e400"])
def test_yaml_nan_inf_refused(text: str) -> None:
    assert "line 1:" in _err(formats.parse_yaml, f"x: {text}", where=W)


def test_yaml_alias_loop_refused() -> None:
    assert _err(formats.parse_yaml, "a: &x [1, *x]\n", where=W) == (
        "f: line 1: an alias refers to a node that contains it (a loop) (YAML)"
    )


def test_yaml_alias_bomb_refused_before_building() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    assert "aliases expand to more than 200000 values" in _err(
        formats.parse_yaml, "\n".join(lines), where=W
    )


def test_yaml_shared_alias_within_bounds_is_kept() -> None:
    doc = formats.parse_yaml("base: &b {mtu: 9000}\nnics: [*b, *b]\n", where=W)
    assert doc == {"base": {"mtu": 9000}, "nics": [{"mtu": 9000}, {"mtu": 9000}]}


def test_yaml_deep_nesting_refused() -> None:
    assert _err(formats.parse_yaml, "[" * 100_000, where=W) == (
        "f: line 1: nested deeper than 64 levels (YAML)"
    )
    assert _err(formats.parse_yaml, "- " * 70 + "x", where=W).endswith(
        "nested deeper than 64 levels (YAML)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: !!binary aGk=", "tag !!binary is not accepted"),
        ("a: !!timestamp 2001-12-14", "tag !!timestamp is not accepted"),
        ("a: !!python/object/apply:os.system [id]", "tag !!python/object/apply:os.system"),
        ("a: !custom 1", "tag !custom is not accepted"),
        ("? [1]\n: 2", "a list or mapping used as a key"),
        ("a: 1\n---\nb: 2", "expected a single document in the stream, but found another"),
        ("a: [1, 2", "not valid YAML"),
    ],
)
def test_yaml_refusals(text: str, message: str) -> None:
    assert message in _err(formats.parse_yaml, text, where=W)


yaml_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=["Cc", "Cs", "Zl", "Zp"])),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.text(st.characters(codec="ascii", categories=["L", "N"])), kids, max_size=4
        )
    ),
    max_leaves=20,
)


@given(yaml_values)
def test_yaml_round_trip_of_what_a_dumper_writes(value: object) -> None:
    """What yaml.safe_dump writes (it quotes 1.1-ambiguous strings) reads back unchanged."""
    got = formats.parse_yaml(yaml.safe_dump(value), where=W)
    assert got == value or (isinstance(value, float) and math.isclose(got, value))


def test_yaml_unprintable_character_named_by_line() -> None:
    assert _err(formats.parse_yaml, "a: 1\nb: \x1f", where=W) == (
        "f: line 2: not valid YAML (character U+001F)"
    )


@given(st.text(max_size=60))
def test_yaml_any_text_parses_or_one_line_error(text: str) -> None:
    try:
        formats.parse_yaml(text, where=W)
    except FormatError as exc:
        assert str(exc).startswith("f: ") and "\n" not in str(exc)


# --- files + formats + models ------------------------------------------------------------


class Node(BaseModel):
    name: str
    gpus: int


class Inventory(BaseModel):
    nodes: list[Node]


def test_load_model_names_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text("nodes:\n  - {name: a, gpus: 8}\n  - {name: no, gpus: many}\n")
    assert _err(models.load_model, path, Inventory, what="an inventory") == (
        f"{path}: nodes[1].gpus: Input should be a valid integer, unable to parse string as an "
        "integer (got 'many')"
    )


def test_load_model_counts_further_problems_and_missing_fields(tmp_path: Path) -> None:
    path = tmp_path / "inv.json"
    path.write_text('{"nodes": [{"gpus": 8}, {"name": 1}]}')
    with pytest.raises(
        ModelError, match=r"nodes\[0\]\.name: Field required \(and 2 more problems\)$"
    ):
        models.load_model(path, Inventory, what="an inventory")


def test_load_model_yaml_no_stays_a_string(tmp_path: Path) -> None:
    path = tmp_path / "inv.yml"
    path.write_text("nodes: [{name: no, gpus: 8}]\n")
    assert models.load_model(path, Inventory, what="x").nodes[0].name == "no"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("a.json", '{"a": 1}', {"a": 1}),
        ("a.yaml", "{a: 1}", {"a": 1}),
        ("a.txt", '{"a": 1}', {"a": 1}),
        ("a.txt", "a: 1", {"a": 1}),
    ],
)
def test_load_data_picks_format(tmp_path: Path, name: str, text: str, expected: object) -> None:
    (tmp_path / name).write_text(text)
    assert formats.load_data(tmp_path / name, what="x") == expected


def test_load_json_checks_file_first(tmp_path: Path) -> None:
    files.reset_stdin()
    assert "is a directory, expected a report" in _err(formats.load_json, tmp_path, what="a report")
    (tmp_path / "r.json").write_bytes(b'{"a": 1,\n "b": "\x07"}')
    assert _err(formats.load_json, tmp_path / "r.json", what="a report") == (
        f"{tmp_path}/r.json: line 2: control character U+0007, expected a report"
    )
