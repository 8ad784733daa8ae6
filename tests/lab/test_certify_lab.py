"""`gpufabric certify` on 8 real lab hosts (2 leaves) configured by tune-fabric, with the lab's
Slurm holding the nodes: one host's link slowed and another's MTU changed are held with their
stage and reason while the 6 others are released; with no fault (and a checkpoint goal the
lab's shared directory meets, measured by the storage bench from all 8 at once) every host is
released; with a goal no file system meets, every host is held at stage 6.

The lab is this module's own (8 hosts; the session lab has 4): `gfcert<pid>`, taken down at
the end. GPUFABRIC_CERTIFY_LAB_NAME=<name> reuses a running lab instead (left running).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.lab.conftest import require_lab_machine
from tests.lab.slurm import slurm_conf

from gpufabric.certify.hosts import PREFIX
from gpufabric.lab.handle import LabHandle, process_lab_name, reap_stale_labs, venv_bin

pytestmark = pytest.mark.lab
PREFIX_LAB = "gfcert"
SLURM_CLEANUP = (
    "systemctl stop slurmctld munge; rm -rf /etc/slurm/slurm.conf /var/lib/slurm/gfcert "
    "/var/log/slurm/slurmctld.log"
)


@pytest.fixture(scope="module")
def lab8() -> Iterator[LabHandle]:
    require_lab_machine()
    reuse = os.environ.get("GPUFABRIC_CERTIFY_LAB_NAME")
    if reuse:
        handle = LabHandle.attach(reuse)
    else:
        reap_stale_labs(PREFIX_LAB)
        handle = LabHandle.start(process_lab_name(PREFIX_LAB), nodes=8, leaves=2)
    try:
        if not reuse:
            tuned = handle.ansible_playbook("playbooks/tune-fabric.yml")
            assert tuned.returncode == 0, tuned.stdout[-4000:] + tuned.stderr
        host = handle.controller
        handle.run(
            host,
            "sh",
            "-c",
            "mkdir -p /var/lib/slurm/gfcert /var/log/slurm && cat > /etc/slurm/slurm.conf",
            input_text=slurm_conf("gfcert", host, handle.hosts),
        )
        handle.sh(
            host, "systemctl start munge slurmctld && sleep 1 && systemctl is-active slurmctld"
        )
        yield handle
    finally:
        handle.sh(handle.controller, SLURM_CLEANUP, check=False)
        if not reuse:
            handle.stop()


# The storage bench at the sizes its own lab test uses (seconds per phase; fio is in the image).
SMALL_BENCH = {
    "storage_bench_jobs": 2,
    "storage_bench_file_size": "16M",
    "storage_bench_md_files": 200,
    "storage_bench_start_delay_s": 2,
    "storage_bench_manage_packages": False,
}


def with_goal(lab: LabHandle, where: Path, goal: dict[str, Any]) -> Path:
    """An inventory folder: the lab's inventory plus a checkpoint goal and the small bench."""
    where.mkdir()
    shutil.copy(lab.inventory, where / "lab.yml")
    extra = {"all": {"vars": {"gpufabric_storage_checkpoint": goal, **SMALL_BENCH}}}
    (where / "storage.yml").write_text(yaml.safe_dump(extra))
    return where


def certify(
    lab: LabHandle, out: Path, inventory: Path | None = None, *extra: str
) -> tuple[int, dict[str, Any]]:
    argv = [venv_bin("gpufabric"), "certify", "-i", str(inventory or lab.inventory)]
    proc = subprocess.run(
        [*argv, "--hold", "slurm", "--out", str(out), "--json", *extra],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr[-4000:]
    return proc.returncode, json.loads(proc.stdout)


def slurm_nodes(lab: LabHandle) -> dict[str, str]:
    text = lab.run(lab.controller, "scontrol", "show", "node", "--oneliner").stdout
    return {ln.split()[0].split("=", 1)[1]: ln for ln in text.splitlines() if "NodeName=" in ln}


def test_slow_link_and_mtu_held_with_stage_and_reason_others_released(
    lab8: LabHandle, tmp_path: Path
) -> None:
    slow, mtu = random.sample(lab8.hosts[1:], 2)  # the controller runs scontrol
    try:
        lab8.fault(slow, "slow-link")
        lab8.fault(mtu, "mtu")
        code, doc = certify(lab8, tmp_path)
    finally:
        for host in (slow, mtu):
            assert lab8.restart(host) in ("running", "degraded")
    hosts = doc["results"]["extra"]["hosts"]
    assert code == 1
    held = {h: v for h, v in hosts.items() if v["status"] == "held"}
    assert sorted(held) == sorted([slow, mtu]), (slow, mtu, hosts)
    assert held[mtu]["stage"] == "4 fabric"
    assert held[mtu]["reason"] == "mtu: eth0 mtu 9000, the peers' 1500"
    assert held[slow]["stage"] == "4 fabric" and held[slow]["reason"].startswith("slow link: ")
    assert held[mtu]["todo"] and held[slow]["todo"]
    nodes = slurm_nodes(lab8)
    for h in lab8.hosts:
        if h in held:
            assert "DRAIN" in nodes[h] and f"Reason={PREFIX} stage 4 fabric: " in nodes[h], nodes[h]
        else:
            assert "DRAIN" not in nodes[h] and "Reason=" not in nodes[h], nodes[h]
    assert (tmp_path / "certify.html").read_text().count("NOT CERTIFIED: 6 of 8") == 1


def test_no_fault_every_host_released_storage_measured_at_once(
    lab8: LabHandle, tmp_path: Path
) -> None:
    inv = with_goal(lab8, tmp_path / "inv", {"sizeGiB": 1, "writeSeconds": 600})
    code, doc = certify(lab8, tmp_path / "out", inv)
    hosts = doc["results"]["extra"]["hosts"]
    assert code == 0, hosts
    assert {h: v["status"] for h, v in hosts.items()} == dict.fromkeys(lab8.hosts, "certified")
    assert all("DRAIN" not in line for line in slurm_nodes(lab8).values())
    holds = doc["results"]["extra"]["holds"]
    assert [a["node"] for a in holds if a["action"] == "resume"] == lab8.hosts  # one by one
    storage = [t for t in doc["results"]["tests"] if t["suite"] == ["stage 6 storage"]]
    assert sorted(t["name"] for t in storage) == sorted(f"6 storage: {h}" for h in lab8.hosts)
    assert all(t["status"] == "passed" for t in storage), storage
    measured = storage[0]["extra"]["measurement"]
    assert measured.startswith("write ") and "from 8 node(s) at once" in measured, measured
    assert "goal 0.002 GB/s (a 1 GiB checkpoint in 600 s)" in measured
    assert storage[0]["extra"]["figures"]["write_gbps"] > 0.002
    # the bench's reports of all 8 nodes, in this run's folder
    assert sorted(p.name for p in (tmp_path / "out" / "storage").iterdir() if p.is_dir()) == (
        sorted(lab8.hosts)
    )


def test_an_impossible_storage_goal_holds_every_node_at_stage_6(
    lab8: LabHandle, tmp_path: Path
) -> None:
    inv = with_goal(lab8, tmp_path / "inv", {"sizeGiB": 100000, "writeSeconds": 1})
    code, doc = certify(lab8, tmp_path / "out", inv, "--soak", "0")
    hosts = doc["results"]["extra"]["hosts"]
    assert code == 1
    for h in lab8.hosts:
        assert hosts[h]["status"] == "held" and hosts[h]["stage"] == "6 storage", hosts[h]
        assert hosts[h]["reason"].startswith("storage-goal: write 8 nodes: "), hosts[h]
        assert "< goal 107374.182 GB/s" in hosts[h]["reason"] and hosts[h]["todo"]
    nodes = slurm_nodes(lab8)
    for h in lab8.hosts:
        assert f"Reason={PREFIX} stage 6 storage: storage-goal: " in nodes[h], nodes[h]


def test_cmax_audit_networking_checks_pass_on_the_configured_hosts(lab8: LabHandle) -> None:
    """`cmax audit networking` (Slurm harness) as far as the lab can run it, every piece
    ClusterMAX's own (tests/cmax_audit.py): its worker check host-check.sh sent to each tuned
    host over stdin as its srun does, its host collector platform_config.py --collect-host on
    each host, its topology-plugin line on the controller's `scontrol show config`, then its
    own grading. No networking check is flagged; a pin written into one host's nccl.conf is."""
    from concurrent.futures import ThreadPoolExecutor

    from tests import cmax_audit

    where = cmax_audit.scripts()
    if where is None:
        pytest.skip("clustermax is not installed (the [dev] extra)")
    check = (where / "host-check.sh").read_text()
    collector = (where / "checks" / "platform_config.py").read_text()
    env = ("env", f"CLUSTERMAX_AUDIT_HARNESS={cmax_audit.HARNESS}")

    def worker(host: str) -> dict[str, str]:
        proc = lab8.run(host, *env, "bash", "-s", input_text=check, timeout=600)
        return cmax_audit.worker_values(proc.stdout)

    def report(host: str) -> dict[str, Any]:
        argv = ("python3", "-", "--collect-host", "--harness", cmax_audit.HARNESS)
        return json.loads(lab8.run(host, *argv, input_text=collector).stdout)

    with ThreadPoolExecutor(max_workers=len(lab8.hosts)) as pool:
        workers = list(pool.map(worker, lab8.hosts))
        reports = list(pool.map(report, lab8.hosts))
    assert [w["WORKER_HOSTNAME"] for w in workers] == lab8.hosts
    assert {w["WORKER_NCCL_CONF_OVERRIDES"] for w in workers} == {"false"}
    line = cmax_audit.topology_line(where)
    plugin = lab8.run(
        lab8.controller,
        "bash",
        "-c",
        f'SLURM_CONFIG_FULL="$(scontrol show config)"; TOPOLOGY_CONF={line}; echo "$TOPOLOGY_CONF"',
    ).stdout.strip()
    vals = cmax_audit.values(where, workers, reports, len(lab8.hosts), 0, plugin)
    graded = cmax_audit.grade(where, vals)
    assert graded["networking.ncclAutoConfig"][0] == "pass", graded
    assert graded["networking.topologyConfigured"][0] == "pass", graded
    assert not [k for k, (status, _a) in graded.items() if status in ("fail", "warning")], graded

    host = lab8.hosts[-1]
    lab8.sh(
        host,
        "cp /etc/nccl.conf /etc/nccl.conf.cmax && echo '# NCCL_PROTO=Simple' >> /etc/nccl.conf",
    )
    try:
        pinned = worker(host)
    finally:
        lab8.sh(host, "mv /etc/nccl.conf.cmax /etc/nccl.conf")
    vals = cmax_audit.values(where, [pinned], reports[-1:], len(lab8.hosts), 0, plugin)
    assert cmax_audit.grade(where, vals)["networking.ncclAutoConfig"][0] == "warning"
