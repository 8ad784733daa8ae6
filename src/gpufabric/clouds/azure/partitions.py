"""How the nodes are cut into VM scale sets, i.e. InfiniBand partitions.

Pure data (no Pulumi), so the cut is tested on its own. Rules (docs/sources.md D.2): Azure sets
up InfiniBand only between VMs of one scale set with singlePlacementGroup on; such a set holds
at most 100 VMs by default (300 after a support request); each set gets its own partition key,
and there is no InfiniBand between sets.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Partition:
    index: int
    scale_set: str
    size: int


def scale_set_sizes(nodes: int, max_per_set: int) -> list[int]:
    """Full sets first, the rest in the last one: the largest possible InfiniBand partitions,
    so the biggest job that fits in one partition is as big as the limit allows."""
    if nodes < 1 or max_per_set < 1:
        raise ValueError(f"nodes ({nodes}) and max_per_set ({max_per_set}) must be positive")
    full, rest = divmod(nodes, max_per_set)
    return [max_per_set] * full + ([rest] if rest else [])


def partitions(cluster: str, nodes: int, max_per_set: int) -> list[Partition]:
    """One scale set per partition, named <cluster>-ib<index>."""
    return [
        Partition(index, f"{cluster}-ib{index}", size)
        for index, size in enumerate(scale_set_sizes(nodes, max_per_set))
    ]
