"""What a capacity reader hands to the chooser, and what the chooser hands back.

A unit is the smallest piece of capacity a stack config can name (a capacity reservation, a
reservation block or sub-block, a network block). Each sits on one network leaf (the finest
position the cloud reports for it); several units may share a leaf. Units chosen together must
share a group (a placement domain the stack cannot cross, e.g. one HPC island); a reader that
has no such limit puts every unit in one group.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpufabric.errors import UserError


class CapacityError(UserError):
    """The capacity cannot hold the nodes (or only past a limit the user set)."""


@dataclass(frozen=True, slots=True)
class Unit:
    id: str  # what the stack config names
    leaf: str  # the network leaf its hosts sit on
    free: int  # hosts free for new nodes
    healthy: bool = True
    group: str = ""
    note: str = ""  # why it is left out (unhealthy, not active), for the report

    def __post_init__(self) -> None:
        if not self.id or not self.leaf:
            raise UserError(f"capacity unit {self.id!r}: empty id or leaf")
        if self.free < 0:
            raise UserError(f"capacity unit {self.id}: free hosts {self.free} < 0")


@dataclass(frozen=True)
class Capacity:
    """Everything one read found (healthy and not)."""

    units: tuple[Unit, ...]
    source: str  # where it was read from, for messages
    unit_kind: str = "unit"  # "reservation", "sub-block", "network block", ...
    leaf_kind: str = "leaf"  # what a leaf is in this cloud's words

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for unit in self.units:
            if unit.id in seen:
                raise UserError(f"{self.source}: {self.unit_kind} {unit.id} appears twice")
            seen.add(unit.id)

    def usable(self) -> list[Unit]:
        return [u for u in self.units if u.healthy and u.free > 0]


@dataclass(frozen=True)
class Choice:
    """The units chosen, how many nodes go on each, and the score against the bound."""

    nodes: int
    group: str
    units: tuple[Unit, ...]
    counts: tuple[int, ...]  # nodes per unit, in `units` order
    leaves: int  # leaves the chosen units sit on
    bound: int  # fewest leaves that can hold the nodes (topology scoring's bound)
    slack: int  # free hosts of the chosen units left unused
    left_out: tuple[Unit, ...] = field(default=())  # unhealthy units never considered

    def shares(self) -> list[tuple[Unit, int]]:
        """Each chosen unit with the nodes that go on it."""
        return list(zip(self.units, self.counts, strict=True))

    @property
    def ratio(self) -> float:
        return self.leaves / self.bound if self.bound else 1.0

    def to_dict(self) -> dict[str, object]:
        return {
            "nodes": self.nodes,
            "group": self.group,
            "leaves": self.leaves,
            "bound": self.bound,
            "ratio": round(self.ratio, 3),
            "slack": self.slack,
            "units": [
                {"id": u.id, "leaf": u.leaf, "free": u.free, "nodes": n} for u, n in self.shares()
            ],
            "leftOut": [{"id": u.id, "reason": u.note or "unhealthy"} for u in self.left_out],
        }


def present(raw: dict[str, object], key: str) -> bool:
    """Whether the stack's raw config sets `namespace:section.sub` (so a choice must clear it)."""
    top, *path = key.split(".")
    node: object = raw.get(top)
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return node is not None


def targets(choice: Choice, one_key: str, many_key: str, raw: dict[str, object]) -> dict:
    """Settings naming the chosen units: `one_key` = the id for one unit, else `many_key` =
    [{id, nodes}], clearing whichever of the two the stack set before."""
    out: dict[str, object] = {}
    if len(choice.units) == 1:
        out[one_key] = choice.units[0].id
        if present(raw, many_key):
            out[many_key] = None
    else:
        out[many_key] = [{"id": u.id, "nodes": n} for u, n in choice.shares()]
        if present(raw, one_key):
            out[one_key] = None
    return out
