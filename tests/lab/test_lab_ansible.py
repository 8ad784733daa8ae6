"""Ansible from the normal shell against the session lab: ping, a play, idempotence, summary."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from gpufabric.lab.handle import LabHandle, venv_bin
from gpufabric.lab.lab import INOTIFY_FLOOR

pytestmark = pytest.mark.lab
SMOKE = Path(__file__).parent / "playbooks" / "smoke.yml"


def recap(output: str) -> dict[str, dict[str, int]]:
    from gpufabric.lab.summary import parse_recap

    counts = parse_recap(output)
    assert counts, f"no PLAY RECAP in:\n{output}"
    return counts


def test_inventory_groups_match_the_lab(lab: LabHandle) -> None:
    inv = yaml.safe_load(lab.inventory.read_text())["all"]
    children = inv["children"]
    assert set(children["gpu_nodes"]["hosts"]) == {"h1", "h2", "h3", "h4"}
    assert set(children["leaf1"]["hosts"]) == {"h1", "h2"}
    assert set(children["leaf2"]["hosts"]) == {"h3", "h4"}
    assert list(children["controller"]["hosts"]) == ["h1"]
    assert inv["vars"]["gpufabric_fabric"] == "lab"
    assert inv["vars"]["gpufabric_encryption"] == "none"
    for host, hv in children["gpu_nodes"]["hosts"].items():
        assert hv["ansible_host"] == lab.addresses[host]
        assert hv["gpufabric_leaf"] == lab.leaves[host]


def test_ansible_ping_over_the_inventory(lab: LabHandle) -> None:
    proc = subprocess.run(
        [venv_bin("ansible"), "-i", str(lab.inventory), "gpu_nodes", "-m", "ansible.builtin.ping"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(re.findall(r'"ping": "pong"', proc.stdout)) == 4


def test_smoke_play_runs_then_changes_nothing(lab: LabHandle) -> None:
    first = lab.ansible_playbook(SMOKE)
    assert first.returncode == 0, first.stdout + first.stderr
    counts = recap(first.stdout)
    assert set(counts) == set(lab.hosts)
    assert all(c["failed"] == 0 and c["unreachable"] == 0 for c in counts.values())
    second = lab.ansible_playbook(SMOKE)
    assert second.returncode == 0, second.stdout + second.stderr
    assert all(c["changed"] == 0 for c in recap(second.stdout).values()), second.stdout
    check = lab.ansible_playbook(SMOKE, "--check", "--diff")
    assert check.returncode == 0, check.stdout + check.stderr
    for host in lab.hosts:  # the template landed on the right host with that host's facts
        text = lab.run(host, "cat", "/etc/gpufabric-lab-smoke.txt").stdout
        assert f"host={host}\nhostname={host}\nleaf={lab.leaves[host]}\n" in text
        assert f"address={lab.addresses[host]}" in text
        assert re.search(r"^systemd=(running|degraded)$", text, re.M), text


def test_hosts_run_systemd_as_pid1_and_are_isolated(lab: LabHandle) -> None:
    for key, floor in INOTIFY_FLOOR.items():  # so many hosts' systemd can boot cleanly
        assert int((Path("/proc/sys") / key).read_text()) >= floor
    assert lab.boot == dict.fromkeys(lab.hosts, "running")  # no unit failed at boot
    for host in lab.hosts:
        assert lab.run(host, "cat", "/proc/1/comm").stdout.strip() == "systemd"
        assert lab.run(host, "hostname").stdout.strip() == host
    ids = {lab.run(h, "cat", "/etc/machine-id").stdout for h in lab.hosts}
    assert len(ids) == len(lab.hosts)
    # /proc/sys/net is the host's own; vm.* / kernel.* stay read-only (machine untouched)
    assert lab.run("h1", "sysctl", "-w", "net.core.somaxconn=1024", check=False).returncode == 0
    assert lab.run("h1", "sysctl", "-w", "vm.swappiness=1", check=False).returncode != 0


def test_summary_lists_managed_files_and_recap(lab: LabHandle, tmp_path: Path) -> None:
    run = lab.ansible_playbook(SMOKE)
    log = tmp_path / "run.log"
    log.write_text(run.stdout)
    proc = subprocess.run(
        [venv_bin("gpufabric"), "lab", "summary", "--name", lab.name, "--recap", str(log)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for host in lab.hosts:
        assert re.search(
            rf"^{host} \({re.escape(lab.addresses[host])}, leaf\d\): ok=\d+ "
            r"changed=0 failed=0",
            proc.stdout,
            re.M,
        ), proc.stdout
    assert proc.stdout.count("/etc/gpufabric-lab-smoke.txt: 7 settings") == 4, proc.stdout
