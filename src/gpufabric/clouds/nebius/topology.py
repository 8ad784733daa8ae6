"""Nebius: the InfiniBand switch path of every VM -> Topology.

Each VM's `status.infiniband_topology_path.path` lists 3 switch ids, root -> leaf; topograph
accepts exactly 3 ([P] NVIDIA/topograph pkg/providers/nebius/instance_topology.go; the
InstanceStatus message of the Nebius API). Accepted inputs:
- `nebius compute instance list --format json` ({"items": [...]} or a bare list of instances:
  metadata.name / metadata.id, status.infiniband_topology_path.path,
  status.network_interfaces[].ip_address.address);
- `nebius compute gpu-cluster get --format json|yaml` (status.infiniband_topology_path.instances:
  [{instance_id, path}]), named through `names` (instance id -> node name);
- a mapping node name -> the VM's IMDS instance-data document (infiniband_topology_path: [3 ids]),
  or a list of those documents (with `hostname`).
Proto JSON may spell keys in lowerCamelCase (infinibandTopologyPath): both are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufabric.clouds.nebius import ids
from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.topology.model import Host, Topology

TIERS = 3


def field(doc: Any, *keys: str) -> Any:
    """doc[key] for the first of `keys` present (snake_case or lowerCamelCase), else None."""
    if not isinstance(doc, Mapping):
        return None
    for key in keys:
        if key in doc:
            return doc[key]
    return None


def ib_path(value: Any, origin: str, who: str) -> tuple[str, ...] | None:
    """A path list, or the message holding it ({path: [...]}); None when absent."""
    if isinstance(value, Mapping):
        value = field(value, "path", "paths")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UserError(f"{origin}: {who}: infiniband_topology_path is not a list of switch ids")
    if len(value) != TIERS:
        raise UserError(
            f"{origin}: {who}: infiniband_topology_path has {len(value)} switches, "
            f"expected {TIERS} (root -> leaf)"
        )
    return tuple(value)


def eth0_address(inst: Mapping[str, Any]) -> str:
    """The first network interface's private address, without its /32."""
    status = field(inst, "status") or {}
    for nic in field(status, "network_interfaces", "networkInterfaces") or []:
        address = field(field(nic, "ip_address", "ipAddress"), "address")
        if isinstance(address, str) and address:
            return address.split("/", 1)[0]
    return ""


def parse(data: Any, names: Mapping[str, str] | None = None, origin: str = "nebius") -> Topology:
    """Build a Topology from an instance list, a GPU cluster, or IMDS instance-data."""
    status = field(data, "status")
    cluster_paths = field(
        field(status, "infiniband_topology_path", "infinibandTopologyPath"), "instances"
    )
    if isinstance(cluster_paths, list):
        return _from_cluster(cluster_paths, names, origin)
    items = data if isinstance(data, list) else field(data, "items")
    if isinstance(data, Mapping) and items is None and _all_documents(data):
        items = [{**v, "hostname": str(k)} for k, v in data.items()]  # IMDS per node
    if not isinstance(items, list):
        raise UserError(
            f"{origin}: expected `nebius compute instance list` JSON, a GPU cluster "
            "(status.infiniband_topology_path.instances) or IMDS instance-data documents"
        )
    hosts: list[Host] = []
    skipped: list[tuple[str, str]] = []
    unplaced: list[str] = []
    for inst in items:
        if not isinstance(inst, Mapping):
            raise UserError(f"{origin}: an instance entry is not an object")
        meta = field(inst, "metadata") or {}
        iid = field(meta, "id") or field(inst, "id")
        if iid is not None:  # a number or another kind's id is refused, not matched by name
            types.check(ids.InstanceId, iid, f"{origin}: instance id")
        name = field(inst, "hostname") or field(meta, "name") or iid
        if not isinstance(name, str) or not name:
            raise UserError(f"{origin}: an instance has no metadata.name, hostname or id")
        if names is not None:
            key = iid if isinstance(iid, str) and iid in names else name
            if key not in names:
                skipped.append((name, "not in the names map"))
                continue
            name = names[key]
        where = field(field(inst, "status"), "infiniband_topology_path", "infinibandTopologyPath")
        if where is None:
            where = field(inst, "infiniband_topology_path", "infinibandTopologyPath")
        path = ib_path(where, origin, name)
        if path is None:  # not in a GPU cluster, or not running: Slurm still needs it
            unplaced.append(name)
            continue
        spec = field(inst, "spec") or {}
        hosts.append(
            Host(
                name=name,
                path=path,
                nvlink_domain=field(spec, "nvl_instance_group_id", "nvlInstanceGroupId") or None,
                address=eth0_address(inst),
                instance_id=iid if isinstance(iid, str) else None,
            )
        )
    return Topology(tuple(hosts), source=origin, skipped=tuple(skipped), unplaced=tuple(unplaced))


def _all_documents(data: Mapping[str, Any]) -> bool:
    return bool(data) and all(isinstance(v, Mapping) for v in data.values())


def _from_cluster(entries: list[Any], names: Mapping[str, str] | None, origin: str) -> Topology:
    hosts: list[Host] = []
    skipped: list[tuple[str, str]] = []
    for entry in entries:
        iid = field(entry, "instance_id", "instanceId")
        if not isinstance(iid, str) or not iid:
            raise UserError(f"{origin}: a GPU cluster instance entry has no instance_id")
        types.check(ids.InstanceId, iid, f"{origin}: instance_id")
        if names is not None and iid not in names:
            skipped.append((iid, "not in the names map"))
            continue
        path = ib_path(entry, origin, iid)
        if path is None:
            skipped.append((iid, "no path"))
            continue
        hosts.append(Host(name=names[iid] if names else iid, path=path, instance_id=iid))
    return Topology(tuple(hosts), source=origin, skipped=tuple(skipped))


def load(data: Any, names: Mapping[str, str] | None, origin: str) -> Topology:
    """The topology of recorded input (ids too long or not node names: names apply in parse)."""
    return parse(data, names, origin)
