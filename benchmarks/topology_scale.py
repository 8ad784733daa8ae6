"""Topology ordering and emitting at 64 / 1024 / 4096 nodes, 3- and 4-level fragmented fabrics.

    .venv/bin/python benchmarks/topology_scale.py [--seed 0] [--repeat 3]

Synthetic allocations (gpufabric.topology.synthetic: random 70 % of each leaf's 16 slots, so
leaves hold uneven node counts; 4-node NVLink domains partly allocated on the 4-level fabric;
addresses handed out in random launch order). For each: time to order and to emit every format,
and the scores of three orders measured side by side: topology-aware, shuffled, address-sorted.
Scores are printed as value / lower bound (1.00 = optimal), for the whole-job ring and for the
data-parallel groups of a Megatron layout (tp=8 in a node, cp=2, pp=4).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from gpufabric.topology.emit import hostfile, kubernetes, slurm, topology_file
from gpufabric.topology.model import Host, Topology
from gpufabric.topology.order import address_order, topology_order
from gpufabric.topology.parallel import Parallelism
from gpufabric.topology.score import Score, score_order
from gpufabric.topology.synthetic import synthetic

LAYOUT = Parallelism(tp=8, cp=2, pp=4, gpus_per_node=8)


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds over `repeat` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def emit_all(t: Topology, order: list[Host]) -> None:
    slurm.tree_conf(t)
    slurm.topology_yaml(t)
    if t.nvlink_domains():
        slurm.block_conf(t)
    hostfile.hostfile(order, "mpirun")
    kubernetes.k8s_labels(t)
    topology_file.topology_json(t, order)


def ratio(s: Score, metric: str) -> str:
    """value / bound, or the raw value when the bound is 0 (e.g. a group that fits one leaf)."""
    value = s.ratios()[metric]
    if value != float("inf"):
        return f"{value:.2f}"
    raw = {"cross_leaf_edges": s.cross_leaf_edges, "spine_bytes": s.spine_bytes / 2**30}[metric]
    return f"{raw:.0f}/0"


def versus(scores: list[Score]) -> str:
    """Cross-leaf edges of shuffled and address-sorted orders over the topology order's."""
    base = max(scores[0].cross_leaf_edges, 1)
    return " | ".join(f"{s.cross_leaf_edges / base:.1f}x" for s in scores[1:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    table = Table(
        title="topology order + emit: value / lower bound (1.00 = optimal); "
        "topology | shuffled | address-sorted"
    )
    for col in (
        "nodes",
        "levels",
        "leaves",
        "order ms",
        "emit ms",
        "group",
        "cross-leaf edges",
        "leaves touched",
        "spine bytes",
        "edges vs topology",
    ):
        table.add_column(col, justify="right")
    for nodes in (64, 1024, 4096):
        for levels in (3, 4):
            t = synthetic(
                nodes, levels=levels, nvlink=4 if levels == 4 else 0, seed=args.seed + levels
            )
            ring = topology_order(t)
            order_s = timed(lambda t=t: topology_order(t, LAYOUT), args.repeat)
            emit_s = timed(lambda t=t, ring=ring: emit_all(t, ring), args.repeat)
            shuffled = list(t.hosts)
            random.Random(args.seed).shuffle(shuffled)
            for label, layout, topo in (
                ("ring", None, ring),
                ("dp (tp8 cp2 pp4)", LAYOUT, topology_order(t, LAYOUT)),
            ):
                scores = [score_order(t, o, layout)[-1] for o in (topo, shuffled, address_order(t))]
                table.add_row(
                    str(nodes),
                    str(levels),
                    str(len(t.leaves())),
                    f"{order_s * 1000:.0f}",
                    f"{emit_s * 1000:.0f}",
                    label,
                    " | ".join(ratio(s, "cross_leaf_edges") for s in scores),
                    " | ".join(ratio(s, "leaves_touched") for s in scores),
                    " | ".join(ratio(s, "spine_bytes") for s in scores),
                    versus(scores),
                )
    console = Console(width=190)
    console.print(table)
    console.print(
        "Columns 7-9: topology | shuffled | address-sorted, each value / its lower bound "
        "(N/0: the bound is 0). Last column: shuffled | address-sorted cross-leaf edges over the "
        "topology order's. Bounds are per group and may be unreachable all at once (dp rings "
        "interleave with cp pairs); the ring bound (= leaves of the allocation) is always "
        "reachable. Times: median of --repeat runs, this machine, one core."
    )


if __name__ == "__main__":
    main()
