"""A minimal slurm.conf for lab tests that start slurmctld on the controller (no Slurm role in
this repository writes one); each test names its own cluster, so state and logs stay apart."""

from __future__ import annotations

from gpufabric.topology.hostlist import compress

SLURM_CONF = """ClusterName={cluster}
SlurmctldHost={controller}
AuthType=auth/munge
SlurmUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
StateSaveLocation=/var/lib/slurm/{cluster}
SlurmctldPidFile=/run/slurmctld.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
NodeName={nodes} CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES State=UP
"""


def slurm_conf(cluster: str, controller: str, hosts: list[str]) -> str:
    return SLURM_CONF.format(cluster=cluster, controller=controller, nodes=compress(hosts))
