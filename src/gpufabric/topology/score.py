"""Scores of a rank order, each beside its lower bound for the same allocation.

For every group that talks over the network (the whole job as one ring when no parallel layout
is given, else the cp / ep / dp groups that span nodes):
- leaves touched; bound: the fewest leaves that can hold that many of the allocation's nodes;
- cross-leaf ring edges: a ring over the group in rank order (cyclic) that changes leaf; bound:
  0 on one leaf, else the leaves bound (every leaf of the ring is entered at least once);
- bytes over the spine for a ring all-reduce of `message_bytes` per rank: each ring edge carries
  2(n-1)/n x message_bytes, so cross-leaf edges x that; bound: bound edges x that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpufabric.topology.model import Host, Topology
from gpufabric.topology.parallel import Parallelism

NETWORK_DIMS = ("cp", "ep", "dp")


@dataclass(frozen=True)
class Score:
    group: str  # "ring" (whole job) or a parallel dimension
    groups: int  # how many groups of that kind span more than one node
    leaves_touched: int
    leaves_bound: int
    cross_leaf_edges: int
    cross_leaf_bound: int
    spine_bytes: float
    spine_bytes_bound: float

    def ratios(self) -> dict[str, float]:
        """value / bound per metric (1.0 = optimal; bound 0 and value 0 count as 1.0)."""

        def r(value: float, bound: float) -> float:
            if bound == 0:
                return 1.0 if value == 0 else float("inf")
            return value / bound

        return {
            "leaves_touched": r(self.leaves_touched, self.leaves_bound),
            "cross_leaf_edges": r(self.cross_leaf_edges, self.cross_leaf_bound),
            "spine_bytes": r(self.spine_bytes, self.spine_bytes_bound),
        }


def min_leaves(leaf_sizes: Sequence[int], nodes: int) -> int:
    """Fewest leaves (sizes in the allocation) that together hold `nodes` nodes."""
    total = 0
    for k, size in enumerate(sorted(leaf_sizes, reverse=True), start=1):
        total += size
        if total >= nodes:
            return k
    return len(leaf_sizes)


def ring_edges(leaves: Sequence[str]) -> int:
    """Cross-leaf edges of a cyclic ring visiting `leaves` in order."""
    n = len(leaves)
    if n < 2:
        return 0
    return sum(leaves[i] != leaves[(i + 1) % n] for i in range(n))


def _score(
    kind: str, groups: list[list[Host]], leaf_sizes: list[int], message_bytes: float
) -> Score:
    touched = bound = edges = edges_bound = 0
    spine = spine_bound = 0.0
    counted = 0
    for group in groups:
        n = len(group)
        if n < 2:
            continue
        counted += 1
        leaves = [h.leaf for h in group]
        k = min_leaves(leaf_sizes, n)
        e = ring_edges(leaves)
        eb = 0 if k == 1 else k
        per_edge = 2 * (n - 1) / n * message_bytes
        touched += len(set(leaves))
        bound += k
        edges += e
        edges_bound += eb
        spine += e * per_edge
        spine_bound += eb * per_edge
    return Score(kind, counted, touched, bound, edges, edges_bound, spine, spine_bound)


def score_order(
    topology: Topology,
    order: Sequence[Host],
    parallelism: Parallelism | None = None,
    message_bytes: float = 1 << 30,
) -> list[Score]:
    """Scores of `order` (all of the topology's hosts, in rank order)."""
    leaf_sizes = [len(hosts) for hosts in topology.leaves().values()]
    if parallelism is None:
        return [_score("ring", [list(order)], leaf_sizes, message_bytes)]
    out: list[Score] = []
    for dim in NETWORK_DIMS:
        groups = [[order[i] for i in g] for g in parallelism.groups(len(order), dim)]
        score = _score(dim, groups, leaf_sizes, message_bytes)
        if score.groups:
            out.append(score)
    return out
