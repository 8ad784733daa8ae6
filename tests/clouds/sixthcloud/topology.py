"""Where Sixth's nodes sit: each node's switch path, top first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufabric.topology.model import Host, Topology, apply_names


def load(data: Any, names: Mapping[str, str] | None, origin: str) -> Topology:
    """`sixth nodes list --json`, or node -> its metadata document ({"path": [...]})."""
    if "sixthNodes" not in data:
        data = {"sixthNodes": [{"name": node, **doc} for node, doc in data.items()]}
    hosts = [Host(name=n["name"], path=tuple(n["path"])) for n in data["sixthNodes"]]
    topology = Topology(hosts=tuple(hosts), source=origin)
    return apply_names(topology, dict(names)) if names else topology
