"""host_tuning's sysctl plan from its probe, and the per-host run summary."""

from __future__ import annotations

import pytest

from gpufabric.errors import UserError
from gpufabric.facts import report, sysctl

WANTED = [
    {"name": "net.ipv4.tcp_rmem", "value": "4096 87380 268435456", "why": "windows"},
    {"name": "net.ipv4.tcp_mtu_probing", "value": 1, "why": "jumbo"},
    {"name": "net.core.rmem_max", "value": 268435456, "why": "cap"},
    {"name": "kernel.numa_balancing", "value": 0, "why": "numa"},
    {"name": "net.core.netdev_max_backlog", "value": 250000, "why": "backlog"},
]
# What the probe script prints on a lab host (measured there: net.core.rmem_max is read-only
# and netdev_max_backlog absent inside a host's own network namespace; tcp_rmem has tabs).
LAB_PROBE = (
    "net.ipv4.tcp_rmem|writable|4096\t87380\t268435456\n"
    "net.ipv4.tcp_mtu_probing|writable|0\n"
    "net.core.rmem_max|read-only|212992\n"
    "kernel.numa_balancing|read-only|1\n"
    "net.core.netdev_max_backlog|absent|\n"
)


def test_plan_applies_writable_and_skips_the_rest_in_one_line():
    plan = sysctl.plan(WANTED, LAB_PROBE)
    assert [s["name"] for s in plan["apply"]] == ["net.ipv4.tcp_rmem", "net.ipv4.tcp_mtu_probing"]
    assert plan["differ"] == ["net.ipv4.tcp_mtu_probing"]  # tabs vs spaces are equal
    assert [s["name"] for s in plan["skipped"]] == [
        "net.core.rmem_max",
        "kernel.numa_balancing",
        "net.core.netdev_max_backlog",
    ]
    assert plan["line"].startswith(
        "host_tuning: sysctl skipped net.core.rmem_max, kernel.numa_balancing: read-only here"
    )
    assert "net.core.netdev_max_backlog: not present" in plan["line"]
    assert "\n" not in plan["line"]


def test_plan_on_a_host_that_can_change_everything_has_no_skip_line():
    probe = "".join(f"{w['name']}|writable|{w['value']}\n" for w in WANTED)
    plan = sysctl.plan(WANTED, probe)
    assert plan["line"] == "" and plan["differ"] == [] and len(plan["apply"]) == len(WANTED)


def test_bad_probe_line():
    with pytest.raises(UserError, match="unexpected sysctl probe line"):
        sysctl.plan(WANTED, "net.ipv4.tcp_rmem=4096\n")


def test_run_summary_line():
    hostvars = {
        "gpufabric_facts": {"summary": "h1: no GPU, no RDMA (fabric none); netdevs eth0 mtu 1500"},
        "host_tuning_result": {
            "applied": ["a", "b"],
            "skipped": ["kernel.numa_balancing"],
            "memlock": "unlimited",
            "nofile": 1048576,
            "hugepages": False,
            "cpu_governor": False,
        },
        "efa_result": {"run": False, "reason": "x"},
        "nccl_result": {"profile": "lab", "lab": True, "settings": ["NCCL_SOCKET_IFNAME"]},
    }
    line = report.run_summary(hostvars, "h1")
    assert line == (
        "h1: no GPU, no RDMA (fabric none); netdevs eth0 mtu 1500; sysctl 2 set / 1 "
        "skipped (kernel.numa_balancing), limits memlock unlimited nofile 1048576; "
        "efa skipped; doca_ofed did not run; nccl profile lab (LAB): NCCL_SOCKET_IFNAME"
    )
