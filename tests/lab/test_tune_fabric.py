"""tune-fabric.yml on the session lab's 4 real hosts: runs clean, then changes nothing, and
a --check --diff run is clean; what it configured is really on the hosts."""

from __future__ import annotations

import pytest

from gpufabric.lab.handle import LabHandle
from gpufabric.lab.summary import parse_recap

pytestmark = pytest.mark.lab
PLAYBOOK = "playbooks/tune-fabric.yml"


def counts(output: str) -> dict[str, dict[str, int]]:
    recap = parse_recap(output)
    assert recap, f"no PLAY RECAP in:\n{output[-3000:]}"
    return recap


def test_tune_fabric_first_run_second_run_and_check(lab: LabHandle) -> None:
    first = lab.ansible_playbook(PLAYBOOK)
    assert first.returncode == 0, first.stdout[-6000:] + first.stderr
    recap = counts(first.stdout)
    assert set(lab.hosts) <= set(recap)
    assert all(recap[h]["failed"] == 0 and recap[h]["unreachable"] == 0 for h in lab.hosts)
    # each hardware role said in one line what it skipped and why, on every host
    for line in (
        "efa: skipped, no EFA device",
        "doca_ofed: skipped, no ConnectX",
        "host_tuning: sysctl skipped",
        "kernel.numa_balancing",
        "host_tuning: hugepages skipped, no EFA device",
    ):
        assert first.stdout.count(line) >= len(lab.hosts), line
    for host in lab.hosts:
        assert f'"msg": "{host}: no GPU, no RDMA (fabric none)' in first.stdout  # summary play

    second = lab.ansible_playbook(PLAYBOOK)
    assert second.returncode == 0, second.stdout[-6000:] + second.stderr
    recap = counts(second.stdout)
    assert all(recap[h]["changed"] == 0 and recap[h]["failed"] == 0 for h in lab.hosts), (
        second.stdout[-6000:]
    )

    check = lab.ansible_playbook(PLAYBOOK, "--check", "--diff")
    assert check.returncode == 0, check.stdout[-6000:] + check.stderr
    recap = counts(check.stdout)
    assert all(recap[h]["changed"] == 0 and recap[h]["failed"] == 0 for h in lab.hosts), (
        check.stdout[-6000:]
    )

    # the state is really there (read inside each host, not through Ansible)
    for host in lab.hosts:
        conf = lab.run(host, "cat", "/etc/nccl.conf").stdout
        assert "NCCL_SOCKET_IFNAME==eth0" in conf and "NCCL_IB_DISABLE=1" in conf
        assert "Ansible managed" in conf and "THE LAB" in conf
        assert lab.run(host, "sysctl", "-n", "net.ipv4.tcp_mtu_probing").stdout.strip() == "1"
        rmem = lab.run(host, "sysctl", "-n", "net.ipv4.tcp_rmem").stdout.split()
        assert rmem == ["4096", "87380", "268435456"]
        limits = lab.run(host, "systemctl", "show", "--property=DefaultLimitMEMLOCK").stdout
        assert limits.strip() == "DefaultLimitMEMLOCK=infinity"
        persisted = lab.run(host, "cat", "/etc/sysctl.d/90-gpufabric.conf").stdout
        assert "net.ipv4.tcp_mtu_probing = 1" in persisted
        assert "# skipped kernel.numa_balancing" in persisted
