"""The strict YAML reader at its edges: explicit `!!int` / `!!float` tags held to YAML 1.2's
forms (one line, never a traceback, never NaN), the node and depth bounds exact (composed and
once aliases are expanded), and the YAML 1.2 resolver table as built."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.errors import UserError
from gpufabric.inputs import formats, yaml12


def _error(text: str, **limits: int) -> str:
    with pytest.raises(UserError) as err:
        formats.parse_yaml(text, where="f", **limits)
    return str(err.value)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: !!int 0xg", "f: line 1: '0xg' is not an integer (YAML)"),
        ("a: 1\nb: !!int 0o9", "f: line 2: '0o9' is not an integer (YAML)"),
        ("a: !!int 0x", "f: line 1: '0x' is not an integer (YAML)"),
        ("a: !!int abc", "f: line 1: 'abc' is not an integer (YAML)"),
        ("a: !!int 1_000", "f: line 1: '1_000' is not an integer (YAML)"),
        ('a: !!int "\u0661\u0662"', "f: line 1: '\u0661\u0662' is not an integer (YAML)"),
        ("a: !!float nan", "f: line 1: 'nan' is not a number (YAML)"),
        ("a: !!float inf", "f: line 1: 'inf' is not a number (YAML)"),
        ("a: !!float 1_0", "f: line 1: '1_0' is not a number (YAML)"),
        ("\na: !!float abc", "f: line 2: 'abc' is not a number (YAML)"),
        ('a: !!float " 1.5 "', "f: line 1: ' 1.5 ' is not a number (YAML)"),
        ("a: !!float -.Inf", "f: line 1: -.Inf is not a number gpufabric accepts (YAML)"),
        ("a: !!float 1e400", "f: line 1: 1e400 is out of range (YAML)"),
        ("a: -1e400", "f: line 1: -1e400 is out of range (YAML)"),
    ],
)
def test_an_explicit_number_tag_takes_only_yaml_1_2_numbers(text: str, line: str) -> None:
    assert _error(text) == line


def test_an_explicit_number_tag_on_a_yaml_1_2_number_is_read() -> None:
    doc = "a: !!int 0x1F\nb: !!int -7\nc: !!float 1\nd: !!float -.5e1\ne: !!int 0o17"
    assert formats.parse_yaml(doc, where="f") == {"a": 31, "b": -7, "c": 1.0, "d": -5.0, "e": 15}


def test_the_node_limit_holds_at_its_edge() -> None:
    text = "- 1\n- 2\n- 3\n"  # four nodes: the list and three scalars
    assert formats.parse_yaml(text, where="f", max_nodes=4) == [1, 2, 3]
    assert _error(text, max_nodes=3) == "f: line 3: more than 3 values (YAML)"


def test_depth_falls_back_after_each_finished_node() -> None:
    # the deepest point follows a finished sibling: [ [ 1, [ [ 1 ] ] ] ] nests 5 deep
    assert _error("[[1, [[1]]]]", max_depth=4) == "f: line 1: nested deeper than 4 levels (YAML)"
    assert formats.parse_yaml("[[1, [1]]]", where="f", max_depth=4) == [[1, [1]]]


ALIASED = "a: &x [1, 2]\nb: [*x, *x]\n"  # 7 nodes written, 13 once the aliases are expanded


def test_the_node_limit_counts_what_aliases_expand_to_at_its_edge() -> None:
    assert formats.parse_yaml(ALIASED, where="f", max_nodes=13) == {
        "a": [1, 2],
        "b": [[1, 2], [1, 2]],
    }
    assert _error(ALIASED, max_nodes=12) == (
        "f: line 1: aliases expand to more than 12 values (YAML)"
    )


def test_the_depth_limit_counts_what_aliases_expand_to_at_its_edge() -> None:
    text = "a: &x [[1]]\nb: [*x]\n"  # 4 levels written, 5 once *x is expanded under b
    assert formats.parse_yaml(text, where="f", max_depth=5) == {"a": [[1]], "b": [[[1]]]}
    assert _error(text, max_depth=4) == "f: line 1: aliases nest deeper than 4 levels (YAML)"


def _fresh(text: str) -> Any:
    """`text` read by a StrictLoader whose resolver table is built anew, here (the module's
    own was built at import, before any test)."""
    fresh = type("Fresh", (yaml12.StrictLoader,), {"yaml_implicit_resolvers": yaml12._resolvers()})
    loader = fresh(text, max_depth=8, max_nodes=100)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def test_the_resolver_table_gives_yaml_1_2_core_scalars() -> None:
    nulls = "- ~\n- null\n- Null\n- NULL\n-\n- nULL\n"
    assert _fresh(nulls) == [None, None, None, None, None, "nULL"]
    bools = "[true, True, TRUE, false, False, FALSE, yes, no, on, tRUE]"
    assert _fresh(bools) == [True, True, True, False, False, False, "yes", "no", "on", "tRUE"]
    ints = "[0, -1, +2, 3, 4, 5, 6, 7, 8, 9, 0x1F, 0o17, 1_000, 0b11]"
    assert _fresh(ints) == [0, -1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 15, "1_000", "0b11"]
    floats = "[.5, -1.5, +2.5, 1e3, 3., 0.25]"
    assert _fresh(floats) == [0.5, -1.5, 2.5, 1000.0, 3.0, 0.25]
    assert _fresh("[2001-12-14, 1:20, .x]") == ["2001-12-14", "1:20", ".x"]
