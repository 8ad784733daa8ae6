"""`make mutation`'s groups name files that exist: a module or test file renamed or split
leaves a group with nothing to mutate or no test to run (mutmut then reports no results)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _groups() -> dict[str, tuple[list[str], list[str]]]:
    spec = importlib.util.spec_from_file_location(
        "mutation_score", REPO / "benchmarks" / "mutation_score.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.GROUPS


@pytest.mark.parametrize("group", sorted(_groups()))
def test_every_group_names_existing_modules_and_tests(group: str) -> None:
    modules, tests = _groups()[group]
    assert modules and tests
    missing = [f for f in [*modules, *tests] if not (REPO / f).is_file()]
    assert not missing, f"{group}: {missing}"
