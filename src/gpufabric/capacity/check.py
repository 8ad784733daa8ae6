"""After launch: which nodes landed outside the capacity the stack names.

A node is inside when one of the network nodes above it (its topology path, from the cloud's
topology source) is the leaf of a unit the stack names; nodes the source could not place count
as outside (nothing measured is no pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpufabric.capacity.model import Capacity
from gpufabric.errors import UserError
from gpufabric.topology.model import Topology


@dataclass(frozen=True)
class Landed:
    planned: tuple[str, ...]
    leaves: tuple[str, ...]
    inside: tuple[str, ...]
    outside: tuple[tuple[str, str], ...]  # (node, where it landed)
    left_out: tuple[tuple[str, str], ...] = ()  # (node or who left it out, why): not checked

    def lines(self) -> list[str]:
        out = [
            f"{len(self.inside)} node(s) inside the {len(self.planned)} planned unit(s) "
            f"({len(self.leaves)} leaf/leaves); {len(self.outside)} outside"
        ]
        out += [f"  outside: {node} on {where}" for node, where in self.outside]
        out += [f"  not checked: {who}: {why}" for who, why in self.left_out]
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "planned": list(self.planned),
            "leaves": list(self.leaves),
            "inside": list(self.inside),
            "outside": [{"node": n, "landedOn": w} for n, w in self.outside],
            "notChecked": [{"name": n, "why": w} for n, w in self.left_out],
        }


def landed_outside(capacity: Capacity, planned: Sequence[str], topology: Topology) -> Landed:
    if not planned:
        raise UserError(
            "the stack names no reservation or block to check against: set them first "
            "(gpufabric capacity plan --write)"
        )
    units = {u.id: u for u in capacity.units}
    missing = [p for p in planned if p not in units]
    if missing:
        raise UserError(
            f"{capacity.source}: {missing[0]} (named by the stack) is not in the capacity read"
        )
    leaves = {units[p].leaf for p in planned}
    inside: list[str] = []
    outside: list[tuple[str, str]] = []
    for host in topology.hosts:
        if leaves.intersection(host.path):
            inside.append(host.name)
        else:
            outside.append((host.name, host.leaf))
    outside += [(name, "no position reported") for name in topology.unplaced]
    return Landed(
        tuple(planned), tuple(sorted(leaves)), tuple(inside), tuple(outside), topology.skipped
    )
