"""Synthetic fragmented topologies for tests and benchmarks (no real data claimed).

A cluster of `leaves` leaf switches with `leaf_size` slots each; `fanout` leaves per
aggregation switch, `fanout` aggregation switches per spine (and one core above for 4 levels).
The allocation is a random subset of the slots, so leaves hold uneven numbers of nodes and
NVLink domains (`nvlink` consecutive slots of a leaf) are partly allocated. Addresses and names
are handed out in random launch order, as on a cloud where IPs say nothing about placement.
"""

from __future__ import annotations

import math
import random

from gpufabric.errors import UserError
from gpufabric.topology.model import Host, Topology


def synthetic(
    nodes: int,
    levels: int = 3,
    leaf_size: int = 16,
    fanout: int = 8,
    fill: float = 0.7,
    nvlink: int = 0,
    seed: int = 0,
) -> Topology:
    if levels not in (2, 3, 4):
        raise UserError(f"levels {levels}: choose 2, 3 or 4")
    if not 0 < fill <= 1 or nodes < 1 or leaf_size < 1:
        raise UserError("nodes and leaf_size must be positive and 0 < fill <= 1")
    if nvlink and leaf_size % nvlink:
        raise UserError(f"nvlink domain size {nvlink} must divide leaf_size {leaf_size}")
    rng = random.Random(seed)
    leaves = max(1, math.ceil(nodes / (leaf_size * fill)))
    slots = rng.sample(range(leaves * leaf_size), nodes)
    launch = list(range(nodes))
    rng.shuffle(launch)
    hosts: list[Host] = []
    for slot, order in zip(slots, launch, strict=True):
        leaf = slot // leaf_size
        agg = leaf // fanout
        spine = agg // fanout
        path = {
            2: (f"spine{agg}", f"leaf{leaf}"),
            3: (f"spine{spine}", f"agg{agg}", f"leaf{leaf}"),
            4: ("core0", f"spine{spine}", f"agg{agg}", f"leaf{leaf}"),
        }[levels]
        address = f"10.{order >> 16 & 255}.{order >> 8 & 255}.{order & 255}"
        domain = f"nvl{slot // nvlink}" if nvlink else None
        hosts.append(Host(f"ip-{address.replace('.', '-')}", path, domain, address))
    return Topology(tuple(hosts), source=f"synthetic-{levels}level")
