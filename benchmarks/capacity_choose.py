"""Capacity choice at 1,000-4,000 hosts, side by side with the CLI's own start-up.

    .venv/bin/python benchmarks/capacity_choose.py [--seed 0] [--repeat 3]

Synthetic capacity (gpufabric.capacity.synthetic: random occupancy per leaf, 8 % of units
unhealthy) in three shapes: several reservations per network leaf, one sub-block per leaf, and
network blocks dealt to four HPC islands. For each size: the time to choose for a small, a
middle and a large node count, printed beside `gpufabric --version` (the CLI's start-up,
measured in the same run) as a ratio, and the choice's leaves against the bound. Then the whole
command end to end: `gpufabric capacity plan --json` on saved AWS output of 4,000 hosts (a
copy of the aws-h100 stack asking for 512 nodes), less the CLI's start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gpufabric.capacity.choose import choose
from gpufabric.capacity.synthetic import synthetic_units

SHAPES = {
    "reservations-on-leaves": (32, 4, 1),
    "sub-blocks": (18, 1, 1),
    "network-blocks-in-islands": (64, 1, 4),
}


def timed(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli_start_up(repeat: int) -> float:
    exe = Path(sys.executable).with_name("gpufabric")
    return timed(
        lambda: subprocess.run([str(exe), "--version"], check=True, capture_output=True), repeat
    )


REPO = Path(__file__).resolve().parents[1]


def aws_output(folder: Path, seed: int) -> list[str]:
    """Saved describe-capacity-reservations / -topology for 4,000 synthetic hosts."""
    cap = synthetic_units(4000, 32, 4, 1, 0.08, seed)
    reservations, topology = [], []
    for i, unit in enumerate(cap.units):
        rid = f"cr-{i:017x}"
        reservations.append(
            {
                "CapacityReservationId": rid,
                "InstanceType": "p5.48xlarge",
                "AvailabilityZone": "us-east-1a",
                "AvailableInstanceCount": unit.free,
                "TotalInstanceCount": unit.free + 4,
                "State": "active" if unit.healthy else "pending",
                "ReservationType": "default",
            }
        )
        topology.append({"CapacityReservationId": rid, "NetworkNodes": ["nn-1", "nn-2", unit.leaf]})
    args = []
    for name, items in (("reservations.json", reservations), ("topology.json", topology)):
        (folder / name).write_text(json.dumps({"CapacityReservations": items}))
        args += ["--from", str(folder / name)]
    return args


def end_to_end(repeat: int, seed: int) -> float:
    exe = str(Path(sys.executable).with_name("gpufabric"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "stacks").mkdir()
        shutil.copy(REPO / "Pulumi.yaml", root)
        stack = (REPO / "stacks" / "Pulumi.aws-h100.yaml").read_text()
        (root / "stacks" / "Pulumi.aws-h100.yaml").write_text(
            stack.replace("gpufabric:nodes: 16", "gpufabric:nodes: 512")
        )
        args = [exe, "capacity", "plan", "-s", "aws-h100", "--json", *aws_output(root, seed)]
        env = {**os.environ, "GPUFABRIC_PROJECT": str(root)}
        return timed(lambda: subprocess.run(args, check=True, capture_output=True, env=env), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    start_up = cli_start_up(args.repeat)
    table = Table(title=f"capacity choice vs CLI start-up ({start_up * 1000:.0f} ms)")
    for column in ("shape", "hosts", "nodes", "choose ms", "x start-up", "leaves / bound"):
        table.add_column(column, justify="right")
    for shape, (leaf_size, per_leaf, groups) in SHAPES.items():
        for hosts in (1000, 2000, 4000):
            cap = synthetic_units(hosts, leaf_size, per_leaf, groups, 0.08, args.seed)
            free = sum(u.free for u in cap.usable()) // groups
            for nodes in (max(1, free // 16), free // 4, (free * 3) // 4):
                seconds = timed(lambda c=cap, n=nodes: choose(c, n), args.repeat)
                choice = choose(cap, nodes)
                table.add_row(
                    shape,
                    str(hosts),
                    str(nodes),
                    f"{seconds * 1000:.1f}",
                    f"{seconds / start_up:.3f}",
                    f"{choice.leaves} / {choice.bound}",
                )
    Console().print(table)
    whole = end_to_end(args.repeat, args.seed)
    Console().print(
        f"gpufabric capacity plan, 4,000 hosts of saved AWS output, 512 nodes: "
        f"{whole * 1000:.0f} ms; CLI start-up {start_up * 1000:.0f} ms; "
        f"difference {(whole - start_up) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
