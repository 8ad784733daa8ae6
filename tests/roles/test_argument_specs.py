"""Every role under roles/: meta/argument_specs.yml options match defaults/main.yml keys."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROLES = Path(__file__).resolve().parents[2] / "roles"
ALL_ROLES = sorted(p.name for p in ROLES.iterdir() if (p / "tasks").is_dir())
# The stricter checks below are this file's owner's roles; the key check covers every role.
TUNE_FABRIC_ROLES = ["fabric_facts", "host_tuning", "efa", "doca_ofed", "nccl"]


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text()) or {} if path.exists() else {}


def test_roles_exist():
    assert set(TUNE_FABRIC_ROLES) <= set(ALL_ROLES)


@pytest.mark.parametrize("role", ALL_ROLES)
def test_argument_specs_match_defaults(role: str):
    defaults = load(ROLES / role / "defaults" / "main.yml")
    specs = load(ROLES / role / "meta" / "argument_specs.yml")
    assert specs, f"{role}: meta/argument_specs.yml missing or empty"
    options = specs["argument_specs"]["main"].get("options") or {}
    assert set(options) == set(defaults), (
        f"{role}: only in defaults {sorted(set(defaults) - set(options))}, "
        f"only in argument_specs {sorted(set(options) - set(defaults))}")


@pytest.mark.parametrize("role", TUNE_FABRIC_ROLES)
def test_spec_defaults_equal_defaults(role: str):
    defaults = load(ROLES / role / "defaults" / "main.yml")
    specs = load(ROLES / role / "meta" / "argument_specs.yml")
    options = specs.get("argument_specs", {}).get("main", {}).get("options") or {}
    for name, spec in options.items():
        if "default" in spec:
            assert spec["default"] == defaults.get(name), f"{role}: {name} default differs"


@pytest.mark.parametrize("role", TUNE_FABRIC_ROLES)
def test_role_conventions(role: str):
    """Prefixed inputs, a README, and tasks/main.yml as a table of contents."""
    defaults = load(ROLES / role / "defaults" / "main.yml")
    assert all(key.startswith(f"{role}_") for key in defaults), f"{role}: unprefixed input"
    assert (ROLES / role / "README.md").exists()
    main = yaml.safe_load((ROLES / role / "tasks" / "main.yml").read_text())
    for task in main:
        assert {"ansible.builtin.import_tasks", "ansible.builtin.include_tasks"} & set(task), (
            f"{role}: tasks/main.yml should only import/include phase files")
