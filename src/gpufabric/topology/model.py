"""The topology model: hosts, the network nodes above them, and NVLink domains.

A host hangs off a path of network nodes listed top-down, the way the clouds' topology APIs list them: `path[0]` is
the top layer the provider reports, `path[-1]` the leaf the host attaches to. Paths may differ
in depth (a 3-level p5 next to a 4-level p6-b200 attaches one layer higher, under the same top
layers); the last node is always the host's leaf. Node ids must be unique across the tree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.topology.hostlist import natural_key

# Host names that Slurm's hostlist and config parsers read as one name: letters, digits, '.',
# '_', '-', alphanumeric at both ends, at most 64 characters (SchedMD/slurm src/common/hostlist.c:
# ',' and whitespace separate names, '[...]' is a range, MAXHOSTNAMELEN 64; a newline would start
# a new topology.conf line). Kubernetes' stricter node-name rule is checked where labels are made.
HOST_NAME_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$")


def check_host_name(name: str, source: str) -> None:
    if not isinstance(name, str) or not HOST_NAME_RE.fullmatch(name):
        raise UserError(
            f"topology from {source}: host name {name!r} is not a valid node name: "
            "1-64 letters, digits, '.', '_' or '-', starting and ending with a letter or digit"
        )


def _check_ids(host: Host, source: str) -> None:
    """Network node and NVLink domain ids are a node's or a provider's report: printable, no
    white space (gpufabric.inputs.types.NodeId); a newline would end a line of the files
    written from them."""
    fields = [(f"path[{i}]", node) for i, node in enumerate(host.path)]
    if host.nvlink_domain is not None:
        fields.append(("nvlink_domain", host.nvlink_domain))
    for field_name, value in fields:
        # a source converts a YAML number to a string; any other value is not an id
        why = types.problem(types.NodeId, value) if isinstance(value, str) else "is not a string"
        if why:
            raise UserError(
                f"topology from {source}: host {host.name!r}: {field_name} {types.show(value)} "
                f"{why}"
            )


# Level names, top-down, for trees of 1..4 levels.
LEVEL_NAMES = {
    1: ("leaf",),
    2: ("spine", "leaf"),
    3: ("spine", "aggregation", "leaf"),
    4: ("core", "spine", "aggregation", "leaf"),
}


@dataclass(frozen=True, slots=True)
class Host:
    """One node (VM or server) and where it sits in the network."""

    name: str
    path: tuple[str, ...]
    nvlink_domain: str | None = None
    address: str = ""
    instance_id: str | None = None
    instance_type: str | None = None

    @property
    def leaf(self) -> str:
        return self.path[-1]


@dataclass(frozen=True)
class Topology:
    """Hosts plus what is known about the switches above them."""

    hosts: tuple[Host, ...]
    source: str = "file"
    labels: Mapping[str, str] = field(default_factory=dict)  # node id -> human name
    skipped: tuple[tuple[str, str], ...] = ()  # (host or instance, reason)
    # cluster nodes the source knows but places nowhere (an answer without network nodes): Slurm still
    # needs them under a switch, so emitters put them under `no-topology` as topograph does
    unplaced: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """The strict check every source goes through: names, uniqueness, a tree."""
        if not self.hosts:
            raise UserError(f"topology from {self.source}: no hosts with topology information")
        seen: set[str] = set()
        for name in [h.name for h in self.hosts] + list(self.unplaced):
            check_host_name(name, self.source)
            if name in seen:
                raise UserError(f"topology from {self.source}: host {name!r} appears twice")
            seen.add(name)
        for host in self.hosts:
            if not host.path or any(not node for node in host.path):
                raise UserError(
                    f"topology from {self.source}: host {host.name!r} has no network path"
                )
            _check_ids(host, self.source)
        self.parents()  # validates that the paths form a tree

    @cached_property
    def depth(self) -> int:
        return max(len(h.path) for h in self.hosts)

    def by_name(self) -> dict[str, Host]:
        return {h.name: h for h in self.hosts}

    def leaves(self) -> dict[str, list[Host]]:
        """Leaf id -> its hosts in natural name order, leaves in natural order."""
        out: dict[str, list[Host]] = {}
        for host in sorted(self.hosts, key=lambda h: natural_key(h.name)):
            out.setdefault(host.leaf, []).append(host)
        return dict(sorted(out.items(), key=lambda kv: natural_key(kv[0])))

    def parents(self) -> dict[str, str | None]:
        """Network node id -> its parent id (None at the top). Raises if not a tree."""
        parent: dict[str, str | None] = {}
        for host in self.hosts:
            for i, node in enumerate(host.path):
                up = host.path[i - 1] if i else None
                if up == node or node in host.path[:i]:
                    raise UserError(
                        f"topology from {self.source}: host {host.name!r} lists network "
                        f"node {node!r} twice"
                    )
                known = parent.get(node)
                if known is not None and up is not None and known != up:
                    raise UserError(
                        f"topology from {self.source}: network node {node!r} has two "
                        f"parents ({known!r}, {up!r})"
                    )
                if known is None:
                    parent[node] = up
        self._check_acyclic(parent)
        return parent

    def _check_acyclic(self, parent: Mapping[str, str | None]) -> None:
        """Every node reaches a top node; a loop (s1 above s2 above s1) is refused."""
        done: set[str] = set()
        for start in parent:
            trail: list[str] = []
            node: str | None = start
            while node is not None and node not in done:
                if node in trail:
                    loop = " -> ".join([*trail[trail.index(node) :], node])
                    raise UserError(
                        f"topology from {self.source}: network nodes form a cycle ({loop})"
                    )
                trail.append(node)
                node = parent[node]
            done.update(trail)

    def nvlink_domains(self) -> dict[str, list[Host]]:
        """NVLink domain id -> its hosts (natural order); hosts without a domain left out."""
        out: dict[str, list[Host]] = {}
        for host in sorted(self.hosts, key=lambda h: natural_key(h.name)):
            if host.nvlink_domain:
                out.setdefault(host.nvlink_domain, []).append(host)
        return out

    def label(self, node: str) -> str:
        return self.labels.get(node, node)


def apply_names(topology: Topology, names: Mapping[str, str]) -> Topology:
    """Rename hosts through `names` (keyed by instance id or current name); drop the rest."""
    hosts: list[Host] = []
    skipped = list(topology.skipped)
    for host in topology.hosts:
        key = host.instance_id if host.instance_id and host.instance_id in names else host.name
        if key in names:
            hosts.append(replace(host, name=names[key]))
        else:
            skipped.append((host.name, "not in the names file"))
    unplaced = []
    for name in topology.unplaced:
        if name in names:
            unplaced.append(names[name])
        else:
            skipped.append((name, "not in the names file"))
    if not hosts:
        raise UserError(f"topology from {topology.source}: the names file matches no host")
    return Topology(tuple(hosts), topology.source, topology.labels, tuple(skipped), tuple(unplaced))


def level_names(depth: int) -> tuple[str, ...]:
    """Names of the levels of a tree `depth` levels deep, top-down; the last is the leaf."""
    if depth in LEVEL_NAMES:
        return LEVEL_NAMES[depth]
    return tuple(f"layer{i}" for i in range(1, depth - 2)) + LEVEL_NAMES[3]


def padded_path(host: Host, depth: int) -> tuple[str, ...]:
    """The host's path stretched to `depth` by repeating its leaf (for per-level labels).

    A 3-level host in a 4-level tree attaches one layer higher; every host under its leaf is
    equally close to it, so the leaf id stands for the missing lowest level.
    """
    return host.path + (host.leaf,) * (depth - len(host.path))
