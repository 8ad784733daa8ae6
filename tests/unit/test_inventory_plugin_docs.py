"""The inventory plugin's documentation is what ansible-doc and Ansible's option parser read:
it must parse as YAML and name every option the plugin asks for."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

PLUGIN = Path(__file__).resolve().parents[2] / "plugins/inventory/gpufabric_pulumi.py"


def _literal(name: str) -> str:
    for node in ast.parse(PLUGIN.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == name:
            value = ast.literal_eval(node.value)
            assert isinstance(value, str)
            return value
    raise AssertionError(f"{PLUGIN.name} has no {name}")


def test_documentation_parses_and_names_every_option_used() -> None:
    doc = yaml.safe_load(_literal("DOCUMENTATION"))
    used = set(re.findall(r"get_option\(\"(\w+)\"\)", PLUGIN.read_text()))
    assert used and used <= set(doc["options"]), used - set(doc["options"])
    assert doc["name"] == "gpufabric_pulumi"


def test_the_example_is_a_valid_inventory_source() -> None:
    example = yaml.safe_load(_literal("EXAMPLES"))
    assert example["plugin"] == "gpufabric_pulumi"
    options = set(yaml.safe_load(_literal("DOCUMENTATION"))["options"])
    assert set(example) <= options
