"""`make mutation`'s groups name files that exist (a module or test file renamed or split
leaves a group with nothing to mutate or no test to run: mutmut then reports no results), and
every module under src/gpufabric is in a group or left out with its reason."""

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


# Modules that neither read untrusted input nor judge a result, and why: every module under
# src/gpufabric is in a group, in NOT_MUTATED, here, or a package's __init__.py (its docs,
# re-exports and one-line delegations; discovery's holds code and is in a group).
NOT_JUDGING = {
    "src/gpufabric/errors.py": "the error types and how their one line is worded",
    "src/gpufabric/extras.py": "names the optional extra that brings a missing SDK",
    "src/gpufabric/jsonout.py": "writes JSON with finite numbers only",
    "src/gpufabric/outdir.py": "makes the output folders the commands write into",
    "src/gpufabric/clouds/spec.py": "each cloud's registry entry (data)",
    "src/gpufabric/plan/runner.py": "runs the Pulumi program under mocks (the offline plan)",
    "src/gpufabric/plan/mocks.py": "the offline plan's stand-ins for the clouds' answers",
    "src/gpufabric/plan/render.py": "prints the plan",
    "src/gpufabric/plan/summary.py": "the plan's summary of what the program registered",
    "src/gpufabric/plan/summary_storage.py": "the plan's summary of the storage goal",
    "src/gpufabric/capacity/synthetic.py": "synthetic capacity for tests and benchmarks",
    "src/gpufabric/topology/synthetic.py": "synthetic topologies for tests and benchmarks",
    **{
        f"src/gpufabric/clouds/{cloud}/summary.py": "the plan's summary of what the cloud's "
        "program registered"
        for cloud in ("aws", "gcp", "azure", "oci", "nebius")
    },
    **{
        f"src/gpufabric/clouds/{cloud}/mocks.py": "the offline plan's stand-ins for the cloud's "
        "answers"
        for cloud in ("aws", "gcp", "azure", "oci")
    },
}


def test_every_module_is_in_a_group_or_left_out_with_its_reason() -> None:
    grouped = {m for modules, _ in _groups().values() for m in modules}
    src = REPO / "src" / "gpufabric"
    modules = sorted(p.relative_to(REPO).as_posix() for p in src.rglob("*.py"))
    unplaced = [
        m
        for m in modules
        if m not in grouped
        and m not in NOT_JUDGING
        and not m.endswith("/__init__.py")
        and not any(m.startswith(p) for p in NOT_MUTATED)
    ]
    assert not unplaced, f"in no mutation group and not left out with a reason: {unplaced}"
    assert not [m for m in NOT_JUDGING if m not in modules], "NOT_JUDGING names a missing file"
    assert not [m for m in NOT_JUDGING if m in grouped], "a module both grouped and left out"


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
