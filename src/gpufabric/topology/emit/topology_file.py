"""The topology as gpufabric JSON: the file source's format (round-trips through
`--source file`), plus the rank order, unplaced and skipped nodes where there are any."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpufabric import jsonout
from gpufabric.topology.model import Host, Topology, level_names


def host_record(host: Host) -> dict[str, Any]:
    record: dict[str, Any] = {"name": host.name, "path": list(host.path), "leaf": host.leaf}
    for key in ("nvlink_domain", "address", "instance_id", "instance_type"):
        value = getattr(host, key)
        if value:
            record[key] = value
    return record


def topology_json(topology: Topology, order: Sequence[Host] | None = None) -> str:
    """The file source's format (round-trips through `--source file`), plus extras."""
    doc: dict[str, Any] = {
        "source": topology.source,
        "levels": list(level_names(topology.depth)),
        "hosts": [host_record(h) for h in (order or topology.hosts)],
    }
    if topology.labels:
        doc["labels"] = dict(sorted(topology.labels.items()))
    if order is not None:
        doc["order"] = [h.name for h in order]
    if topology.unplaced:
        doc["unplaced"] = list(topology.unplaced)
    if topology.skipped:
        doc["skipped"] = [{"id": i, "reason": r} for i, r in topology.skipped]
    return jsonout.dumps(doc, indent=2) + "\n"
