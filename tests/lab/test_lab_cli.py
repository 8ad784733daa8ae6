"""`gpufabric lab up/status/inventory/down` on a lab of its own, and the CLI's errors."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from gpufabric.lab.handle import process_lab_name, reap_stale_labs, venv_bin
from gpufabric.lab.hosts import PROPAGATE_DIR
from gpufabric.lab.lab import down as lab_down
from gpufabric.lab.state import LabPaths

pytestmark = pytest.mark.lab
PREFIX = "gfcli"  # gfcli<pid>: not the session lab, not the developer's, not another run's


def gf(
    *args: str, env: dict[str, str] | None = None, user: str | None = None
) -> subprocess.CompletedProcess[str]:
    argv = [venv_bin("gpufabric"), *args]
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *argv]
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **(env or {})},
    )


def leftovers(name: str) -> list[str]:
    """Everything of lab `name` still on the machine: namespaces, mounts, processes, files."""
    found = [
        ns
        for ns in subprocess.run(
            ["ip", "netns", "list"], capture_output=True, text=True, check=True
        ).stdout.split()
        if ns.startswith(f"gf-{name}-")
    ]
    root = str(LabPaths.of(name).root)
    found += [
        ln.split()[4]
        for ln in Path("/proc/self/mountinfo").read_text().splitlines()
        if ln.split()[4].startswith(root)
    ]
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if f"gf-{name}-".encode() in cmd:
            found.append(f"pid {pid}: {cmd[:80]!r}")
    if PROPAGATE_DIR.is_dir():
        found += [str(d) for d in PROPAGATE_DIR.iterdir() if d.name.startswith(f"gf-{name}-")]
    found += [d for d in (root, root + ".failed") if Path(d).exists()]
    return found


@pytest.fixture
def cli_lab() -> Iterator[str]:
    if os.geteuid() != 0:
        pytest.skip("lab tests need root (network namespaces, mounts, systemd-nspawn)")
    reap_stale_labs(PREFIX)
    name = process_lab_name(PREFIX)
    yield name
    lab_down(name)  # in-process: a no-op when the test left nothing


def test_up_status_inventory_down_leave_nothing(cli_lab: str) -> None:
    up = gf(
        "lab", "up", "--nodes", "3", "--leaves", "2", "--spine-rate", "200mbit", "--name", cli_lab
    )
    assert up.returncode == 0, up.stderr
    assert "3 hosts, 2 leaves, spine 200mbit" in up.stdout
    assert up.stdout.count("systemd running") == 3, up.stdout

    status = gf("lab", "status", "--name", cli_lab)
    assert status.returncode == 0, status.stderr
    assert status.stdout.count(" running  systemd running") == 3, status.stdout
    assert "spine: 200mbit (4/4 uplink ends with tbf)" in status.stdout

    inv = gf("lab", "inventory", env={"GPUFABRIC_LAB_NAME": cli_lab})  # name from the env
    assert inv.returncode == 0, inv.stderr
    path = Path(inv.stdout.strip())
    doc = yaml.safe_load(path.read_text())["all"]["children"]
    assert set(doc["leaf1"]["hosts"]) == {"h1", "h2"} and set(doc["leaf2"]["hosts"]) == {"h3"}

    again = gf("lab", "up", "--name", cli_lab)
    assert again.returncode == 2
    assert again.stderr.strip() == (
        f"error: lab '{cli_lab}' is already up (or half up): "
        f"`gpufabric lab down --name {cli_lab}` first"
    )

    assert leftovers(cli_lab)  # the check below sees a running lab
    down = gf("lab", "down", "--name", cli_lab)
    assert down.returncode == 0, down.stderr
    assert leftovers(cli_lab) == []
    twice = gf("lab", "down", "--name", cli_lab)
    assert twice.returncode == 0 and "is not up; nothing to remove" in twice.stdout
    gone = gf("lab", "inventory", "--name", cli_lab)
    assert gone.returncode == 2 and "is not up" in gone.stderr


@pytest.mark.parametrize("damage", ["lost", "corrupt"])
def test_down_cleans_up_after_a_lost_state_file(cli_lab: str, damage: str) -> None:
    up = gf("lab", "up", "--nodes", "1", "--leaves", "1", "--name", cli_lab)
    assert up.returncode == 0, up.stderr
    state_file = LabPaths.of(cli_lab).state
    if damage == "lost":
        state_file.unlink()
    else:
        state_file.write_text('{"layout": ')  # e.g. a full disk while it was written
    down = gf("lab", "down", "--name", cli_lab)
    assert down.returncode == 0, down.stderr
    assert leftovers(cli_lab) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nodes", "0"], "error: --nodes: 0 is not valid; use 1 to 64"),
        (["--nodes", "65"], "error: --nodes: 65 is not valid; use 1 to 64"),
        (["--leaves", "0"], "error: --leaves: 0 is not valid; use 1 to 8"),
        (
            ["--nodes", "2", "--leaves", "3"],
            "error: --leaves: 3 is not valid; at most one leaf per host (2 hosts)",
        ),
        (
            ["--spine-rate", "fast"],
            "error: --spine-rate: 'fast' is not valid; use a tc rate "
            "from 8kbit to 1tbit such as 500mbit, 1gbit, 10gbit",
        ),
        (
            ["--name", "Bad_Name"],
            "error: --name: 'Bad_Name' is not valid; use 1-20 lowercase "
            "letters and digits, starting with a letter",
        ),
    ],
)
def test_bad_flags_are_one_line_errors(cli_lab: str, args: list[str], message: str) -> None:
    proc = gf("lab", "up", "--name", cli_lab, *args)
    assert (proc.returncode, proc.stderr.strip()) == (2, message)
    assert leftovers(cli_lab) == []


def test_not_root_is_a_one_line_error(cli_lab: str) -> None:
    proc = gf("lab", "up", "--name", cli_lab, user="65534")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (
        "error: the lab needs root (network namespaces, mounts, "
        "systemd-nspawn): run it with sudo or as root"
    )


def test_missing_system_packages_are_named(cli_lab: str, tmp_path: Path) -> None:
    bindir = tmp_path / "bin"  # a PATH with every lab tool except systemd-nspawn and nc
    bindir.mkdir()
    for tool in ("debootstrap", "ssh", "ssh-keygen", "ip", "tc", "nsenter", "unshare"):
        real = subprocess.run(
            ["sh", "-c", f"command -v {tool}"], capture_output=True, text=True, check=True
        ).stdout.strip()
        (bindir / tool).symlink_to(real)
    proc = gf("lab", "up", "--name", cli_lab, env={"PATH": str(bindir)})
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: missing system package(s) for the lab: "
        "netcat-openbsd, systemd-container; `make lab-deps` "
        "installs them"
    )
    assert leftovers(cli_lab) == []


def test_failed_start_removes_what_it_made(cli_lab: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpufabric.errors import UserError
    from gpufabric.lab import hosts, lab

    def no_boot(*_args: object) -> str:
        raise UserError("lab host h2 did not finish booting in time")

    monkeypatch.setattr(hosts, "wait_booted", no_boot)  # after mounts, namespaces, nspawns
    with pytest.raises(UserError, match="did not finish booting"):
        lab.up(cli_lab, 2, 1, None)
    kept = LabPaths.of(cli_lab).failed_logs  # what the hosts printed, for the user to read
    assert leftovers(cli_lab) == [str(kept)]
    assert sorted(p.name for p in kept.iterdir()) == ["h1.console.log", "h2.console.log"]
    down = gf("lab", "down", "--name", cli_lab)  # and `down` removes those too
    assert down.returncode == 0 and leftovers(cli_lab) == []


def test_labs_of_dead_runs_are_reaped_live_ones_kept(cli_lab: str) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid is gone: a lab named after it belongs to a crashed run
    stale = f"{PREFIX}{dead.pid}"
    for name in (stale, cli_lab):
        up = gf("lab", "up", "--nodes", "1", "--leaves", "1", "--name", name)
        assert up.returncode == 0, up.stderr
    try:
        assert reap_stale_labs(PREFIX) == [stale]
        assert leftovers(stale) == []
        assert gf("lab", "status", "--name", cli_lab).returncode == 0  # this run's lab stays
    finally:
        gf("lab", "down", "--name", stale)
