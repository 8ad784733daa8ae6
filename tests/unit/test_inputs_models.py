"""Loading into pydantic models, word for word: the first problem as one line naming the file
and the field as written in it, the value shown (cut at 80 characters) unless it is a whole
list or mapping, and how many more problems there are."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from gpufabric.errors import UserError
from gpufabric.inputs import files, models


class Node(BaseModel):
    name: str
    gpus: int


class Inventory(BaseModel):
    nodes: list[Node]


def _error(data: object) -> str:
    with pytest.raises(UserError) as err:
        models.validate(Inventory, data, where="inv.json")
    return str(err.value)


def test_a_problem_at_the_top_level_is_named_so() -> None:
    assert _error([1]) == (
        "inv.json: (top level): Input should be a valid dictionary or instance of Inventory"
    )


def test_a_list_or_mapping_given_for_a_value_is_not_shown() -> None:
    assert _error({"nodes": [{"name": "a", "gpus": {"x": 1}}]}) == (
        "inv.json: nodes[0].gpus: Input should be a valid integer"
    )


def test_a_value_is_shown_whole_up_to_80_characters_then_cut() -> None:
    fits = "x" * 78  # 80 with its quotes
    assert _error({"nodes": [{"name": "a", "gpus": fits}]}).endswith(f"(got '{fits}')")
    cut = _error({"nodes": [{"name": "a", "gpus": "x" * 79}]})
    assert cut.endswith("(got '" + "x" * 76 + "...)")


def test_further_problems_are_counted_in_words() -> None:
    one_more = {"nodes": [{"name": 1, "gpus": "x"}]}
    assert _error(one_more) == (
        "inv.json: nodes[0].name: Input should be a valid string (got 1) (and 1 more problem)"
    )
    assert _error({"nodes": [{"name": 1, "gpus": "x"}, {"name": 2, "gpus": 1}]}).endswith(
        "(got 1) (and 2 more problems)"
    )


def test_load_model_reads_by_suffix_with_its_limits(tmp_path: Path) -> None:
    path = tmp_path / "inv.json"
    path.write_text('{"nodes": [{"name": "a", "gpus": NaN}]}')  # YAML would read "NaN"
    with pytest.raises(UserError) as err:
        models.load_model(path, Inventory, what="an inventory")
    assert str(err.value) == f"{path}: line 1: 'gpus': NaN is not a number gpufabric accepts (JSON)"
    with pytest.raises(UserError) as err:
        models.load_model(path, Inventory, what="an inventory", max_bytes=10)
    assert str(err.value) == f"{path}: 39 bytes, too large for an inventory"
    yaml_named = tmp_path / "inv.yaml"
    yaml_named.write_text('{"nodes": [{"name": "a", "gpus": 8, "gpus": 8}]}')
    with pytest.raises(UserError) as err:
        models.load_model(yaml_named, Inventory, what="an inventory", fmt="json")
    assert str(err.value) == f"{yaml_named}: key 'gpus' given twice in one JSON object"


def test_load_model_from_standard_input_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    files.reset_stdin()
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"nodes": [{"name": "a"}]}'))
    with pytest.raises(UserError) as err:
        models.load_model("-", Inventory, what="an inventory")
    assert str(err.value) == "- (standard input): nodes[0].gpus: Field required"
    files.reset_stdin()
