"""InfiniBand: `ibnetdiscover` output -> Topology (InfiniBand VMs whose cloud exposes no switch topology, on-prem fat trees).

Hosts are the channel adapters whose node description reads "<hostname> <device>" (e.g.
"a08-p1-dgx-04-c01 mlx5_5"); SHARP aggregation nodes and HCAs without a host name are left out.
A leaf switch is one with host HCAs. In a rail-optimized fabric each host has one HCA per rail,
each on a different leaf; leaves that share hosts are one leaf group (a scalable unit), because
traffic between its hosts stays below the spine. Above the leaves, switches are grouped level by
level the same way (all switches linked to one group below form one group above).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpufabric.errors import UserError
from gpufabric.topology.hostlist import natural_key
from gpufabric.topology.model import Host, Topology

_NODE = re.compile(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"\s*#\s*"([^"]*)"')
_PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([^"]+)"\[(\d+)\]')
_PORT_DESC = re.compile(r'#\s*"([^"]*)"')  # the peer's node description, after the link
_SWITCH_NAME = re.compile(r"^[^;:]+;([^;:]+):[^;:]+$")  # "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1"
_HOST_DESC = re.compile(r"^(\S+)\s+\S+$")  # "<hostname> <device>"


def name_shape(name: str) -> str:
    """ "a08-p1-dgx-04-c01" -> "a#-a#-a-#-a#": compute nodes share one shape."""
    return re.sub(r"[A-Za-z]+", "a", re.sub(r"\d+", "#", name))


@dataclass
class _Node:
    kind: str
    guid: str
    desc: str
    peers: set[str] = field(default_factory=set)


def parse_nodes(
    text: str, origin: str, missing: dict[str, _Node] | None = None
) -> dict[str, _Node]:
    """All switches and CAs with the ids of what their ports link to; nodes that ports link to
    but that have no entry of their own go to `missing` (an output cut short)."""
    missing = {} if missing is None else missing
    nodes: dict[str, _Node] = {}
    current: _Node | None = None
    for line in text.splitlines():
        if not line.strip():
            current = None
            continue
        if line.startswith("#"):
            continue
        m = _NODE.match(line)
        if m:
            kind, guid, desc = m.groups()
            current = nodes.setdefault(guid, _Node(kind, guid, desc))
            current.kind, current.desc = kind, desc
            continue
        m = _PORT.match(line)
        if m and current is not None:
            peer = m.group(2)
            current.peers.add(peer)
            linked = nodes.setdefault(peer, _Node("?", peer, ""))
            linked.peers.add(current.guid)
            if linked.kind == "?" and (d := _PORT_DESC.search(line[m.end() :])):
                linked.desc = d.group(1)
    missing.update((k, v) for k, v in nodes.items() if v.kind == "?")
    nodes = {k: v for k, v in nodes.items() if v.kind != "?"}
    if not nodes:
        raise UserError(f"{origin}: no Switch or Ca entries; is this ibnetdiscover output?")
    for node in nodes.values():
        node.peers &= nodes.keys()
    return nodes


def switch_name(node: _Node) -> str:
    m = _SWITCH_NAME.match(node.desc)
    if m:
        return m.group(1)
    if node.desc and not any(c in node.desc for c in " ;:,[]="):
        return node.desc
    return node.guid


def _groups(members: set[str], links: dict[str, set[str]]) -> list[set[str]]:
    """Connected components of `members` where two members are linked through `links`."""
    parent = {m: m for m in members}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for linked in links.values():
        items = [m for m in linked if m in parent]
        for other in items[1:]:
            parent[find(other)] = find(items[0])
    out: dict[str, set[str]] = {}
    for m in members:
        out.setdefault(find(m), set()).add(m)
    return list(out.values())


def parse(text: str, origin: str = "ib") -> Topology:
    missing: dict[str, _Node] = {}
    nodes = parse_nodes(text, origin, missing)
    switches = {g: n for g, n in nodes.items() if n.kind == "Switch"}
    host_of: dict[str, str] = {}  # CA guid -> host name
    for guid, node in nodes.items():
        m = _HOST_DESC.match(node.desc) if node.kind == "Ca" else None
        if m:
            host_of[guid] = m.group(1)
    if not switches:
        raise UserError(f"{origin}: no switches in ibnetdiscover output (isolated HCA?)")
    if not host_of:
        raise UserError(f"{origin}: no host HCAs ('<hostname> <device>') in ibnetdiscover output")
    # Management hosts (UFM, storage) hang off the same leaves; keep the dominant name shape.
    shapes: dict[str, int] = {}
    for host in set(host_of.values()):
        shapes[name_shape(host)] = shapes.get(name_shape(host), 0) + 1
    compute = max(shapes, key=lambda k: (shapes[k], k))
    skipped = sorted(
        {
            (h, "name differs from the compute nodes' shape")
            for h in host_of.values()
            if name_shape(h) != compute
        }
    )
    host_of = {g: h for g, h in host_of.items() if name_shape(h) == compute}
    # a link to an HCA with no Ca entry: the output was cut (ibnetdiscover stopped early)
    cut = {
        (m.group(1), f"HCA {guid} is linked but has no Ca entry (ibnetdiscover output cut?)")
        for guid, node in missing.items()
        if (m := _HOST_DESC.match(node.desc)) and name_shape(m.group(1)) == compute
    }
    skipped = sorted({*skipped, *cut})

    # Level 0: leaf switches, grouped by the hosts they share.
    hosts_via: dict[str, set[str]] = {}  # host -> leaf switches
    for guid, host in host_of.items():
        for peer in nodes[guid].peers:
            if peer in switches:
                hosts_via.setdefault(host, set()).add(peer)
    leaves = set().union(*hosts_via.values())
    levels: list[list[set[str]]] = [_groups(leaves, hosts_via)]
    assigned = set(leaves)
    while True:  # next level: unassigned switches linked to the current level
        below = levels[-1]
        above = {p for grp in below for s in grp for p in switches[s].peers if p in switches}
        above -= assigned
        if not above:
            break
        links = {
            str(i): {p for s in grp for p in switches[s].peers} & above
            for i, grp in enumerate(below)
        }
        levels.append(_groups(above, links))
        assigned |= above

    names: dict[frozenset[str], str] = {}
    labels: dict[str, str] = {}
    for grp_list in levels:
        for grp in grp_list:
            ordered = sorted((switch_name(switches[s]) for s in grp), key=natural_key)
            name = ordered[0] if len(ordered) == 1 else f"{ordered[0]}-x{len(ordered)}"
            names[frozenset(grp)] = name
            labels[name] = ",".join(ordered)

    def parent_group(grp: set[str], level: int) -> set[str] | None:
        if level + 1 >= len(levels):
            return None
        peers = {p for s in grp for p in switches[s].peers}
        for up in levels[level + 1]:
            if up & peers:
                return up
        return None

    hosts: list[Host] = []
    for host, via in sorted(hosts_via.items(), key=lambda kv: natural_key(kv[0])):
        grp = next(g for g in levels[0] if via & g)
        path = [names[frozenset(grp)]]
        level = 0
        current: set[str] | None = grp
        while current is not None:
            current = parent_group(current, level)
            level += 1
            if current is not None:
                path.insert(0, names[frozenset(current)])
        hosts.append(Host(host, tuple(path), address=host))
    return Topology(tuple(hosts), source=origin, labels=labels, skipped=tuple(skipped))
