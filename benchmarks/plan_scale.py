"""Offline-plan wall time and peak memory at 16, 128 and 1024 nodes, group vs instances.

Each case runs in a fresh process (imports included, as `gpufabric plan` pays them), measured
side by side in one run; the ratios are the figures, the absolute times are this machine's.

    .venv/bin/python benchmarks/plan_scale.py [--stack aws-h100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

REPO = Path(__file__).resolve().parents[1]
NODES = (16, 128, 1024)
MODES = ("group", "instances")

CHILD = """
import json, resource, sys, time
from pathlib import Path
from gpufabric.plan import run_plan
start = time.perf_counter()
plan = run_plan(Path(sys.argv[1]), sys.argv[2], sys.argv[3:])
elapsed = time.perf_counter() - start
peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": elapsed, "peak_mib": peak_mib, "resources": len(plan.resources)}))
"""


def measure(stack: str, nodes: int, mode: str) -> dict[str, float]:
    overrides = [f"gpufabric:nodes={nodes}", f"gpufabric:nodeGroup={mode}"]
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(REPO), stack, *overrides],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", default="aws-h100")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    console = Console()
    results: dict[tuple[int, str], dict[str, float]] = {}
    with console.status("planning...") as status:
        for nodes in NODES:
            for mode in MODES:
                status.update(f"planning {args.stack}: {nodes} nodes as {mode}")
                runs = [measure(args.stack, nodes, mode) for _ in range(args.repeat)]
                results[(nodes, mode)] = {
                    "seconds": statistics.median(r["seconds"] for r in runs),
                    "peak_mib": max(r["peak_mib"] for r in runs),
                    "resources": runs[0]["resources"],
                }
    table = Table(
        title=f"gpufabric plan -s {args.stack} (median of {args.repeat}, fresh process each)"
    )
    for column in (
        "nodes",
        "mode",
        "resources",
        "plan s",
        "peak MiB",
        "time vs group",
        "memory vs group",
    ):
        table.add_column(column, justify="right")
    for nodes in NODES:
        group = results[(nodes, "group")]
        for mode in MODES:
            r = results[(nodes, mode)]
            table.add_row(
                str(nodes),
                mode,
                str(int(r["resources"])),
                f"{r['seconds']:.2f}",
                f"{r['peak_mib']:.0f}",
                f"{r['seconds'] / group['seconds']:.1f}x",
                f"{r['peak_mib'] / group['peak_mib']:.2f}x",
            )
    console.print(table)
    for mode in MODES:
        small, large = results[(NODES[0], mode)], results[(NODES[-1], mode)]
        console.print(
            f"{mode}: {NODES[-1]} vs {NODES[0]} nodes: time {large['seconds'] / small['seconds']:.2f}x, "
            f"peak memory {large['peak_mib'] / small['peak_mib']:.2f}x, "
            f"resources {large['resources'] / small['resources']:.2f}x"
        )


if __name__ == "__main__":
    main()
