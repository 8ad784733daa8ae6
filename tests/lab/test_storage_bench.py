"""storage-benchmark.yml on the session lab's 4 real hosts.

The lab's shared directory (/srv/gpufabric-shared, one directory on the machine that every
host sees) stands in for Lustre. Small sizes keep this to seconds per phase: the point is that
the playbook runs on real hosts, the phases line up across nodes, and the gate passes a goal
the lab meets and fails one it cannot, each with one line naming the figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufabric.lab.handle import LabHandle
from gpufabric.lab.summary import parse_recap

pytestmark = pytest.mark.lab
PLAYBOOK = "playbooks/storage-benchmark.yml"
SMALL = [
    "-e", "storage_bench_jobs=2",
    "-e", "storage_bench_file_size=16M",
    "-e", "storage_bench_md_files=200",
    "-e", "storage_bench_start_delay_s=2",
    "-e", "storage_bench_manage_packages=false",  # fio is in the lab image; no network
]  # fmt: skip


def test_storage_benchmark_passes_a_met_goal_and_fails_an_impossible_one(
    lab: LabHandle, tmp_path: Path
) -> None:
    results = tmp_path / "storage"
    met = lab.ansible_playbook(
        PLAYBOOK, *SMALL, "-e", f"storage_bench_results_dir={results}",
        "-e", "storage_bench_goal_size_gib=1", "-e", "storage_bench_goal_write_seconds=600",
    )  # fmt: skip
    assert met.returncode == 0, met.stdout[-6000:] + met.stderr
    recap = parse_recap(met.stdout)
    assert all(recap[h]["failed"] == 0 and recap[h]["unreachable"] == 0 for h in lab.hosts)
    report = json.loads((results / "report" / "report.json").read_text())
    assert report["passed"] and report["hosts"] == sorted(lab.hosts)
    (write,) = [v for v in report["verdicts"] if v["check"] == "write"]
    assert write["status"] == "pass" and write["subject"] == "4 nodes"
    assert write["message"].endswith(">= goal 0.002 GB/s (a 1 GiB checkpoint in 600 s)")
    assert report["figures"]["write_gbps"] > 0 and report["figures"]["read_gbps"] > 0
    assert report["figures"]["creates_per_s"] > 0
    # every node read another node's shards, and the clean phase left nothing behind
    for host in lab.hosts:
        assert lab.run(host, "ls", "-A", "/srv/gpufabric-shared").stdout.strip() == ""

    impossible = lab.ansible_playbook(
        PLAYBOOK, *SMALL, "-e", f"storage_bench_results_dir={results}",
        "-e", "storage_bench_goal_size_gib=100000", "-e", "storage_bench_goal_write_seconds=1",
    )  # fmt: skip
    assert impossible.returncode != 0
    recap = parse_recap(impossible.stdout)  # a second run: nothing changes on the nodes
    assert all(recap[h]["changed"] == 0 and recap[h]["failed"] == 0 for h in lab.hosts), (
        impossible.stdout[-4000:]
    )
    fails = [line for line in impossible.stdout.splitlines() if "storage gate FAILED" in line]
    assert fails, impossible.stdout[-4000:]
    assert "write 4 nodes:" in fails[0] and "< goal 107374.182 GB/s" in fails[0]

    check = lab.ansible_playbook(
        PLAYBOOK, *SMALL, "--check", "-e", f"storage_bench_results_dir={results}"
    )
    assert check.returncode == 0, check.stdout[-4000:] + check.stderr
    recap = parse_recap(check.stdout)
    assert all(recap[h]["changed"] == 0 and recap[h]["failed"] == 0 for h in lab.hosts)
