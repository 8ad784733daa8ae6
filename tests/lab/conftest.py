"""The `lab` fixture: ONE lab of 4 real hosts on 2 leaves for the whole test session.

Put lab tests (any area: roles, IPsec, topology/Slurm) under tests/lab/ and mark them
`@pytest.mark.lab`; take the `lab` fixture (a gpufabric.lab.handle.LabHandle):

    lab.inventory            Path of the Ansible inventory (groups gpu_nodes, controller, leafN)
    lab.hosts                ["h1", "h2", "h3", "h4"]
    lab.addresses            {"h1": "10.200.x.11", ...}   lab.leaves  {"h1": "leaf1", ...}
    lab.controller           "h1"                         lab.name    the session lab's name
    lab.boot                 {"h1": "running", ...}  (systemctl is-system-running after up)
    lab.run(host, *argv)     run inside a host as root (nsenter, no ssh); check=True raises
    lab.sh(host, script)     the same through sh -c
    lab.ctl(*argv)           run in the controller namespace (on the lab network)
    lab.ansible_playbook(pb, *args)   ansible-playbook -i <inventory> from the repo root
    lab.set_spine_rate("1gbit" | None)

Hosts are shared by every test of the session: leave them as you would want to find them.
The lab is named "gftest<pid of pytest>" (or $GPUFABRIC_TEST_LAB_NAME): never the developer's
own default lab ("gpufabric"), and never another concurrent test run's lab (several engineers
share one machine). Labs of crashed runs (gftest<pid> with the pid gone) are taken down first.
Skipped (with the reason) when not root.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from gpufabric.lab.handle import LabHandle, process_lab_name, reap_stale_labs
from gpufabric.lab.lab import check_tools

TEST_LAB_PREFIX = "gftest"


def require_lab_machine() -> None:
    """Skip when not root; fail (with the package to install) when lab tools are missing."""
    if os.geteuid() != 0:
        pytest.skip("lab tests need root (network namespaces, mounts, systemd-nspawn)")
    check_tools()  # raises UserError naming the missing package and `make lab-deps`


@pytest.fixture(scope="session")
def lab() -> Iterator[LabHandle]:
    require_lab_machine()
    reap_stale_labs(TEST_LAB_PREFIX)
    name = os.environ.get("GPUFABRIC_TEST_LAB_NAME") or process_lab_name(TEST_LAB_PREFIX)
    handle = LabHandle.start(name, nodes=4, leaves=2)
    try:
        yield handle
    finally:
        handle.stop()
