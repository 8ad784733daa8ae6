"""`gpufabric health run` against the session lab (4 hosts, 2 leaves), with faults injected
by `lab fault` and healed by `lab restart` (every test heals what it breaks: hosts are shared).

Heavier proofs (8 hosts, three runs each; 16 hosts) live in benchmarks/health_rounds.py --lab.
"""

from __future__ import annotations

import json
import random
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.lab.slurm import slurm_conf

from gpufabric.health.act import PREFIX, TAINT_KEY
from gpufabric.health.report import UNREACHABLE
from gpufabric.lab.handle import LabHandle, venv_bin

pytestmark = pytest.mark.lab

SLURM_CLEANUP = (
    "systemctl stop slurmctld munge; rm -rf /etc/slurm/slurm.conf /var/lib/slurm/gfhealth "
    "/var/log/slurm/slurmctld.log"
)


def health(lab: LabHandle, out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [
            venv_bin("gpufabric"),
            "health",
            "run",
            "-i",
            str(lab.inventory),
            "--json",
            "--out",
            str(out),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr + (out / "ansible.log").read_text()[-4000:]
    return proc.returncode, json.loads(proc.stdout)


def measured_again(rep: dict) -> int:
    """1 when a lost measurement was taken again (one extra round), else 0."""
    tests = [t for r in rep["traffic"]["rounds"] for t in r["tests"]]
    return int(any(t.get("again") for t in tests))


@pytest.fixture
def heal(lab: LabHandle) -> Iterator[list[str]]:
    """Hosts to restart (heal) after the test, whatever happens."""
    broken: list[str] = []
    yield broken
    for host in broken:
        assert lab.restart(host) in ("running", "degraded")


def test_no_fault_every_host_ok_in_one_round(lab: LabHandle, tmp_path: Path) -> None:
    code, rep = health(lab, tmp_path)
    assert code == 0, rep
    assert {h: v["status"] for h, v in rep["hosts"].items()} == dict.fromkeys(lab.hosts, "ok")
    assert rep["rounds"] == 1 + measured_again(rep)
    assert (tmp_path / "health.html").read_text().startswith("<!doctype html>")


def test_iperf3_servers_run_unprivileged_on_the_fabric_address(
    lab: LabHandle, tmp_path: Path
) -> None:
    """While a health run measures, every iperf3 server runs as a dynamic user (not root) and
    listens on the host's fabric address only (not on every address)."""
    host = lab.hosts[-1]
    seen: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set() and not seen:
            ps = lab.sh(host, "ps -o user=,args= -C iperf3", check=False).stdout
            ss = lab.sh(host, "ss -Hltn 'sport = :5201'", check=False).stdout
            if "--server" in ps and ss.strip():
                seen.append(ps + "\n" + ss)
            time.sleep(0.3)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        code, rep = health(lab, tmp_path)
    finally:
        stop.set()
        watcher.join()
    assert code == 0, rep
    assert seen, "no iperf3 server seen during the run"
    ps, ss = seen[0].split("\n", 1)
    user = ps.split()[0]
    assert user != "root", ps
    assert f"--bind {lab.addresses[host]}" in ps, ps
    listening = ss.split()[3]
    assert listening == f"{lab.addresses[host]}:5201", ss


def test_slow_link_and_mtu_are_named_with_their_reasons(
    lab: LabHandle, tmp_path: Path, heal: list[str]
) -> None:
    slow, mtu = random.sample(lab.hosts, 2)
    heal += [slow, mtu]
    lab.fault(slow, "slow-link")
    lab.fault(mtu, "mtu")
    code, rep = health(lab, tmp_path)
    assert code == 1
    assert rep["bad"] == sorted([slow, mtu]), (slow, mtu, rep["hosts"])
    assert rep["hosts"][slow]["reasons"][0].startswith("slow link: "), rep["hosts"][slow]
    assert rep["hosts"][mtu]["reasons"] == ["mtu: eth0 mtu 9000, the peers' 1500"]
    # 4 hosts: halves, then the suspects with known-good partners
    assert rep["rounds"] == 2 + measured_again(rep)


# Stands in for kubectl (none on this machine): lists the lab's hosts as nodes (the first one
# already carrying the doctor's taint) and logs every other call.
FAKE_KUBECTL = """#!/bin/sh
if [ "$1" = get ]; then cat "{nodes}"; exit 0; fi
echo "$*" >> "{log}"
"""


def test_link_down_and_flap_tainted_in_kubernetes(
    lab: LabHandle, tmp_path: Path, heal: list[str]
) -> None:
    down, flapping = random.sample(lab.hosts[1:], 2)  # the first host stays the run_once host
    nodes = {
        "items": [
            {
                "metadata": {"name": h},
                "spec": {
                    "taints": [{"key": TAINT_KEY, "value": "bad", "effect": "NoSchedule"}]
                    if h == lab.hosts[0]
                    else []
                },
            }
            for h in lab.hosts
        ]
    }
    (tmp_path / "nodes.json").write_text(json.dumps(nodes))
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(FAKE_KUBECTL.format(nodes=tmp_path / "nodes.json", log=tmp_path / "log"))
    kubectl.chmod(0o755)
    heal += [down, flapping]
    lab.fault(down, "link-down")
    lab.fault(flapping, "flap")
    code, rep = health(
        lab, tmp_path / "out", "--drain", "k8s", "-e", f"fabric_health_kubectl={kubectl}"
    )
    assert code == 1
    assert rep["bad"] == sorted([down, flapping]), rep["hosts"]
    assert rep["hosts"][down]["reasons"] == [UNREACHABLE]
    assert rep["hosts"][flapping]["reasons"][0].startswith("flap: eth0 carrier_changes ")
    calls = sorted((tmp_path / "log").read_text().splitlines())
    assert calls == sorted(
        [f"taint nodes {h} {TAINT_KEY}=bad:NoSchedule --overwrite" for h in (down, flapping)]
        + [f"taint nodes {lab.hosts[0]} {TAINT_KEY}:NoSchedule-"]
    )


@pytest.fixture
def slurmctld(lab: LabHandle) -> Iterator[str]:
    host = lab.controller
    conf = slurm_conf("gfhealth", host, lab.hosts)
    lab.run(
        host,
        "sh",
        "-c",
        "mkdir -p /var/lib/slurm/gfhealth /var/log/slurm && cat > /etc/slurm/slurm.conf",
        input_text=conf,
    )
    lab.sh(host, "systemctl start munge slurmctld && sleep 1 && systemctl is-active slurmctld")
    try:
        yield host
    finally:
        lab.sh(host, SLURM_CLEANUP, check=False)


def node(lab: LabHandle, ctl: str, name: str) -> str:
    return lab.run(ctl, "scontrol", "show", "node", "--oneliner", name).stdout


def test_slurm_drains_the_bad_host_resumes_it_when_healthy_and_keeps_a_hand_drain(
    lab: LabHandle, slurmctld: str, tmp_path: Path, heal: list[str]
) -> None:
    bad, by_hand = random.sample(lab.hosts[1:], 2)
    lab.run(
        slurmctld,
        "scontrol",
        "update",
        f"NodeName={by_hand}",
        "State=DRAIN",
        "Reason=operator: bad fan",
    )
    heal.append(bad)
    lab.fault(bad, "slow-link")
    code, rep = health(lab, tmp_path / "1", "--drain", "slurm")
    assert code == 1 and rep["bad"] == [bad], rep["hosts"]
    drained = node(lab, slurmctld, bad)
    assert "DRAIN" in drained and f"Reason={PREFIX} slow link: " in drained, drained
    assert "Reason=operator: bad fan" in node(lab, slurmctld, by_hand)

    assert lab.restart(bad) in ("running", "degraded")
    heal.remove(bad)
    code, rep = health(lab, tmp_path / "2", "--drain", "slurm")
    assert code == 0, rep["hosts"]
    assert {a["node"]: a["action"] for a in rep["actions"]}[bad] == "resume"
    resumed = node(lab, slurmctld, bad)
    assert "DRAIN" not in resumed and "Reason=" not in resumed, resumed
    kept = node(lab, slurmctld, by_hand)
    assert "DRAIN" in kept and "Reason=operator: bad fan" in kept, kept
