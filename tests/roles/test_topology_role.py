"""roles/topology: interface kept in sync, playbook parses, templates render valid input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jinja2
import yaml

from gpufabric.topology.sources import file

REPO = Path(__file__).resolve().parents[2]
ROLE = REPO / "roles" / "topology"


def test_playbook_syntax_check() -> None:
    bindir = Path(sys.executable).parent
    result = subprocess.run(
        [
            str(bindir / "ansible-playbook"),
            "--syntax-check",
            "-i",
            "localhost,",
            "playbooks/topology.yml",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_inventory_template_renders_a_valid_file_topology() -> None:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROLE / "templates"))
    env.filters["comment"] = lambda s: "# " + s
    env.filters["to_json"] = lambda v: __import__("json").dumps(v)

    def extract(key: str, container: dict) -> object:
        return container[key]

    env.filters["extract"] = extract
    hostvars = {
        "h1": {"gpufabric_leaf": "leaf1", "ansible_host": "10.0.0.11"},
        "h2": {"gpufabric_leaf": "leaf1", "ansible_host": "10.0.0.12"},
        "h3": {
            "gpufabric_leaf": "leaf2",
            "ansible_host": "10.0.0.13",
            "gpufabric_nvlink_domain": "nvl7",
        },
    }
    text = env.get_template("inventory-topology.yml.j2").render(
        ansible_managed="managed",
        topology_nodes=list(hostvars),
        hostvars=hostvars,
        topology_node_name_var="",
        topology_path_vars=["gpufabric_leaf"],
        topology_nvlink_var="gpufabric_nvlink_domain",
    )
    t = file.parse(yaml.safe_load(text))
    assert {h.name: h.leaf for h in t.hosts} == {"h1": "leaf1", "h2": "leaf1", "h3": "leaf2"}
    assert t.by_name()["h3"].nvlink_domain == "nvl7"
    assert t.by_name()["h2"].address == "10.0.0.12"
