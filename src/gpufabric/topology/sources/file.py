"""A plain JSON/YAML description, for anything without a discovery API (and the lab).

    hosts:
      - name: node01
        path: [spine0, leaf0]        # network nodes, top-down; the last is the leaf
        nvlink_domain: nvl0          # optional
        address: 10.0.0.1            # optional, for address-sorted comparisons
    labels: {leaf0: "rack A ToR"}    # optional, human names for network nodes
    unplaced: [node99]               # optional, nodes without topology information

`render --format json` writes this same shape, so a discovered topology can be edited and fed
back in.
"""

from __future__ import annotations

from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.topology.model import Host, Topology

_FIELDS = {"name", "path", "nvlink_domain", "address", "instance_id", "instance_type", "leaf"}
_TOP = {"hosts", "labels", "source", "levels", "order", "skipped", "unplaced"}


def parse(data: Any, origin: str = "file") -> Topology:
    if not isinstance(data, dict) or not isinstance(data.get("hosts"), list):
        raise UserError(f"{origin}: expected a mapping with a 'hosts' list")
    unknown_top = sorted(set(data) - _TOP)
    if unknown_top:
        raise UserError(f"{origin}: unknown key {unknown_top[0]!r}; allowed: {sorted(_TOP)}")
    hosts: list[Host] = []
    for i, item in enumerate(data["hosts"]):
        where = f"{origin}: hosts[{i}]"
        if not isinstance(item, dict):
            raise UserError(f"{where}: expected a mapping with 'name' and 'path'")
        unknown = sorted(set(item) - _FIELDS)
        if unknown:
            raise UserError(f"{where}: unknown key {unknown[0]!r}; allowed: {sorted(_FIELDS)}")
        name = item.get("name")
        path = item.get("path")
        if isinstance(name, bool) or not isinstance(name, str | int) or str(name) == "":
            raise UserError(f"{where}: 'name' must be a non-empty string, not {name!r}")
        if not isinstance(path, list) or not path:
            raise UserError(f"{where} ({name}): 'path' must be a non-empty list of node ids")
        for j, node in enumerate(path):  # `true` would become a switch named True
            types.check(types.NodeId, node, f"{where} ({name}): path[{j}]")

        def opt(
            key: str, entry: dict[str, Any] = item, at: str = f"{where} ({name})"
        ) -> str | None:
            value = entry.get(key)
            if value in (None, ""):
                return None
            return types.check(types.NodeId, value, f"{at}: {key}")

        hosts.append(
            Host(
                name=str(name),
                path=tuple(str(p) for p in path),
                nvlink_domain=opt("nvlink_domain"),
                address=opt("address") or "",
                instance_id=opt("instance_id"),
                instance_type=opt("instance_type"),
            )
        )
    labels = data.get("labels") or {}
    if not isinstance(labels, dict):
        raise UserError(f"{origin}: 'labels' must be a mapping of node id -> name")
    for key, value in labels.items():  # free text, escaped where it is written
        types.check(types.NodeId, key, f"{origin}: labels key")
        types.check(types.TagValue, value, f"{origin}: labels[{key!r}]")
    unplaced = data.get("unplaced") or []
    if not isinstance(unplaced, list) or not all(isinstance(u, str) for u in unplaced):
        raise UserError(f"{origin}: 'unplaced' must be a list of host names")
    source = data.get("source") or origin
    types.check(types.TagValue, source, f"{origin}: source")
    return Topology(
        tuple(hosts),
        source=str(source),
        labels={str(k): v for k, v in labels.items()},
        unplaced=tuple(unplaced),
    )
