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


# Readers that `make mutation` leaves out, and why. Everything else under src/gpufabric that
# reads a file or stream through the input layer must be in a group.
NOT_MUTATED = {
    "src/gpufabric/lab/": "the test lab's own harness (the lab's hosts, faults and state)",
    "src/gpufabric/cli/": "flags to library calls; each command's refusals are tested per reader",
    "src/gpufabric/inputs/": "the input layer itself: the inputs group",
    "src/gpufabric/catalog/": "tables shipped inside the package, read with inputs.packaged",
    "src/gpufabric/nccl/profiles.py": "tables shipped inside the package",
}


def test_every_module_that_reads_input_is_in_a_mutation_group() -> None:
    grouped = {m for modules, _ in _groups().values() for m in modules}
    readers = []
    for path in sorted((REPO / "src" / "gpufabric").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        text = path.read_text()
        if "gpufabric.inputs" not in text or "import" not in text:
            continue
        uses_reader = (
            any(
                name in text
                for name in ("inputs.files", "inputs.formats", "read_text_input", "load_data")
            )
            or "from gpufabric.inputs import" in text
        )
        if uses_reader and not any(rel.startswith(p) for p in NOT_MUTATED):
            readers.append(rel)
    assert readers, "the scan found no reader"
    missing = [r for r in readers if r not in grouped]
    assert not missing, f"readers in no mutation group: {missing}"


def _script():
    spec = importlib.util.spec_from_file_location(
        "mutation_score_again", REPO / "benchmarks" / "mutation_score.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_again_refuses_a_module_changed_since_the_kept_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--again` reruns only the kept run's survivors: stale mutants of a changed module would
    give a score of code that no longer exists, so it refuses and says to rerun in full."""
    script = _script()
    module = "src/gpufabric/inventory/build.py"
    work = tmp_path / "inventory"
    (work / "src/gpufabric/inventory").mkdir(parents=True)
    (work / module).write_text((REPO / module).read_text() + "\n# changed\n")
    (work / "pyproject.toml").write_text(f'[tool.mutmut]\nonly_mutate = ["{module}"]\n')
    (work / "results.txt").write_text("    gpufabric.inventory.build.x_build__mutmut_1: survived\n")
    monkeypatch.setattr(script, "SCRATCH", tmp_path)
    with pytest.raises(SystemExit, match=f"error: {module} changed since the kept run"):
        script._again("inventory", 1)


def test_again_needs_a_kept_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    monkeypatch.setattr(script, "SCRATCH", tmp_path)
    with pytest.raises(SystemExit, match="error: no kept run of inventory"):
        script._again("inventory", 1)
