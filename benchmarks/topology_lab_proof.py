"""Lab proof: a real ring all-reduce across every lab host, topology-ordered vs shuffled.

    sudo .venv/bin/python benchmarks/topology_lab_proof.py [--nodes 8 --spine-rate 500mbit]

Starts a lab (`gpufabric lab`, 2 leaves joined by a rate-limited spine), runs
playbooks/topology.yml against it (the ordered hostfile comes from the role, i.e. from the
library's order), builds a small MPI all-reduce program on every host, and times Open MPI's ring
all-reduce over TCP (ring forced) once per order, alternating, several rounds. Prints each
order's cross-leaf ring edges and bus bandwidth and the ordered/shuffled ratio (>1: ordered is
faster). Lab figures are not cluster figures: the spine is a tc-shaped veth, hosts share 2 CPUs.
"""

from __future__ import annotations

import argparse
import base64
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gpufabric.lab.handle import LabHandle
from gpufabric.topology.score import ring_edges

HERE = Path(__file__).resolve().parent
PROGRAM = "/root/topology_ring_allreduce"
MPIRUN = [
    "mpirun",
    "--allow-run-as-root",
    "--hostfile",
    "{hostfile}",
    "--map-by",
    "slot",
    "--mca",
    "btl",
    "tcp,self",
    "--mca",
    "btl_tcp_if_include",
    "eth0",
    "--mca",
    "oob_tcp_if_include",
    "eth0",
    "--mca",
    "coll_tuned_use_dynamic_rules",
    "1",
    "--mca",
    "coll_tuned_allreduce_algorithm",
    "4",
    "--mca",
    "plm_rsh_args",
    "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
]


def build(lab: LabHandle, workdir: Path) -> bytes:
    """Compile the program here against the lab's own Open MPI (the hosts have no compiler)."""
    libdir = Path(lab.state.rootfs) / "usr/lib/x86_64-linux-gnu"
    out = workdir / "topology_ring_allreduce"
    subprocess.run(
        [
            "gcc",
            "-O2",
            f"-I{libdir}/openmpi/include",
            str(HERE / "topology_ring_allreduce.c"),
            "-o",
            str(out),
            str(libdir / "libmpi.so.40"),
            f"-Wl,-rpath-link,{libdir}",
        ],
        check=True,
    )
    return out.read_bytes()


def prepare(lab: LabHandle, binary: bytes) -> None:
    """Put the program on every host; let h1 ssh to the others (mpirun's launcher)."""
    encoded = base64.b64encode(binary).decode()
    for host in lab.hosts:
        lab.run(
            host, "sh", "-c", f"base64 -d > {PROGRAM} && chmod 755 {PROGRAM}", input_text=encoded
        )
    first = lab.controller
    lab.sh(
        first,
        "test -f /root/.ssh/id_ed25519 || ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519",
    )
    pub = lab.run(first, "cat", "/root/.ssh/id_ed25519.pub").stdout.strip()
    for host in lab.hosts:
        lab.sh(
            host,
            f"grep -qxF '{pub}' /root/.ssh/authorized_keys || "
            f"echo '{pub}' >> /root/.ssh/authorized_keys",
        )


def ordered_hosts(lab: LabHandle) -> list[str]:
    """The role's hostfile (playbooks/topology.yml against the lab)."""
    result = lab.ansible_playbook(
        "playbooks/topology.yml",
        "-e",
        "topology_slurm_controller=",
        "-e",
        f"topology_login_host={lab.controller}",
        "-e",
        "topology_hostfile_style=plain",
        "-e",
        "topology_hostfile_path=/root/hostfile.topology",
    )
    if result.returncode != 0:
        sys.exit(f"playbooks/topology.yml failed:\n{result.stdout[-3000:]}{result.stderr[-2000:]}")
    return lab.run(lab.controller, "cat", "/root/hostfile.topology").stdout.split()


def rotate(hosts: list[str], first: str) -> list[str]:
    i = hosts.index(first)
    return hosts[i:] + hosts[:i]


def run_ring(lab: LabHandle, hosts: list[str], nbytes: int, iters: int) -> dict[str, str]:
    lab.run(
        lab.controller,
        "sh",
        "-c",
        "cat > /root/hostfile.run",
        input_text="".join(f"{h} slots=1\n" for h in hosts),
    )
    argv = [a.replace("{hostfile}", "/root/hostfile.run") for a in MPIRUN]
    proc = lab.run(
        lab.controller,
        *argv,
        "-np",
        str(len(hosts)),
        PROGRAM,
        str(nbytes),
        str(iters),
        timeout=1800,
    )
    fields: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        words = line.split()
        if words and words[0] == "order":
            fields["order"] = " ".join(words[1:])
        elif words and words[0] == "bytes":
            fields.update(zip(words[::2], words[1::2], strict=False))
    if fields.get("check") != "ok" or fields.get("order", "").split() != hosts:
        sys.exit(
            f"all-reduce result or rank order wrong (hostfile {hosts}):\n"
            f"{proc.stdout}\n{proc.stderr}"
        )
    return fields


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", default="topobench", help="lab name (replaced if it exists)")
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--leaves", type=int, default=2)
    ap.add_argument("--spine-rate", default="500mbit")
    ap.add_argument("--bytes", type=int, default=32 << 20)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="leave the lab running")
    args = ap.parse_args()

    console = Console(width=150)
    lab = LabHandle.start(args.name, args.nodes, args.leaves, args.spine_rate)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            prepare(lab, build(lab, Path(tmp)))
        ordered = ordered_hosts(lab)
        leaf = lab.leaves
        rng = random.Random(args.seed)
        shuffled = list(ordered)
        while ring_edges([leaf[h] for h in shuffled]) <= ring_edges([leaf[h] for h in ordered]):
            rng.shuffle(shuffled)
        # Open MPI gives rank 0 to the launching host when it is in the hostfile: rotate both
        # rings to start there (a rotation keeps every ring edge).
        orders = {
            "topology-ordered": rotate(ordered, lab.controller),
            "shuffled": rotate(shuffled, lab.controller),
        }
        busbw: dict[str, list[float]] = {k: [] for k in orders}
        for _ in range(args.rounds):
            for label, hosts in orders.items():
                fields = run_ring(lab, hosts, args.bytes, args.iters)
                busbw[label].append(float(fields["busbw_GBps"]))
    finally:
        if not args.keep:
            lab.stop()

    table = Table(
        title=f"ring all-reduce, {args.nodes} lab hosts on {args.leaves} leaves, "
        f"spine {args.spine_rate}, {args.bytes >> 20} MiB x {args.iters}, "
        f"{args.rounds} rounds (Open MPI, TCP, ring forced)"
    )
    for col in ("order", "hosts", "cross-leaf ring edges", "busbw GB/s (median)", "all rounds"):
        table.add_column(col)
    for label, hosts in orders.items():
        table.add_row(
            label,
            " ".join(hosts),
            str(ring_edges([leaf[h] for h in hosts])),
            f"{statistics.median(busbw[label]):.4f}",
            " ".join(f"{b:.4f}" for b in busbw[label]),
        )
    console.print(table)
    ratio = statistics.median(busbw["topology-ordered"]) / statistics.median(busbw["shuffled"])
    console.print(f"busbw ratio topology-ordered / shuffled: {ratio:.2f}")


if __name__ == "__main__":
    main()
