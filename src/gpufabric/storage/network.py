"""How fast the nodes reach the file system: per-node NIC capacity x nodes, from the catalog.

The path storage traffic takes is the cloud's to say (its package's facts.storage_path, each
rule with its source in docs/sources.md). These are line rates: an upper bound. A goal above it
cannot be met by any file system.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufabric.catalog import InstanceType
from gpufabric.clouds import registry


@dataclass(frozen=True)
class NodePath:
    gbps_per_node: float  # Gbit/s
    how: str  # what carries it, in words

    def aggregate_gbytes(self, nodes: int) -> float:
        """GB/s all nodes can move to or from the file system at line rate."""
        return self.gbps_per_node * nodes / 8


def node_path(itype: InstanceType, efa: bool = False) -> NodePath | None:
    """The storage path of one node of `itype` (`efa`: an EFA-enabled file system); None when
    the catalog cannot say."""
    facts = registry.module(itype.cloud, "facts")
    path = facts.storage_path(itype, efa) if hasattr(facts, "storage_path") else None
    return NodePath(*path) if path is not None else None
