"""The lab's Ansible inventory and known_hosts rendering (pure; no root)."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

from gpufabric.lab.hosts import SHARED_MOUNT, nspawn_argv
from gpufabric.lab.inventory import render, render_known_hosts
from gpufabric.lab.layout import make_layout

KEY = Path("/var/lib/gpufabric/lab/t/ssh/id_ed25519")
KNOWN = Path("/var/lib/gpufabric/lab/t/ssh/known_hosts")


def test_groups_hostvars_and_cluster_switches() -> None:
    lay = make_layout("t", 4, 2, set())
    doc = yaml.safe_load(render(lay, KEY, KNOWN))["all"]
    kids = doc["children"]
    assert set(kids) == {"gpu_nodes", "controller", "leaf1", "leaf2"}
    assert kids["gpu_nodes"]["hosts"] == {
        h.name: {"ansible_host": h.address, "gpufabric_leaf": h.leaf} for h in lay.hosts
    }
    assert list(kids["controller"]["hosts"]) == ["h1"]
    assert list(kids["leaf1"]["hosts"]) == ["h1", "h2"]
    assert list(kids["leaf2"]["hosts"]) == ["h3", "h4"]
    v = doc["vars"]
    assert (v["gpufabric_fabric"], v["gpufabric_encryption"]) == ("lab", "none")
    assert (v["ansible_user"], v["ansible_ssh_private_key_file"]) == ("root", str(KEY))


def test_ssh_goes_through_the_controller_namespace_with_lab_known_hosts() -> None:
    lay = make_layout("t", 2, 1, set())
    args = yaml.safe_load(render(lay, KEY, KNOWN))["all"]["vars"]["ansible_ssh_common_args"]
    opts = dict(o.split("=", 1) for o in shlex.split(args) if o != "-o")
    assert opts["ProxyCommand"] == "ip netns exec gf-t-ctl nc %h %p"
    assert opts["UserKnownHostsFile"] == str(KNOWN)
    assert opts["StrictHostKeyChecking"] == "yes"  # checked, against the lab's own file


def test_known_hosts_lines() -> None:
    lay = make_layout("t", 2, 1, set())
    text = render_known_hosts(lay, {"h1": "AAAAkey1", "h2": "AAAAkey2"})
    assert text.splitlines() == [
        f"{lay.hosts[0].address},h1 ssh-ed25519 AAAAkey1",
        f"{lay.hosts[1].address},h2 ssh-ed25519 AAAAkey2",
    ]


def test_every_host_gets_the_shared_directory_and_the_inventory_names_it() -> None:
    lay = make_layout("t", 2, 1, set())
    doc = yaml.safe_load(render(lay, KEY, KNOWN))["all"]
    assert doc["vars"]["gpufabric_lab_shared_dir"] == SHARED_MOUNT
    shared = Path("/var/lib/gpufabric/lab/t/shared")
    argv = nspawn_argv(Path("/r"), lay.hosts[0], shared)
    assert f"--bind={shared}:{SHARED_MOUNT}" in argv
    assert not any(a.startswith("--bind=/var") for a in nspawn_argv(Path("/r"), lay.hosts[0]))
