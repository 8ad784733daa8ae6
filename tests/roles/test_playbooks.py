"""Every playbook passes ansible-playbook --syntax-check; templates head with ansible_managed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLAYBOOKS = sorted((REPO / "playbooks").glob("*.yml"))
MY_ROLES = ("fabric_facts", "host_tuning", "efa", "doca_ofed", "nccl")


@pytest.mark.parametrize("playbook", PLAYBOOKS, ids=lambda p: p.name)
def test_syntax_check(playbook: Path):
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            "--syntax-check",
            "-i",
            "localhost,",
            str(playbook),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_tune_fabric_runs_preflight_first_then_the_roles_in_order():
    import yaml

    plays = yaml.safe_load((REPO / "playbooks" / "tune-fabric.yml").read_text())
    assert plays[0]["ansible.builtin.import_playbook"] == "preflight.yml"
    roles = [r["role"] for r in plays[1]["roles"]]
    assert roles[0] == "fabric_facts"  # every later role decides from its facts
    assert [r for r in roles if r in MY_ROLES] == list(MY_ROLES)  # others may be inserted
    pre = yaml.safe_load((REPO / "playbooks" / "preflight.yml").read_text())
    assert all("always" in play["tags"] for play in pre)


@pytest.mark.parametrize(
    "template",
    sorted(t for r in MY_ROLES for t in (REPO / "roles" / r).glob("templates/*.j2")),
    ids=lambda p: p.name,
)
def test_templates_start_with_ansible_managed(template: Path):
    assert template.read_text().startswith("{{ ansible_managed | comment }}")
