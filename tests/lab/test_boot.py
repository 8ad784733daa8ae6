"""First boot is local, proven on real hosts: `lab up --boot`.

One lab of 3 hosts booted through Debian's cloud-init from NoCloud seeds carrying the node user
data the bundle renderer gives for the lab's variables. h1 and h2 fetch the lab's bundle from
the object-store stand-in, check its sha256 and run tune-fabric with `ansible-playbook -c
local`; h3's user data names the same sha256 but its copy of the bundle has one byte changed
(the test's only injection, made before the hosts start). Then:

- h1 and h2 say `configured`, h3 `not configured` with the hash mismatch, in `lab status`;
- h3 has no Ansible-managed file under /etc (nothing of the bundle ran);
- a push run of the same playbook with the same variables over ssh on h1 and h2 changes nothing,
  and every Ansible-managed file under /etc is byte for byte what the boot wrote.

This lab is its own (named gfboot<pid>), apart from the session's 4-host lab.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.lab.conftest import require_lab_machine

from gpufabric.bundle.render import Bundle
from gpufabric.lab import boot as lab_boot
from gpufabric.lab import summary
from gpufabric.lab.handle import LabHandle, process_lab_name, reap_stale_labs, venv_bin
from gpufabric.lab.layout import HostPlan

pytestmark = pytest.mark.lab

PREFIX = "gfboot"
TAMPERED = "h3"
MANAGED_SUMS = (
    "grep -rlI --exclude-dir=ssl --exclude-dir=alternatives -e 'Ansible managed' /etc "
    "2>/dev/null | sort | xargs -r sha256sum"
)


@pytest.fixture(scope="module")
def boot_lab() -> Iterator[LabHandle]:
    require_lab_machine()
    reap_stale_labs(PREFIX)
    real_seed = lab_boot.seed

    def seed(root: Path, host: HostPlan, bundle: Bundle) -> str:
        if host.name != TAMPERED:
            return real_seed(root, host, bundle)
        raw = bytearray(bundle.path.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        copy = bundle.path.with_name("tampered-" + bundle.path.name)
        copy.write_bytes(bytes(raw))
        return real_seed(root, host, dataclasses.replace(bundle, path=copy))  # same sha256

    mp = pytest.MonkeyPatch()
    mp.setattr(lab_boot, "seed", seed)
    try:
        handle = LabHandle.start(process_lab_name(PREFIX), nodes=3, leaves=1, boot=True)
    finally:
        mp.undo()
    try:
        yield handle
    finally:
        handle.stop()


def _status(handle: LabHandle) -> str:
    proc = subprocess.run(
        [venv_bin("gpufabric"), "lab", "status", "--name", handle.name],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_hosts_say_whether_they_configured_themselves(boot_lab: LabHandle) -> None:
    lines = {ln.split()[0]: ln for ln in _status(boot_lab).splitlines() if ln.startswith("  h")}
    for host in ("h1", "h2"):
        assert "  CONFIGURED: changed=" in lines[host], lines[host]
    assert "NOT CONFIGURED: bundle sha256 mismatch: expected " in lines[TAMPERED]
    assert "; not run" in lines[TAMPERED]


def test_a_tampered_bundle_runs_nothing(boot_lab: LabHandle) -> None:
    assert boot_lab.sh(TAMPERED, MANAGED_SUMS).stdout == ""
    assert boot_lab.run(TAMPERED, "test", "-e", "/var/lib/gpufabric/bundle", check=False).returncode


def test_boot_configures_what_a_push_run_configures(boot_lab: LabHandle) -> None:
    hosts = ["h1", "h2"]
    booted = {h: boot_lab.sh(h, MANAGED_SUMS).stdout for h in hosts}
    assert all(booted.values()), booted  # the boot wrote managed files
    proc = boot_lab.ansible_playbook(
        "playbooks/tune-fabric.yml", "--limit", ",".join(hosts), "--skip-tags", "topology"
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    recap = summary.parse_recap(proc.stdout)
    assert set(recap) == set(hosts)
    assert {h: (r["changed"], r["failed"]) for h, r in recap.items()} == {h: (0, 0) for h in hosts}
    assert {h: boot_lab.sh(h, MANAGED_SUMS).stdout for h in hosts} == booted


def test_boot_log_and_result_are_on_the_host(boot_lab: LabHandle) -> None:
    result = boot_lab.run("h1", "cat", lab_boot.RESULT_PATH).stdout
    assert '"status": "configured"' in result
    log = boot_lab.run("h1", "cat", "/var/log/gpufabric-boot.log").stdout
    assert "ansible-playbook -c local" in log
    assert os.path.basename(boot_lab.paths.objects.as_posix()) == "objects"
