"""Every role under roles/ held to the same conventions: meta/argument_specs.yml in sync with
defaults/main.yml, role-prefixed inputs, a README, tasks/main.yml as a table of contents."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROLES = Path(__file__).resolve().parents[2] / "roles"
ALL_ROLES = sorted(p.name for p in ROLES.iterdir() if (p / "tasks").is_dir())


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text()) or {} if path.exists() else {}


def test_roles_exist():
    assert {
        "fabric_facts",
        "host_tuning",
        "ipsec",
        "efa",
        "doca_ofed",
        "roce_qos",
        "nccl",
        "nccl_tests",
        "topology",
    } <= set(ALL_ROLES)


@pytest.mark.parametrize("role", ALL_ROLES)
def test_argument_specs_match_defaults(role: str):
    defaults = load(ROLES / role / "defaults" / "main.yml")
    specs = load(ROLES / role / "meta" / "argument_specs.yml")
    assert specs, f"{role}: meta/argument_specs.yml missing or empty"
    options = specs["argument_specs"]["main"].get("options") or {}
    assert set(options) == set(defaults), (
        f"{role}: only in defaults {sorted(set(defaults) - set(options))}, "
        f"only in argument_specs {sorted(set(options) - set(defaults))}"
    )


@pytest.mark.parametrize("role", ALL_ROLES)
def test_spec_defaults_equal_defaults(role: str):
    defaults = load(ROLES / role / "defaults" / "main.yml")
    specs = load(ROLES / role / "meta" / "argument_specs.yml")
    options = specs.get("argument_specs", {}).get("main", {}).get("options") or {}
    for name, spec in options.items():
        if "default" in spec:
            assert spec["default"] == defaults.get(name), f"{role}: {name} default differs"
        templated = isinstance(defaults.get(name), str) and "{{" in defaults[name]
        if "choices" in spec and not templated:
            assert defaults.get(name) in spec["choices"], f"{role}: {name} default not a choice"


@pytest.mark.parametrize("role", ALL_ROLES)
def test_role_conventions(role: str):
    """Prefixed inputs, a README, and tasks/main.yml as a table of contents."""
    defaults = load(ROLES / role / "defaults" / "main.yml")
    assert all(key.startswith(f"{role}_") for key in defaults), f"{role}: unprefixed input"
    assert (ROLES / role / "README.md").exists()
    main = yaml.safe_load((ROLES / role / "tasks" / "main.yml").read_text())
    for task in main:
        assert {"ansible.builtin.import_tasks", "ansible.builtin.include_tasks"} & set(task), (
            f"{role}: tasks/main.yml should only import/include phase files"
        )
