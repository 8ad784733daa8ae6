"""`gpufabric certify` on 8 real lab hosts (2 leaves) configured by tune-fabric, with the lab's
Slurm holding the nodes: one host's link slowed and another's MTU changed are held with their
stage and reason while the 6 others are released; with no fault every host is released.

The lab is this module's own (8 hosts; the session lab has 4): `gfcert<pid>`, taken down at
the end. GPUFABRIC_CERTIFY_LAB_NAME=<name> reuses a running lab instead (left running).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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


def certify(lab: LabHandle, out: Path) -> tuple[int, dict[str, Any]]:
    argv = [venv_bin("gpufabric"), "certify", "-i", str(lab.inventory), "--hold", "slurm"]
    proc = subprocess.run(
        [*argv, "--out", str(out), "--json"],
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


def test_no_fault_every_host_released(lab8: LabHandle, tmp_path: Path) -> None:
    code, doc = certify(lab8, tmp_path)
    hosts = doc["results"]["extra"]["hosts"]
    assert code == 0, hosts
    assert {h: v["status"] for h, v in hosts.items()} == dict.fromkeys(lab8.hosts, "certified")
    assert all("DRAIN" not in line for line in slurm_nodes(lab8).values())
    holds = doc["results"]["extra"]["holds"]
    assert [a["node"] for a in holds if a["action"] == "resume"] == lab8.hosts  # one by one


def test_clustermax_nccl_autoconfig_grep_passes_on_the_configured_hosts(lab8: LabHandle) -> None:
    """ClusterMAX's own nccl-autoconfig line (read from the installed clustermax's
    host-check.sh), run inside each tuned lab host on its real /etc/nccl.conf."""
    from tests.unit.test_certify_nccl_conf import cmax_grep_pattern, cmax_scripts

    scripts = cmax_scripts()
    if scripts is None:
        pytest.skip("clustermax is not installed (the [dev] extra)")
    pattern = cmax_grep_pattern(scripts)
    for h in lab8.hosts:
        assert lab8.run(h, "test", "-s", "/etc/nccl.conf", check=False).returncode == 0, h
        found = lab8.run(h, "grep", "-qE", pattern, "/etc/nccl.conf", check=False)
        assert found.returncode == 1, f"{h}: cmax's grep matches /etc/nccl.conf"
