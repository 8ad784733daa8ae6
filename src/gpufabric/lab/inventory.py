"""The Ansible inventory (and known_hosts) a lab writes: pure rendering, unit-tested.

Ansible runs from the normal shell: ssh reaches a host through a ProxyCommand that opens the
TCP connection from inside the lab's controller namespace, checks host keys against the lab's
own known_hosts (written from the keys the lab generated, so no trust-on-first-use), and logs in
as root with the lab's key.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

from gpufabric.lab.hosts import SHARED_MOUNT
from gpufabric.lab.layout import LabLayout


def ssh_common_args(layout: LabLayout, known_hosts: Path) -> str:
    proxy = f"ip netns exec {layout.controller_netns} nc %h %p"
    opts = [
        f"ProxyCommand={proxy}",
        f"UserKnownHostsFile={known_hosts}",
        "StrictHostKeyChecking=yes",
        "GlobalKnownHostsFile=/dev/null",
        "IdentitiesOnly=yes",
    ]
    return " ".join(f"-o {shlex.quote(o)}" for o in opts)


def lab_vars(layout: LabLayout) -> dict[str, Any]:
    """The gpufabric_* variables every lab host gets (pushed, or at boot from the bundle)."""
    return {
        "gpufabric_fabric": "lab",
        "gpufabric_encryption": "none",
        "gpufabric_lab_name": layout.name,
        # one directory every host sees: the lab's stand-in for a shared file system
        "gpufabric_lab_shared_dir": SHARED_MOUNT,
    }


def render(layout: LabLayout, ssh_key: Path, known_hosts: Path) -> str:
    hosts: dict[str, Any] = {
        h.name: {"ansible_host": h.address, "gpufabric_leaf": h.leaf} for h in layout.hosts
    }
    children: dict[str, Any] = {
        "gpu_nodes": {"hosts": hosts},
        "controller": {"hosts": {layout.hosts[0].name: None}},
    }
    for leaf in layout.leaves:
        children[leaf] = {"hosts": {h.name: None for h in layout.hosts if h.leaf == leaf}}
    doc = {
        "all": {
            "vars": {
                "ansible_user": "root",
                "ansible_ssh_private_key_file": str(ssh_key),
                "ansible_ssh_common_args": ssh_common_args(layout, known_hosts),
                "ansible_python_interpreter": "/usr/bin/python3",
                **lab_vars(layout),
            },
            "children": children,
        }
    }
    head = (
        f"# Written by `gpufabric lab up --name {layout.name}`; removed by `lab down`.\n"
        f'# ansible-playbook -i "$(gpufabric lab inventory --name {layout.name})" '
        "playbooks/tune-fabric.yml\n"
    )
    return head + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)


def render_known_hosts(layout: LabLayout, host_keys: dict[str, str]) -> str:
    """One line per host: its address and name with the ed25519 key generated for it."""
    return "".join(
        f"{h.address},{h.name} ssh-ed25519 {host_keys[h.name]}\n"
        for h in layout.hosts
        if h.name in host_keys
    )
