"""Bring a lab up, take it down, report on it: the steps behind `gpufabric lab ...`.

`up` records every namespace, mount and PID in the state file before it makes the next one,
and undoes everything if a step fails; `down` works from the state file and also from what it
finds on the machine by the lab's exact names, so it is safe to run twice or after a crash.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpufabric.errors import UserError
from gpufabric.lab import boot as lab_boot
from gpufabric.lab import hosts, inventory, layout, network, rootfs, state
from gpufabric.lab.state import LabPaths, LabState

# tool -> Debian package that ships it (what `make lab-deps` installs)
REQUIRED_TOOLS = {
    "debootstrap": "debootstrap",
    "systemd-nspawn": "systemd-container",
    "ssh": "openssh-client",
    "ssh-keygen": "openssh-client",
    "ip": "iproute2",
    "tc": "iproute2",
    "nc": "netcat-openbsd",
    "nsenter": "util-linux",
    "unshare": "util-linux",
}
BOOT_TIMEOUT = 120.0
# `up --boot`: systemd's boot includes cloud-final, which installs the node runtime and runs the
# playbooks on every host at once (all on this machine's CPUs)
BOOT_CONFIGURE_TIMEOUT = 1200.0
# Every lab host's systemd (all root, so one per-user quota on the machine) holds ~6 inotify
# instances; Debian's default of 128 runs out at ~20 hosts and units then fail at boot
# ("degraded"). The same floor kind and LXD document for many containers on one machine.
INOTIFY_FLOOR = {"fs/inotify/max_user_instances": 1024, "fs/inotify/max_user_watches": 524288}


def check_root(euid: int | None = None) -> None:
    if (os.geteuid() if euid is None else euid) != 0:
        raise UserError(
            "the lab needs root (network namespaces, mounts, systemd-nspawn): "
            "run it with sudo or as root"
        )


def missing_packages(which: Callable[[str], str | None] = shutil.which) -> list[str]:
    return sorted({pkg for tool, pkg in REQUIRED_TOOLS.items() if which(tool) is None})


def check_tools(which: Callable[[str], str | None] = shutil.which) -> None:
    missing = missing_packages(which)
    if missing:
        raise UserError(
            f"missing system package(s) for the lab: {', '.join(missing)}; "
            "`make lab-deps` installs them"
        )


def inotify_raises(current: dict[str, int]) -> dict[str, int]:
    """The inotify limits to raise (to INOTIFY_FLOOR) given their current values; never lowers."""
    return {k: floor for k, floor in INOTIFY_FLOOR.items() if current.get(k, 0) < floor}


def raise_inotify_limits(progress: Callable[[str], None]) -> None:
    proc = Path("/proc/sys")
    current = {k: int((proc / k).read_text()) for k in INOTIFY_FLOOR}
    for key, value in inotify_raises(current).items():
        (proc / key).write_text(str(value))
        progress(
            f"raised {key.replace('/', '.')} from {current[key]} to {value} "
            "(lab hosts' systemd needs inotify; not persisted)"
        )


@dataclass
class UpResult:
    state: LabState
    paths: LabPaths
    boot: dict[str, str]  # host -> `systemctl is-system-running`
    seconds: float


def up(
    name: str,
    nodes: int,
    leaves: int,
    spine_rate: str | None,
    progress: Callable[[str], None] = lambda _m: None,
    boot: bool = False,
) -> UpResult:
    layout.check_name(name)
    layout.check_counts(nodes, leaves)
    if spine_rate is not None:
        layout.rate_bits(spine_rate)
    check_root()
    check_tools()
    paths = LabPaths.of(name)
    if paths.state.exists() or layout.owned_netns(name, network.existing_netns()):
        raise UserError(
            f"lab {name!r} is already up (or half up): `gpufabric lab down --name {name}` first"
        )
    started = time.monotonic()
    plan = layout.make_layout(name, nodes, leaves, state.other_labs_subnets(name))
    raise_inotify_limits(progress)
    progress(f"base image: {rootfs.cache_dir()} (built only if its package list changed)")
    base = rootfs.ensure_rootfs()
    paths.root.mkdir(parents=True, exist_ok=True)
    st = LabState(layout=plan, spine_rate=spine_rate, rootfs=str(base), boot=boot)
    state.save(paths, st)
    try:
        systemd = _bring_up(st, paths, progress)
    except BaseException:
        kept = _keep_console_logs(paths)
        progress(f"start failed; removing what was made (hosts' console logs kept in {kept})")
        down(name, keep_failed_logs=True)
        raise
    st.phase = "up"
    state.save(paths, st)
    return UpResult(st, paths, systemd, time.monotonic() - started)


def _bring_up(st: LabState, paths: LabPaths, progress: Callable[[str], None]) -> dict[str, str]:
    plan = st.layout
    progress(f"network: {len(plan.leaves)} leaves, spine, {len(plan.hosts)} hosts in {plan.subnet}")
    network.create(plan)
    network.set_spine_rate(plan, st.spine_rate)
    paths.ssh_key.parent.mkdir(mode=0o700, exist_ok=True)
    subprocess.run(
        [
            "ssh-keygen",
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            f"gpufabric-lab-{plan.name}",
            "-f",
            str(paths.ssh_key),
        ],
        check=True,
        capture_output=True,
    )
    public_key = paths.ssh_key.with_suffix(".pub").read_text()
    host_keys: dict[str, str] = {}
    bundle = None
    if st.boot:
        bundle = lab_boot.publish(plan, paths.objects)
        progress(f"bundle {bundle.name} (sha256 {bundle.sha256[:16]}...) in {paths.objects}")
    for h in plan.hosts:
        hostdir = paths.host_dir(h.name)
        root = paths.host_root(h.name)
        st.mounts.append(str(root))
        state.save(paths, st)
        hosts.mount_overlay(Path(st.rootfs), hostdir)
        host_keys[h.name] = hosts.prepare(root, h, plan, public_key)
        if bundle is not None:
            lab_boot.seed(root, h, bundle)
    progress(
        "booting hosts (systemd-nspawn --boot"
        + ("; cloud-init configures each host from the bundle)" if bundle else ")")
    )
    paths.shared.mkdir(mode=0o755, exist_ok=True)
    objects = paths.objects if bundle is not None else None
    for h in plan.hosts:
        st.pids[h.name] = hosts.start(
            paths.host_root(h.name),
            h,
            paths.host_dir(h.name) / "console.log",
            paths.shared,
            objects,
        )
        state.save(paths, st)
    deadline = time.monotonic() + (BOOT_CONFIGURE_TIMEOUT if st.boot else BOOT_TIMEOUT)
    boot = {h.name: hosts.wait_booted(st.pids[h.name], h, deadline) for h in plan.hosts}
    paths.known_hosts.write_text(inventory.render_known_hosts(plan, host_keys))
    paths.inventory.write_text(inventory.render(plan, paths.ssh_key, paths.known_hosts))
    return boot


def _keep_console_logs(paths: LabPaths) -> Path:
    """Copy the hosts' console logs out of the lab directory before a failed start's cleanup."""
    kept = paths.failed_logs
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir(parents=True)
    for log in paths.root.glob("hosts/*/console.log"):
        shutil.copy(log, kept / f"{log.parent.name}.console.log")
    return kept


def down(name: str, keep_failed_logs: bool = False) -> list[str]:
    """Remove everything lab `name` made; returns what was removed (empty: nothing was up)."""
    layout.check_name(name)
    check_root()
    paths = LabPaths.of(name)
    st = state.load(paths)
    removed: list[str] = []
    if st is not None:
        targets = [(st.pids.get(h.name), h) for h in st.layout.hosts]
        hosts.stop(targets)
        removed += [f"host {h.name}" for pid, h in targets if pid is not None]
        for h in st.layout.hosts:
            hosts.remove_propagate_dir(h)
    for mnt in _mounts_under(paths.root):
        _umount(mnt)
        removed.append(f"mount {mnt}")
    leftover = layout.owned_netns(name, network.existing_netns())
    for ns in leftover:  # e.g. ssh ProxyCommands in the controller namespace
        hosts.kill_netns_processes(ns)
    network.delete(leftover)
    removed += [f"netns {ns}" for ns in leftover]
    for d in hosts.leftover_propagate_dirs(name):
        shutil.rmtree(d)
        removed.append(f"dir {d}")
    for d in (paths.root, *(() if keep_failed_logs else (paths.failed_logs,))):
        if d.exists():
            shutil.rmtree(d)
            removed.append(f"dir {d}")
    return removed


def _mounts_under(root: Path) -> list[str]:
    """Mount points at or below `root`, deepest first (from /proc/self/mountinfo)."""
    prefix = str(root).rstrip("/") + "/"
    out: list[str] = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point.startswith(prefix) or point == str(root):
            out.append(point)
    return sorted(set(out), key=len, reverse=True)


def _umount(point: str) -> None:
    for _ in range(50):
        if subprocess.run(["umount", point], capture_output=True, check=False).returncode == 0:
            return
        time.sleep(0.1)
    raise UserError(f"could not unmount {point} (still busy); run `gpufabric lab down` again")


@dataclass
class HostStatus:
    name: str
    address: str
    leaf: str
    running: bool
    systemd: str
    configured: str = ""  # `up --boot`: configured / not configured / configuring
    why: str = ""


def load_up(name: str) -> tuple[LabState, LabPaths]:
    layout.check_name(name)
    paths = LabPaths.of(name)
    try:
        st = state.load(paths)
    except PermissionError:
        raise UserError(f"cannot read {paths.state}: the lab needs root") from None
    if st is None:
        raise UserError(f"lab {name!r} is not up (`gpufabric lab up --name {name}`)")
    return st, paths


def host_status(st: LabState) -> list[HostStatus]:
    out: list[HostStatus] = []
    for h in st.layout.hosts:
        pid = st.pids.get(h.name)
        running = pid is not None and hosts.is_nspawn_of(pid, h)
        systemd = "-"
        leader = hosts.leader_pid(pid) if running and pid is not None else None
        if leader is not None:
            proc = hosts.run_in(leader, ["systemctl", "is-system-running"], timeout=20)
            systemd = proc.stdout.strip() or "unknown"
        hs = HostStatus(h.name, h.address, h.leaf, running, systemd)
        if st.boot:
            text = None
            if leader is not None:
                res = hosts.run_in(leader, ["cat", lab_boot.RESULT_PATH], timeout=20)
                text = res.stdout if res.returncode == 0 else None
            hs.configured, hs.why = lab_boot.read_result(text)
            if leader is None:
                hs.why = "host not running"
        out.append(hs)
    return out


def run_in_host(
    st: LabState, host: str, argv: list[str], timeout: float = 300, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command inside a lab host (nsenter into its init's namespaces; no ssh)."""
    h = st.layout.host(host)
    pid = st.pids.get(h.name)
    leader = hosts.leader_pid(pid) if pid is not None and hosts.is_nspawn_of(pid, h) else None
    if leader is None:
        raise UserError(f"lab host {host} is not running")
    return hosts.run_in(leader, argv, timeout=timeout, input_text=input_text)


def set_spine_rate(name: str, rate: str | None) -> LabState:
    """Change (or with None remove) the spine shaping of a running lab."""
    check_root()
    st, paths = load_up(name)
    network.set_spine_rate(st.layout, rate)
    st.spine_rate = rate
    state.save(paths, st)
    return st
