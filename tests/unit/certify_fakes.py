"""Stand-ins for the nodes and Slurm in certify's unit tests (constructed, not captures).

FakeRunner answers the node collector with a lab host's report (GPU count, /etc/nccl.conf as
the lab profile renders it) and plays a Slurm controller: `scontrol show node --oneliner`
prints the nodes' states and reasons, `scontrol update` drains and resumes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LAB_CONF = """# gpufabric NCCL profile "lab" (profiles.yaml version 1):
NCCL_SOCKET_IFNAME==eth0
NCCL_IB_DISABLE=1
"""


def node_report(**over: Any) -> dict[str, Any]:
    doc = {
        "gpus": 0,
        "nccl_conf": LAB_CONF,
        "nccl_env": "# env\n",
        "roce_v2": False,
        "rdma": [],
        "paths": {},
        "tools": {"nvbandwidth": "", "dcgmi": "", "nvidia-smi": ""},
        "dcgm": None,
    }
    doc.update(over)
    return doc


class FakeRunner:
    def __init__(self, reports: dict[str, dict[str, Any] | None], slurm: dict[str, dict[str, str]]):
        self.reports = reports  # host -> collector JSON, None: unreachable
        self.slurm = slurm  # node -> {"state", "reason"}
        self.calls: list[list[str]] = []
        self.script_args: list[list[str]] = []  # the node collector's arguments, per call

    def script(self, hosts: list[str], path: Path, args: list[str]) -> dict[str, dict[str, Any]]:
        assert path.name == "collect_node.py"
        self.script_args.append(list(args))
        out: dict[str, dict[str, Any]] = {}
        for h in hosts:
            rep = self.reports.get(h)
            out[h] = {"unreachable": True} if rep is None else {"rc": 0, "stdout": json.dumps(rep)}
        return out

    def run(self, hosts: list[str], argv: list[str]) -> dict[str, dict[str, Any]]:
        self.calls.append(argv)
        assert argv[0] == "scontrol", argv
        if argv[1:3] == ["show", "node"]:
            lines = [
                f"NodeName={n} Arch=x86_64 State={v['state']} Partitions=all"
                + (f" Reason={v['reason']} [root@2026-12-04T19:00:00]" if v["reason"] else "")
                for n, v in self.slurm.items()
            ]
            return {hosts[0]: {"rc": 0, "stdout": "\n".join(lines)}}
        fields: dict[str, str] = {}
        for a in argv[2:]:
            key, _, value = a.partition("=")
            fields[key] = value
        node = self.slurm[fields["NodeName"]]
        if fields["State"] == "DRAIN":
            node.update(state="IDLE+DRAIN", reason=fields["Reason"])
        elif fields["State"] == "RESUME":
            node.update(state="IDLE", reason="")
        return {hosts[0]: {"rc": 0, "stdout": ""}}


def doctor_report(hosts: list[str], bad: dict[str, list[str]]) -> dict[str, Any]:
    """What gpufabric.health.report.build returns, for `hosts` with `bad` hosts' reasons."""
    return {
        "hosts": {
            h: {"status": "bad" if h in bad else "ok", "reasons": bad.get(h, []), "warnings": []}
            for h in hosts
        },
        "bad": sorted(bad),
    }
