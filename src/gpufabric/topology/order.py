"""Rank order: which node gets node rank 0, 1, 2, ...

Goal: consecutive nodes share a leaf (so a ring over the order crosses the spine as few times as
possible) and every Megatron group (see `parallel.py`) sits on as few leaves as the allocation
allows, also when leaves hold uneven numbers of nodes or NVLink domains are only partly
allocated.

Method: hosts form a tree (top network node ... leaf, then NVLink domain). A block of S
consecutive nodes is cut from the tree by hierarchical best fit: descend into the child with the
fewest remaining nodes that still holds all S; if no child can, take whole children largest
first and best-fit the remainder. Blocks are cut largest first (pipeline stage, then ep, cp, tp
groups inside it). With no parallel layout the whole allocation is one block, which makes every
leaf one contiguous run: cross-leaf ring edges = number of leaves, the lower bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gpufabric.topology.hostlist import natural_key
from gpufabric.topology.model import Host, Topology
from gpufabric.topology.parallel import Parallelism


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    hosts: list[Host] = field(default_factory=list)
    remaining: int = 0


def _tree(hosts: Sequence[Host]) -> _Node:
    root = _Node()
    for host in hosts:
        node = root
        node.remaining += 1
        for key in (*host.path, f"nvl:{host.nvlink_domain or ''}"):
            node = node.children.setdefault(key, _Node())
            node.remaining += 1
        node.hosts.append(host)
    _sort(root)
    return root


def _sort(node: _Node) -> None:
    node.hosts.sort(key=lambda h: natural_key(h.name))
    node.children = dict(sorted(node.children.items(), key=lambda kv: natural_key(kv[0])))
    for child in node.children.values():
        _sort(child)


def _take(node: _Node, count: int) -> list[Host]:
    """Remove `count` hosts from the subtree, touching as few subtrees as possible."""
    node.remaining -= count
    if not node.children:
        taken, node.hosts = node.hosts[:count], node.hosts[count:]
        return taken
    out: list[Host] = []
    while count:
        live = [c for c in node.children.values() if c.remaining]
        fits = [c for c in live if c.remaining >= count]
        if fits:
            child = min(fits, key=lambda c: c.remaining)  # best fit; ties: first in order
            out += _take(child, count)
            break
        child = max(live, key=lambda c: c.remaining)  # largest whole child first
        n = child.remaining
        out += _take(child, n)
        count -= n
    return out


def _order(hosts: Sequence[Host], blocks: Sequence[int]) -> list[Host]:
    root = _tree(hosts)
    if not blocks:
        return _take(root, root.remaining)
    size, inner = blocks[0], blocks[1:]
    out: list[Host] = []
    while root.remaining:
        out += _order(_take(root, min(size, root.remaining)), inner)
    return out


def topology_order(topology: Topology, parallelism: Parallelism | None = None) -> list[Host]:
    """All hosts in rank order (see module docstring)."""
    hosts = list(topology.hosts)
    blocks = parallelism.block_sizes(len(hosts)) if parallelism else []
    return _order(hosts, blocks)


def address_order(topology: Topology) -> list[Host]:
    """What a launcher does without topology: sort by address (or name)."""
    return sorted(topology.hosts, key=lambda h: (natural_key(h.address or h.name), h.name))
