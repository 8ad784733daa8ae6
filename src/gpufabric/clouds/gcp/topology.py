"""GCP: physical host topology -> Topology.

Two shapes exist (docs/sources.md C.3):
- inside a VM, metadata `instance/attributes/physical_host` = "/CLUSTER/RACK/HOST": the VM's
  leaf is CLUSTER/RACK under the cluster;
- the Compute API's `resourceStatus.physicalHostTopology {cluster, block, subblock, host}`:
  cluster -> block -> subblock (the leaf); the older `resourceStatus.physicalHost` string is
  read like the metadata value when the structured field is absent.
Input files: an `instances.list` / `aggregatedList` response (or a bare list of instances), or a
mapping hostname -> physical_host string gathered from the metadata server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.topology.model import Host, Topology, apply_names


def path_from_physical_host(value: str, origin: str, who: str) -> tuple[str, ...]:
    """ "/cluster/rack/host" -> ("cluster", "cluster/rack")."""
    if not isinstance(value, str):
        raise UserError(
            f"{origin}: {who}: physical_host is {types.a_type(value)}, expected a string"
        )
    parts = [p for p in value.strip().split("/") if p]
    if not value.strip().startswith("/") or len(parts) != 3:
        raise UserError(
            f"{origin}: {who}: physical_host {value!r} is not of the form /cluster/rack/host"
        )
    cluster, rack, _host = parts
    return (cluster, f"{cluster}/{rack}")


def path_from_topology(topo: Mapping[str, Any], origin: str, who: str) -> tuple[str, ...]:
    """physicalHostTopology -> ("cluster", "cluster/block", "cluster/block/subblock")."""
    keys = ("cluster", "block", "subblock")
    if not isinstance(topo, Mapping):
        raise UserError(
            f"{origin}: {who}: physicalHostTopology is {types.a_type(topo)}, expected "
            "an object with cluster, block, subblock"
        )
    values = [topo.get(k) for k in keys]
    if not all(isinstance(v, str) and v for v in values):
        missing = [k for k, v in zip(keys, values, strict=True) if not (isinstance(v, str) and v)]
        raise UserError(
            f"{origin}: {who}: physicalHostTopology lacks {', '.join(missing)} (a non-empty string each)"
        )
    cluster, block, subblock = (str(v) for v in values)
    return (cluster, f"{cluster}/{block}", f"{cluster}/{block}/{subblock}")


def _instance_list(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return data["items"]
    if isinstance(data, dict) and isinstance(data.get("items"), dict):  # aggregatedList
        out: list[Any] = []
        for scoped in data["items"].values():
            out.extend(scoped.get("instances", []) if isinstance(scoped, dict) else [])
        return out
    return None


def parse(data: Any, origin: str = "gcp") -> Topology:
    """Build a Topology from an instances list or a hostname -> physical_host mapping."""
    hosts: list[Host] = []
    unplaced: list[str] = []
    instances = _instance_list(data)
    if instances is None:
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise UserError(
                f"{origin}: expected an instances list or a mapping hostname -> physical_host"
            )
        for name, value in data.items():
            hosts.append(Host(str(name), path_from_physical_host(value, origin, str(name))))
        return Topology(tuple(hosts), source=origin)
    for inst in instances:
        if not isinstance(inst, dict) or not isinstance(inst.get("name"), str):
            raise UserError(f"{origin}: an instance entry has no 'name'")
        name = inst["name"]
        status = inst.get("resourceStatus") or {}
        if not isinstance(status, dict):
            raise UserError(f"{origin}: {name}: resourceStatus is not an object")
        if status.get("physicalHostTopology"):
            path = path_from_topology(status["physicalHostTopology"], origin, name)
        elif status.get("physicalHost"):
            path = path_from_physical_host(status["physicalHost"], origin, name)
        else:
            unplaced.append(name)
            continue
        address = ""
        for nic in inst.get("networkInterfaces") or []:
            if isinstance(nic, dict) and nic.get("networkIP"):
                address = str(nic["networkIP"])
                break
        machine = str(inst.get("machineType", "")).rsplit("/", 1)[-1] or None
        hosts.append(
            Host(
                name,
                path,
                address=address,
                instance_id=str(inst.get("id", "")) or None,
                instance_type=machine,
            )
        )
    return Topology(tuple(hosts), source=origin, unplaced=tuple(unplaced))


def load(data: Any, names: Mapping[str, str] | None, origin: str) -> Topology:
    """The topology of recorded input, host names mapped through `names`."""
    topology = parse(data, origin)
    return apply_names(topology, dict(names)) if names else topology
