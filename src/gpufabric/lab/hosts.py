"""Lab hosts: an overlay of the base rootfs booted by systemd-nspawn in the host's netns.

Per host: overlay mount (own upper dir) -> hostname, machine-id, /etc/hosts, root's authorized
key, fresh ssh host keys -> `systemd-nspawn --boot` started in its own session. Stopping is by
the recorded PID only (never by name); leftovers in the host's netns are killed by PID too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

from gpufabric.errors import UserError
from gpufabric.lab.layout import HostPlan, LabLayout

PROPAGATE_DIR = Path("/run/systemd/nspawn/propagate")
HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
WAIT_STEP = 30.0  # seconds of one `systemctl is-system-running --wait`


def mount_overlay(lower: Path, hostdir: Path) -> Path:
    upper, work, root = hostdir / "upper", hostdir / "work", hostdir / "root"
    for d in (upper, work, root):
        d.mkdir(parents=True, exist_ok=True)
    opts = f"lowerdir={lower},upperdir={upper},workdir={work}"
    proc = subprocess.run(
        ["mount", "-t", "overlay", "overlay", "-o", opts, str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise UserError(f"overlay mount of {root} failed: {proc.stderr.strip()}")
    return root


def hosts_file(layout: LabLayout) -> str:
    lines = [
        "127.0.0.1\tlocalhost",
        "::1\tlocalhost ip6-localhost ip6-loopback",
        f"{layout.controller_address}\tcontroller",
    ]
    lines += [f"{h.address}\t{h.name}" for h in layout.hosts]
    return "\n".join(lines) + "\n"


def prepare(root: Path, host: HostPlan, layout: LabLayout, public_key: str) -> str:
    """Write the host's own files into its overlay; returns its ed25519 public host key."""
    (root / "etc/hostname").write_text(host.name + "\n")
    (root / "etc/machine-id").write_text(uuid.uuid4().hex + "\n")
    (root / "etc/hosts").write_text(hosts_file(layout))
    ssh_dir = root / "root/.ssh"
    ssh_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    auth = ssh_dir / "authorized_keys"
    auth.write_text(public_key.strip() + "\n")
    auth.chmod(0o600)
    subprocess.run(["ssh-keygen", "-q", "-A", "-f", str(root)], check=True, capture_output=True)
    return (root / "etc/ssh/ssh_host_ed25519_key.pub").read_text().split()[1]


# Where every lab host sees the lab's one shared directory (a stand-in for a shared file
# system such as Lustre: same files from every host, but no network in between).
SHARED_MOUNT = "/srv/gpufabric-shared"


# `up --boot`: the lab's object-store stand-in, read-only in every host
OBJECTS_MOUNT = "/srv/gpufabric-objects"


def nspawn_argv(
    root: Path, host: HostPlan, shared: Path | None = None, objects: Path | None = None
) -> list[str]:
    bind = [f"--bind={shared}:{SHARED_MOUNT}"] if shared is not None else []
    bind += [f"--bind-ro={objects}:{OBJECTS_MOUNT}"] if objects is not None else []
    return [
        "systemd-nspawn",
        "-q",
        "--boot",
        "--register=no",
        "--keep-unit",
        "--capability=CAP_NET_ADMIN,CAP_NET_RAW",
        "--bind=/dev/net/tun",
        f"--directory={root}",
        f"--hostname={host.name}",
        f"--machine={host.machine}",
        f"--network-namespace-path=/run/netns/{host.netns}",
        "--console=passive",
        *bind,
    ]


def start(
    root: Path,
    host: HostPlan,
    console_log: Path,
    shared: Path | None = None,
    objects: Path | None = None,
) -> int:
    env = {"PATH": HOST_PATH, "SYSTEMD_NSPAWN_API_VFS_WRITABLE": "network"}
    with open(console_log, "ab") as out:
        proc = subprocess.Popen(
            nspawn_argv(
                root, host, shared if shared is not None and shared.is_dir() else None, objects
            ),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    return proc.pid  # detached on purpose: `lab down` stops it by this PID


def is_nspawn_of(pid: int, host: HostPlan) -> bool:
    """True if `pid` is still this host's systemd-nspawn (guards against PID reuse)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return (
        bool(argv)
        and argv[0].endswith(b"systemd-nspawn")
        and f"--machine={host.machine}".encode() in argv
    )


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
    return kids


def leader_pid(nspawn_pid: int) -> int | None:
    """PID (on the machine) of the host's init: the descendant that is PID 1 in its namespace."""
    todo = _children(nspawn_pid)
    while todo:
        pid = todo.pop()
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        nspid = next((ln.split()[1:] for ln in status.splitlines() if ln.startswith("NSpid:")), [])
        if len(nspid) >= 2 and nspid[-1] == "1":
            return pid
        todo += _children(pid)
    return None


def run_in(
    leader: int, argv: list[str], timeout: float = 120, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `argv` inside the host whose init is `leader` (its mount, pid, net, uts, ipc ns)."""
    full = [
        "nsenter",
        "-t",
        str(leader),
        "-m",
        "-u",
        "-i",
        "-n",
        "-p",
        "-r",
        "-w",
        "env",
        "-i",
        f"PATH={HOST_PATH}",
        "HOME=/root",
        "LC_ALL=C",
        *argv,
    ]
    return subprocess.run(
        full, capture_output=True, text=True, timeout=timeout, input=input_text, check=False
    )


def _retry_failed_units(leader: int) -> str:
    """Start once more the units that failed at boot; returns the state after that.

    Under nspawn with --keep-unit on a machine whose PID 1 is not systemd, a short-lived boot
    unit now and then fails to get its cgroup (exit status 219/CGROUP: seen about 1 boot in 4,
    a different unit each time). One retry makes the host's boot deterministic; a unit that
    fails again stays failed and the host stays "degraded", as reported by `lab status`."""
    failed = run_in(
        leader, ["systemctl", "list-units", "--state=failed", "--no-legend", "--plain", "--full"]
    ).stdout.split("\n")
    # cloud-init's units (`lab up --boot`) run once per instance: their failure is the host's
    # boot result (lab status), not something to start again
    units = [
        line.split()[0]
        for line in failed
        if line.strip() and not line.split()[0].startswith("cloud-")
    ]
    if units:
        run_in(leader, ["systemctl", "reset-failed", *units])
        run_in(leader, ["systemctl", "start", *units], timeout=60)
    return run_in(leader, ["systemctl", "is-system-running"]).stdout.strip()


def wait_booted(nspawn_pid: int, host: HostPlan, deadline: float) -> str:
    """Wait until the host's systemd finished booting; returns is-system-running's answer."""
    while time.monotonic() < deadline:
        if not is_nspawn_of(nspawn_pid, host):
            raise UserError(f"lab host {host.name} exited while booting; see its console log")
        leader = leader_pid(nspawn_pid)
        if leader is not None:
            # short waits, asked again: a long boot (`lab up --boot` runs the playbooks in
            # cloud-final) was seen to leave `--wait` waiting after the boot had finished
            left = max(1.0, min(WAIT_STEP, deadline - time.monotonic()))
            try:
                proc = run_in(leader, ["systemctl", "is-system-running", "--wait"], timeout=left)
            except subprocess.TimeoutExpired:
                continue
            state = proc.stdout.strip()
            if state == "degraded":
                state = _retry_failed_units(leader)
            if state in ("running", "degraded"):
                return state
        time.sleep(0.2)
    raise UserError(f"lab host {host.name} did not finish booting in time; see its console log")


def netns_pids(netns: str) -> list[int]:
    proc = subprocess.run(
        ["ip", "netns", "pids", netns], capture_output=True, text=True, check=False
    )
    return [int(p) for p in proc.stdout.split()] if proc.returncode == 0 else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def stop(targets: list[tuple[int | None, HostPlan]], grace: float = 15.0) -> None:
    """Ask every host to power off (SIGTERM to its nspawn), wait, then kill what is left.

    All hosts shut down in parallel; every signal goes to a recorded or netns-listed PID.
    """
    mine = [(pid, h) for pid, h in targets if pid is not None and is_nspawn_of(pid, h)]
    for pid, _h in mine:
        os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + grace
    while time.monotonic() < end and any(_alive(pid) for pid, _h in mine):
        for pid, _h in mine:
            _reap(pid)
        time.sleep(0.1)
    for pid, h in mine:
        if is_nspawn_of(pid, h):
            os.kill(pid, signal.SIGKILL)
    for _pid, h in targets:
        kill_netns_processes(h.netns)
    for pid, _h in mine:
        _reap(pid)


def kill_netns_processes(netns: str) -> None:
    for _ in range(50):
        left = netns_pids(netns)
        if not left:
            return
        for p in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
        time.sleep(0.1)


def _reap(pid: int) -> None:
    """Collect the exit status if `pid` is our own child (it is when up and down share a process)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def remove_propagate_dir(host: HostPlan) -> None:
    d = PROPAGATE_DIR / host.machine
    if d.is_dir():
        for f in d.iterdir():
            f.unlink()
        d.rmdir()


def leftover_propagate_dirs(lab: str) -> list[Path]:
    """nspawn's propagate dirs of lab `lab`'s machines (gf-LAB-hN), e.g. after a crash."""
    if not PROPAGATE_DIR.is_dir():
        return []
    prefix = f"gf-{lab}-h"
    return [
        d
        for d in PROPAGATE_DIR.iterdir()
        if d.name.startswith(prefix) and d.name[len(prefix) :].isdigit()
    ]
