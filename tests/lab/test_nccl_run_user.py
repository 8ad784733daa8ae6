"""The nccl_tests role's run user on real lab hosts (Debian with sudo installed): an account of
its own that cannot become root, made once (a second run changes nothing); a run user that can
use sudo without a password stops the play, naming the host."""

from __future__ import annotations

import re

import pytest

from gpufabric.lab.handle import REPO, LabHandle

pytestmark = pytest.mark.lab

PLAY = REPO / "tests" / "lab" / "playbooks" / "nccl-run-user.yml"
USER = "gpufabric-nccl"
ENV = {"ANSIBLE_ROLES_PATH": str(REPO / "roles"), "ANSIBLE_PIPELINING": "1"}


def changed(output: str) -> dict[str, int]:
    return {
        m[1]: int(m[2]) for m in re.finditer(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", output, re.M)
    }


def test_the_run_user_cannot_become_root(lab: LabHandle) -> None:
    host = lab.hosts[-1]
    try:
        first = lab.ansible_playbook(PLAY, env=ENV)
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-1000:]
        for h in lab.hosts:
            assert lab.run(h, "id", "-u", USER).stdout.strip() not in ("", "0"), h
            assert lab.run(h, "sh", "-c", "command -v sudo").returncode == 0, h  # sudo is there
            tried = lab.run(h, "runuser", "-u", USER, "--", "sudo", "-n", "true", check=False)
            assert tried.returncode != 0, f"{h}: {USER} ran sudo -n true"
            assert "password is required" in tried.stderr or "not in the sudoers" in tried.stderr
        second = lab.ansible_playbook(PLAY, env=ENV)
        assert second.returncode == 0
        assert all(v == 0 for v in changed(second.stdout).values()), second.stdout[-2000:]
        # an account that can: the play stops on that host, naming it
        rule = f"/etc/sudoers.d/gftest-{USER}"
        lab.sh(host, f"echo '{USER} ALL=(ALL) NOPASSWD:ALL' > {rule}; chmod 0440 {rule}")
        refused = lab.ansible_playbook(PLAY, env=ENV)
        assert refused.returncode != 0
        line = f"nccl_tests_run_user: '{USER}' can run sudo without a password on {host}"
        assert line in refused.stdout, refused.stdout[-3000:]
    finally:
        lab.sh(host, f"rm -f /etc/sudoers.d/gftest-{USER}", check=False)
        for h in lab.hosts:
            lab.run(h, "userdel", "-r", USER, check=False)
