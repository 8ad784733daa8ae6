"""Capacity choice at 1,000-4,000 hosts, side by side with the CLI's own start-up.

    .venv/bin/python benchmarks/capacity_choose.py [--seed 0] [--repeat 3]

Synthetic capacity (gpufabric.capacity.synthetic: random occupancy per leaf, 8 % of units
unhealthy) in three shapes: several reservations per network leaf, one sub-block per leaf, and
network blocks dealt to four HPC islands. For each size: the time to choose for a small, a
middle and a large node count, printed beside `gpufabric --version` (the CLI's start-up,
measured in the same run) as a ratio, and the choice's leaves against the bound.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
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


if __name__ == "__main__":
    main()
