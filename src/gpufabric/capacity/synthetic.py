"""Synthetic capacity for tests and benchmarks (no real data claimed).

`hosts` hosts on leaves of `leaf_size`; each leaf's hosts are taken by other work at a random
rate (random occupancy), and its free hosts are cut into 1..`units_per_leaf` units (several
reservations on one leaf; one sub-block or network block per leaf with 1). Leaves are dealt to
`groups` groups in runs; each unit is unhealthy with probability `unhealthy`.
"""

from __future__ import annotations

import random

from gpufabric.capacity.model import Capacity, Unit


def synthetic_units(
    hosts: int,
    leaf_size: int,
    units_per_leaf: int = 1,
    groups: int = 1,
    unhealthy: float = 0.05,
    seed: int = 0,
) -> Capacity:
    rng = random.Random(seed)
    leaves = max(1, hosts // leaf_size)
    per_group = -(-leaves // groups)
    units: list[Unit] = []
    for leaf in range(leaves):
        busy = rng.random()
        free = sum(rng.random() >= busy for _ in range(leaf_size))
        parts = rng.randint(1, units_per_leaf)
        cuts = sorted(rng.randint(0, free) for _ in range(parts - 1))
        sizes = [b - a for a, b in zip([0, *cuts], [*cuts, free], strict=True)]
        for part, size in enumerate(sizes):
            units.append(
                Unit(
                    id=f"u{leaf:04d}-{part}",
                    leaf=f"leaf{leaf:04d}",
                    free=size,
                    healthy=rng.random() >= unhealthy,
                    group=f"g{leaf // per_group}",
                    note="synthetic fault",
                )
            )
    return Capacity(tuple(units), source="synthetic", unit_kind="unit", leaf_kind="leaf")
