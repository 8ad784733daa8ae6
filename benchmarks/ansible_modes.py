"""Push vs boot vs fan-out on lab hosts (benchmarks/ansible_scale.py --modes; its docstring).

Controller CPU is GNU time's user + system seconds of the whole process tree it waits for
(ansible-playbook with its forks and ssh clients; clush with its ssh clients; the bundle
render). Hosts run on this machine's CPUs too, so wall times share the cores with them.

Tree mode (`tree`): ClusterShell's own tree, one gateway per leaf (the leaf's first host,
gpufabric.bundle.fanout.topology_conf). Before the timed run the gateways get what a real
gateway has installed: this venv's ClusterShell package (pure Python, the same version: head
and gateways exchange pickles) and the lab's ssh key and known_hosts at the same paths (the
head hands its ssh options to the gateways). clush runs in the lab's controller namespace, so
every hop is a plain ssh connection.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shlex
import socket
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import gnutime
from gpufabric.bundle import fanout
from gpufabric.bundle.userdata import RESULT_PATH
from gpufabric.lab import boot as lab_boot
from gpufabric.lab import lab
from gpufabric.lab.handle import REPO, LabHandle, process_lab_name, venv_bin
from gpufabric.lab.inventory import ssh_common_args
from gpufabric.lab.summary import parse_recap

SKIP = ["--skip-tags", "topology"]
RENDER = """
import sys
from pathlib import Path
from gpufabric.lab import boot
from gpufabric.lab.layout import make_layout
lay = make_layout(sys.argv[1], int(sys.argv[2]), 1, set())
b = boot.publish(lay, Path(sys.argv[3]))
print(b.name, b.sha256)
"""


def results(handle: LabHandle) -> dict[str, dict[str, Any]]:
    out = {}
    for h in handle.hosts:
        proc = handle.run(h, "cat", RESULT_PATH, check=False)
        out[h] = json.loads(proc.stdout) if proc.returncode == 0 else {"status": "missing"}
    return out


def measure_size(n: int, modes: list[str], leaves: int) -> dict[str, dict[str, float]]:
    name = process_lab_name("gfmodes")
    row: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="gf-bundle-") as tmp:
        render = gnutime.run([sys.executable, "-c", RENDER, name, str(n), tmp], REPO)
    t0 = time.monotonic()
    handle = LabHandle.start(name, nodes=n, leaves=min(leaves, n), boot=True)
    try:
        up_wall = time.monotonic() - t0
        done = results(handle)
        bad = {h: r.get("reason") for h, r in done.items() if r.get("status") != "configured"}
        if bad:
            raise SystemExit(f"boot at {n} hosts: not configured: {bad}")
        starts = [r["started"] for r in done.values()]
        ends = [r["finished"] for r in done.values()]
        if "boot" in modes:
            row["boot"] = {
                "cpu": render.cpu,
                "wall": max(ends) - min(starts),
                "lab_up": up_wall,
            }
        if "fanout" in modes:
            bundle = next(handle.paths.objects.glob("gpufabric-*.tar.gz"))
            sha = bundle.name.split("-")[-1].split(".")[0]
            full = next(r["sha256"] for r in done.values())
            assert full.startswith(sha)
            lay = handle.state.layout
            ssh = (
                f"{ssh_common_args(lay, handle.paths.known_hosts)} "
                f"-i {shlex.quote(str(handle.paths.ssh_key))} -l root"
            )
            argv = fanout.command(
                "clush",
                [h.address for h in lay.hosts],
                f"file://{lab_boot.OBJECTS_MOUNT}/{bundle.name}",
                full,
                fanout=64,
                options=["-o", ssh.replace("%", "%%")],  # clush.conf interpolation
            )
            argv[0] = venv_bin("clush")
            r = gnutime.run(argv, REPO)
            if r.rc != 0:
                raise SystemExit(
                    f"fan-out at {n} hosts failed ({r.rc}):\n{(r.stdout + r.stderr)[-2000:]}"
                )
            row["fanout"] = {"cpu": r.cpu, "wall": r.wall}
        if "tree" in modes:
            bundle = next(handle.paths.objects.glob("gpufabric-*.tar.gz"))
            full = next(r["sha256"] for r in done.values())
            url = f"file://{lab_boot.OBJECTS_MOUNT}/{bundle.name}"
            row["tree"] = tree_fanout(handle, url, full)
        if "push" in modes:
            env = {**os.environ, "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_FORKS": "32"}
            argv = [venv_bin("ansible-playbook"), "-i", str(handle.inventory)]
            r = gnutime.run([*argv, "playbooks/tune-fabric.yml", *SKIP], REPO, env)
            recap = {h: c for h, c in parse_recap(r.stdout + r.stderr).items() if h in handle.hosts}
            if r.rc != 0 or len(recap) != n:
                raise SystemExit(
                    f"push at {n} hosts failed ({r.rc}):\n{(r.stdout + r.stderr)[-2000:]}"
                )
            row["push"] = {
                "cpu": r.cpu,
                "wall": r.wall,
                "changed": float(sum(c["changed"] for c in recap.values())),
            }
    finally:
        lab.down(name)
    return row


def _clustershell_tar() -> str:
    """This venv's ClusterShell package as base64 of a .tar.gz (no byte code)."""
    import ClusterShell

    root = Path(ClusterShell.__file__).parent
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for path in sorted(root.rglob("*.py")):
            tar.add(path, arcname=f"ClusterShell/{path.relative_to(root)}")
    return base64.b64encode(raw.getvalue()).decode()


def tree_fanout(handle: LabHandle, url: str, sha256: str) -> dict[str, float]:
    """Day 2 through ClusterShell's tree: the head reaches one gateway per leaf, each gateway
    its leaf's hosts."""
    lay = handle.state.layout
    leaves: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for h in lay.hosts:
        leaves.setdefault(h.leaf, []).append(h.address)
        names[h.address] = h.name
    key, known = handle.paths.ssh_key, handle.paths.known_hosts
    package = _clustershell_tar()
    unpack = "mkdir -p /opt/clustershell && base64 -d | tar -xz -C /opt/clustershell"
    for hosts in leaves.values():  # what a gateway has installed (not timed)
        gateway = names[hosts[0]]
        handle.run(gateway, "sh", "-c", unpack, input_text=package)
        for path in (key, known):
            where = shlex.quote(str(path))
            write = (
                f"mkdir -p {shlex.quote(str(path.parent))} && cat > {where} && chmod 600 {where}"
            )
            handle.run(gateway, "sh", "-c", write, input_text=path.read_text())
    head = socket.gethostname().split(".")[0]
    ssh = (
        f"-o UserKnownHostsFile={shlex.quote(str(known))} -o StrictHostKeyChecking=yes "
        f"-o GlobalKnownHostsFile=/dev/null -o IdentitiesOnly=yes "
        f"-i {shlex.quote(str(key))} -l root"
    )
    env = {
        **os.environ,
        "CLUSTERSHELL_GW_PYTHON_EXECUTABLE": "python3",
        "PYTHONPATH": "/opt/clustershell",
    }
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as topo:
        topo.write(fanout.topology_conf(head, leaves))
        topo.flush()
        argv = fanout.command(
            "clush",
            [h.address for h in lay.hosts],
            url,
            sha256,
            topology=topo.name,
            fanout=64,
            options=["-o", ssh.replace("%", "%%")],
        )
        argv[0] = venv_bin("clush")
        r = gnutime.run(["ip", "netns", "exec", lay.controller_netns, *argv], REPO, env)
    if r.rc != 0:
        out = (r.stdout + r.stderr)[-2000:]
        raise SystemExit(f"tree fan-out at {len(lay.hosts)} hosts failed ({r.rc}):\n{out}")
    return {"cpu": r.cpu, "wall": r.wall, "gateways": float(len(leaves))}


def compare(sizes: list[int], modes: list[str], leaves: int) -> None:
    gnutime.require()
    unknown = set(modes) - {"push", "boot", "fanout", "tree"}
    if unknown:
        raise SystemExit(f"--modes: unknown {sorted(unknown)}; use push, boot, fanout, tree")
    table: dict[int, dict[str, dict[str, float]]] = {}
    print(f"{'hosts':>5} {'mode':<7} {'ctl cpu s':>9} {'cpu/host':>8} {'wall s':>7}  notes")
    for n in sizes:
        table[n] = measure_size(n, modes, leaves)
        for mode in modes:
            m = table[n][mode]
            note = {
                "boot": f"lab up {m.get('lab_up', 0):.0f} s (render + seeds + hosts + cloud-init)",
                "push": f"rerun changed={m.get('changed', 0):.0f}",
                "fanout": "clush flat, fanout 64",
                "tree": f"clush tree, {m.get('gateways', 0):.0f} gateways (one per leaf)",
            }[mode]
            print(
                f"{n:>5} {mode:<7} {m['cpu']:>9.2f} {m['cpu'] / n:>8.3f} {m['wall']:>7.1f}  {note}",
                flush=True,
            )
    base = sizes[0]
    print(f"\nratios to {base} hosts: wall(N)/wall({base}), cpu per host(N)/cpu per host({base})")
    for mode in modes:
        cells = [
            f"{n}h wall {table[n][mode]['wall'] / table[base][mode]['wall']:.2f} "
            f"cpu/host {table[n][mode]['cpu'] / n / (table[base][mode]['cpu'] / base):.2f}"
            for n in sizes
        ]
        print(f"  {mode:<7} " + "   ".join(cells))
