"""playbooks/preflight.yml stops a bad inventory before any host is contacted.

The target hosts point at a closed port on loopback: had a play after the preflight run,
they would show up as unreachable in the recap.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def run(tmp_path: Path, group: str = "gpu_nodes", **hostvars: str) -> subprocess.CompletedProcess:
    hosts = {f"n{i}": {"ansible_host": "127.0.0.1", "ansible_port": 1, **hostvars} for i in (1, 2)}
    inv = tmp_path / "inventory.yml"
    inv.write_text(yaml.safe_dump({"all": {"children": {group: {"hosts": hosts}}}}))
    return subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            "-i",
            str(inv),
            "playbooks/tune-fabric.yml",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("hostvars", "message"),
    [
        (
            {"gpufabric_fabric": "ethernet", "gpufabric_encryption": "none"},
            "n1: gpufabric_fabric: 'ethernet' is not valid; use one of "
            "efa, infiniband, roce, tcpxo, tcpx, lab",
        ),
        (
            {"gpufabric_fabric": "lab", "gpufabric_encryption": "tls"},
            "n1: gpufabric_encryption: 'tls' is not valid; use one of provider-native, ipsec, none",
        ),
        ({"gpufabric_encryption": "none"}, "n1: gpufabric_fabric: (unset) is not valid"),
        (
            {"gpufabric_fabric": "tcpx", "gpufabric_encryption": "nope"},
            "n1: gpufabric_encryption: 'nope' is not valid",
        ),
    ],
)
def test_bad_switches_stop_before_any_host(tmp_path: Path, hostvars: dict, message: str):
    proc = run(tmp_path, **hostvars)
    assert proc.returncode != 0
    assert message in proc.stdout
    assert "n1 " not in proc.stdout.split("PLAY RECAP")[-1]  # no host was ever contacted
    assert "UNREACHABLE" not in proc.stdout


def test_missing_target_group(tmp_path: Path):
    proc = run(tmp_path, group="nodes", gpufabric_fabric="lab", gpufabric_encryption="none")
    assert proc.returncode != 0
    assert "inventory has no host in group 'gpu_nodes'" in proc.stdout
    assert "UNREACHABLE" not in proc.stdout


def test_control_good_switches_pass_preflight_and_reach_for_the_hosts(tmp_path: Path):
    """Control for the tests above: with valid switches the next play does contact the hosts."""
    proc = run(tmp_path, gpufabric_fabric="lab", gpufabric_encryption="none")
    assert "preflight: 2 host(s) in 'gpu_nodes', fabric lab, encryption none" in proc.stdout
    assert "UNREACHABLE" in proc.stdout
