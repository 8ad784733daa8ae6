"""Choose the units that hold the nodes on the fewest leaves, tightest fit first.

Objective, in order: (1) fewest leaves touched, (2) fewest free hosts left unused in the chosen
units (the tightest fit: whole units and leaves stay free for other work), then a fixed order
of ids. Unhealthy units are never considered. The bound is the one topology scoring uses
(`gpufabric.topology.score.min_leaves`): the fewest leaves whose free hosts can hold the nodes.
With one leaf per unit that bound is always met; (2) is then a subset-sum problem, solved
exactly by a dynamic programme over leaves whose state sets are Python integers used as bit
sets (bit t set: t free hosts reachable).

Why totals need no bits past nodes + (largest unit) - 1: a fullest-fit solution whose total
reached that could drop any one unit and still hold the nodes, so it was not the tightest.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from gpufabric.capacity.model import Capacity, CapacityError, Choice, Unit
from gpufabric.topology.score import min_leaves


@dataclass(frozen=True)
class _Best:
    leaves: int
    slack: int
    group: str
    units: tuple[Unit, ...]


def leaf_capacity(units: Sequence[Unit]) -> dict[str, int]:
    caps: dict[str, int] = defaultdict(int)
    for unit in units:
        caps[unit.leaf] += unit.free
    return dict(caps)


def bound(units: Sequence[Unit], nodes: int) -> int | None:
    """Fewest leaves of one group that hold `nodes` (None: no group can)."""
    best: int | None = None
    for members in _groups(units).values():
        caps = list(leaf_capacity(members).values())
        if sum(caps) >= nodes:
            k = min_leaves(caps, nodes)
            best = k if best is None else min(best, k)
    return best


def choose(capacity: Capacity, nodes: int, max_leaves: int | None = None) -> Choice:
    """The best choice, or CapacityError (one line) when none holds `nodes`."""
    if nodes < 1:
        raise CapacityError(f"nodes must be at least 1, got {nodes}")
    usable = capacity.usable()
    left_out = tuple(u for u in capacity.units if not u.healthy)
    need = bound(usable, nodes)
    if need is None:
        raise CapacityError(_too_small(capacity, usable, left_out, nodes))
    if max_leaves is not None and need > max_leaves:
        raise CapacityError(
            f"{capacity.source}: {nodes} nodes need at least {need} {plural(capacity.leaf_kind)} "
            f"here, past the limit of {max_leaves} you set"
        )
    best: _Best | None = None
    for group, members in sorted(_groups(usable).items()):
        found = _best_in_group(group, members, nodes)
        if found is None:
            continue
        if best is None or (found.leaves, found.slack) < (best.leaves, best.slack):
            best = found
    assert best is not None  # the bound says some group holds the nodes
    units = tuple(sorted(best.units, key=lambda u: (u.leaf, -u.free, u.id)))
    counts = [u.free for u in units]
    counts[-1] -= best.slack  # < the last unit's free hosts, or the fit was not tightest
    return Choice(
        nodes=nodes,
        group=best.group,
        units=units,
        counts=tuple(counts),
        leaves=best.leaves,
        bound=need,
        slack=best.slack,
        left_out=left_out,
    )


def plural(word: str) -> str:
    return word[:-1] + "ves" if word.endswith("leaf") else word + "s"


def _groups(units: Sequence[Unit]) -> dict[str, list[Unit]]:
    out: dict[str, list[Unit]] = defaultdict(list)
    for unit in units:
        out[unit.group].append(unit)
    return dict(out)


def _too_small(
    capacity: Capacity, usable: list[Unit], left_out: tuple[Unit, ...], nodes: int
) -> str:
    groups = _groups(usable)
    most = max((sum(u.free for u in g) for g in groups.values()), default=0)
    where = " in one group" if len(groups) > 1 else ""
    skipped = (
        f"; {len(left_out)} unhealthy {plural(capacity.unit_kind)} left out" if left_out else ""
    )
    return (
        f"{capacity.source}: {nodes} nodes do not fit: {most} free hosts{where} on "
        f"{len(usable)} healthy {plural(capacity.unit_kind)}{skipped}"
    )


def _leaf_sums(units: list[Unit], limit: int) -> dict[int, tuple[Unit, ...]]:
    """Non-empty subset sums (< limit) of one leaf's units -> the subset with fewest units."""
    sums: dict[int, tuple[Unit, ...]] = {0: ()}
    for unit in sorted(units, key=lambda u: (-u.free, u.id)):
        for total, subset in list(sums.items()):
            new = total + unit.free
            if new < limit and (new not in sums or len(sums[new]) > len(subset) + 1):
                sums[new] = (*subset, unit)
    del sums[0]
    return sums


def _best_in_group(group: str, members: list[Unit], nodes: int) -> _Best | None:
    by_leaf: dict[str, list[Unit]] = defaultdict(list)
    for unit in members:
        by_leaf[unit.leaf].append(unit)
    caps = [sum(u.free for u in units) for units in by_leaf.values()]
    if sum(caps) < nodes:
        return None
    k = min_leaves(caps, nodes)
    limit = nodes + max(u.free for u in members)  # totals at or past this are never tightest
    mask = (1 << limit) - 1
    leaves = sorted(by_leaf)
    sums = [_leaf_sums(by_leaf[leaf], limit) for leaf in leaves]
    # layers[i][j]: totals reachable with j leaves among leaves[:i]
    layers: list[list[int]] = [[1] + [0] * k]
    for leaf_sums in sums:
        prev = layers[-1]
        cur = prev[:]
        for j in range(1, k + 1):
            below = prev[j - 1]
            if below:
                acc = cur[j]
                for s in leaf_sums:
                    acc |= below << s
                cur[j] = acc & mask
        layers.append(cur)
    total, used = _tightest(layers[-1], nodes)
    chosen: list[Unit] = []
    for i in range(len(leaves), 0, -1):
        if layers[i - 1][used] >> total & 1:
            continue  # reachable without leaf i-1
        for s, subset in sums[i - 1].items():
            if s <= total and layers[i - 1][used - 1] >> (total - s) & 1:
                chosen.extend(subset)
                total -= s
                used -= 1
                break
    assert total == 0 and used == 0
    return _Best(k, sum(u.free for u in chosen) - nodes, group, tuple(chosen))


def _tightest(last: list[int], nodes: int) -> tuple[int, int]:
    """(smallest total >= nodes, leaves it takes) over every leaf count in `last`."""
    best: tuple[int, int] | None = None
    for j, reach in enumerate(last):
        above = reach >> nodes
        if above:
            total = nodes + ((above & -above).bit_length() - 1)
            if best is None or total < best[0]:
                best = (total, j)
    assert best is not None
    return best
