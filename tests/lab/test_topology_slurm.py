"""roles/topology against the session lab and a real slurmctld (Debian's slurm-wlm 22.05).

The lab's inventory gives each host its leaf (gpufabric_leaf); the role renders topology.conf
with the gpufabric CLI, writes it on the controller host and restarts slurmctld, which must then
list exactly the lab's leaves and hosts in `scontrol show topology`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.lab.slurm import slurm_conf

from gpufabric.lab.handle import LabHandle
from gpufabric.lab.summary import parse_recap
from gpufabric.topology.emit.slurm import tree_conf
from gpufabric.topology.hostlist import expand
from gpufabric.topology.model import Host, Topology
from gpufabric.topology.score import ring_edges

pytestmark = pytest.mark.lab

CLEANUP = (
    "systemctl stop slurmctld munge; rm -rf /etc/slurm/slurm.conf /etc/slurm/topology.conf "
    "/var/lib/slurm/gftopo /etc/gpufabric/hostfile /var/log/slurm/slurmctld.log"
)


@pytest.fixture
def slurmctld(lab: LabHandle) -> Iterator[str]:
    """slurmctld running on the controller host with a topology-less slurm.conf."""
    host = lab.controller
    conf = slurm_conf("gftopo", host, lab.hosts)
    lab.run(
        host,
        "sh",
        "-c",
        "mkdir -p /var/lib/slurm/gftopo /var/log/slurm && cat > /etc/slurm/slurm.conf",
        input_text=conf,
    )
    lab.sh(host, "systemctl start munge slurmctld && sleep 1 && systemctl is-active slurmctld")
    try:
        yield host
    finally:
        lab.sh(host, CLEANUP, check=False)


# Stands in for kubectl (none on this machine): logs its arguments, says "not labeled" when the
# same labels were applied before, as kubectl label --overwrite does.
FAKE_KUBECTL = """#!/bin/sh
case "$1" in
  version) echo "Client Version: fake"; exit 0 ;;
  label) if grep -qxF -- "$*" "{log}" 2>/dev/null; then echo "node/$3 not labeled";
         else echo "$*" >> "{log}"; echo "node/$3 labeled"; fi ;;
  *) exit 1 ;;
esac
"""


def switches(scontrol: str) -> dict[str, dict[str, str]]:
    out = {}
    for line in scontrol.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S+)", line))
        if "SwitchName" in fields:
            out[fields["SwitchName"]] = fields
    return out


def test_role_loads_the_topology_into_slurmctld(
    lab: LabHandle, slurmctld: str, tmp_path: Path
) -> None:
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(FAKE_KUBECTL.format(log=tmp_path / "kubectl.log"))
    kubectl.chmod(0o755)
    workdir = [
        "-e",
        f"topology_workdir={tmp_path}",
        "-e",
        "topology_k8s_labels=true",
        "-e",
        f"topology_kubectl={kubectl}",
    ]
    first = lab.ansible_playbook("playbooks/topology.yml", *workdir)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr
    topo = switches(lab.run(slurmctld, "scontrol", "show", "topology").stdout)
    by_leaf: dict[str, set[str]] = {}
    for host, leaf in lab.leaves.items():
        by_leaf.setdefault(leaf, set()).add(host)
    for leaf, hosts in by_leaf.items():
        assert set(expand(topo[leaf]["Nodes"])) == hosts
        assert topo[leaf]["Level"] == "0"
    assert set(expand(topo["fabric"]["Switches"])) == set(by_leaf)  # one root above the leaves
    assert (
        "TopologyPlugin=topology/tree" in lab.run(slurmctld, "cat", "/etc/slurm/slurm.conf").stdout
    )

    labelled = (tmp_path / "kubectl.log").read_text().splitlines()
    assert len(labelled) == len(lab.hosts)
    for line in labelled:
        words = line.split()
        assert words[:2] == ["label", "node"] and words[-1] == "--overwrite"
        assert f"network.gpufabric.io/leaf={lab.leaves[words[2]]}" in words

    order = lab.run(slurmctld, "cat", "/etc/gpufabric/hostfile").stdout.split()[::2]
    assert sorted(order) == sorted(lab.hosts)
    assert ring_edges([lab.leaves[h] for h in order]) == len(by_leaf)  # the lower bound

    second = lab.ansible_playbook("playbooks/topology.yml", *workdir)
    assert second.returncode == 0, second.stdout[-4000:]
    assert all(c["changed"] == 0 for c in parse_recap(second.stdout).values()), second.stdout
    check = lab.ansible_playbook("playbooks/topology.yml", *workdir, "--check", "--diff")
    assert check.returncode == 0, check.stdout[-4000:]


def test_a_label_with_a_newline_stays_a_comment_for_slurmctld(
    lab: LabHandle, slurmctld: str
) -> None:
    """A label or node id with a newline once wrote its own `SwitchName=` line through the
    `# name=label` comment of topology.conf (one node could then stop slurmctld). Rendered
    through the writer, real slurmctld loads the file and lists only the real switches."""
    first = lab.hosts[0]
    hosts = tuple(Host(h, ("spine", lab.leaves[h])) for h in lab.hosts)
    topology = Topology(
        hosts,
        source=f"lab\nSwitchName=evil0 Nodes={first}",
        labels={"spine": f"core\nSwitchName=evil Nodes={first}"},
    )
    lab.run(
        slurmctld,
        "sh",
        "-c",
        "cat > /etc/slurm/topology.conf && "
        "echo TopologyPlugin=topology/tree >> /etc/slurm/slurm.conf",
        input_text=tree_conf(topology),
    )
    lab.sh(slurmctld, "systemctl restart slurmctld && sleep 1 && systemctl is-active slurmctld")
    topo = switches(lab.run(slurmctld, "scontrol", "show", "topology").stdout)
    assert set(topo) == {"spine", *lab.leaves.values()}
    assert set(expand(topo["spine"]["Switches"])) == set(lab.leaves.values())
