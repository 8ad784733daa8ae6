"""OCI: HPC island / network block / local block per bare-metal host -> Topology.

OCI places RDMA hosts in three tiers, closest first: local block (tier 0), network block
(tier 1), HPC island (tier 2) (docs/sources.md O.3). Accepted inputs, each as OCI prints it:
- `ListComputeCapacityTopologyComputeBareMetalHosts` items (ComputeBareMetalHostSummary:
  computeHpcIslandId, computeNetworkBlockId, computeLocalBlockId, instanceId), as topograph reads
  them ([P] NVIDIA/topograph pkg/providers/oci/instance_topology.go);
- `ListComputeHosts` items (ComputeHostSummary: hpcIslandId, networkBlockId, localBlockId,
  instanceId, gpuMemoryFabricId) ([P] pulumi-oci core get_compute_hosts);
  both either as the REST body {"items": [...]}, a bare list, or the OCI CLI's
  {"data": {"items": [...]}} with kebab-case keys (hpc-island-id ...);
- a mapping node name -> the node's IMDS `/opc/v2/host/rdmaTopologyData` document
  (customerHPCIslandId, customerNetworkBlock, customerLocalBlock, customerGpuMemoryFabric)
  ([P] topograph pkg/providers/oci/imds.go).
Instance OCIDs are longer than a node name may be: give `names` (instance OCID -> node name,
e.g. from the inventory); without it the OCID's last field names the host.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufabric.clouds.oci.ids import ocid_problem
from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.topology.model import Host, Topology

# (island, network block, local block, NVLink domain) under each naming OCI uses
_KEYS = {
    "island": ("computeHpcIslandId", "hpcIslandId", "compute-hpc-island-id", "hpc-island-id"),
    "block": (
        "computeNetworkBlockId",
        "networkBlockId",
        "compute-network-block-id",
        "network-block-id",
    ),
    "local": ("computeLocalBlockId", "localBlockId", "compute-local-block-id", "local-block-id"),
    "fabric": (
        "computeGpuMemoryFabricId",
        "gpuMemoryFabricId",
        "compute-gpu-memory-fabric-id",
        "gpu-memory-fabric-id",
    ),
    "instance": ("instanceId", "instance-id"),
}
_IMDS = ("customerHPCIslandId", "customerNetworkBlock", "customerLocalBlock")


def _first(item: Mapping[str, Any], field: str, where: str) -> str | None:
    """The item's id for `field` under the first of its keys that is set; None when none is
    (absent, null or empty). A value that is not an id (a list, a number, true) is refused,
    naming the key, not skipped as if it were missing."""
    for key in _KEYS[field]:
        value = item.get(key)
        if value not in (None, ""):
            return types.check(types.NodeId, value, f"{where}: {key}")
    return None


def _instance(item: Mapping[str, Any], where: str) -> str | None:
    """The item's instance OCID; None for a host with no instance (the key absent or null). Any
    other value (a number such as 12345, another resource's OCID) is refused, not skipped."""
    for key in _KEYS["instance"]:
        value = item.get(key)
        if value not in (None, ""):
            why = ocid_problem(value, "instance")
            if why:
                raise UserError(f"{where}: {key} {types.show(value)} {why}")
            return str(value)
    return None


def _items(data: Any) -> list[Any] | None:
    if isinstance(data, dict) and isinstance(data.get("data"), dict | list):
        data = data["data"]  # the OCI CLI wraps the response body in "data"
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return data["items"]
    return None


def _shape(item: Mapping[str, Any], where: str) -> str | None:
    """The host's shape (`shape` or `instanceShape`), typed: it is written back out."""
    for key in ("shape", "instanceShape"):
        value = item.get(key)
        if value not in (None, ""):
            return types.check(types.NodeId, value, f"{where}: {key}")
    return None


def host_name(instance_id: str, names: Mapping[str, str] | None) -> str:
    if names is not None:
        return names[instance_id]
    return instance_id.rsplit(".", 1)[-1]


def parse(data: Any, names: Mapping[str, str] | None = None, origin: str = "oci") -> Topology:
    """Build a Topology from an OCI host list or a node -> rdmaTopologyData mapping."""
    items = _items(data)
    if items is None:
        return _parse_imds(data, origin)
    hosts: list[Host] = []
    skipped: list[tuple[str, str]] = []
    seen: dict[str, tuple[str, ...]] = {}
    for number, item in enumerate(items):
        if not isinstance(item, dict):
            raise UserError(f"{origin}: an item is not an object")
        iid = _instance(item, f"{origin}: items[{number}]")
        if iid is None:
            continue  # a host with no instance on it (free capacity): not a node
        where = f"{origin}: items[{number}]"
        path = tuple(_first(item, field, where) for field in ("island", "block", "local"))
        if None in path:
            missing = [
                n
                for n, v in zip(("HPC island", "network block", "local block"), path, strict=True)
                if v is None
            ]
            skipped.append((iid, f"no {', '.join(missing)} id"))
            continue
        full = tuple(str(p) for p in path)
        if iid in seen:
            if seen[iid] != full:
                raise UserError(f"{origin}: instance {iid} is listed twice with different blocks")
            continue
        seen[iid] = full
        if names is not None and iid not in names:
            skipped.append((iid, "not in the names map"))
            continue
        hosts.append(
            Host(
                name=host_name(iid, names),
                path=full,
                nvlink_domain=_first(item, "fabric", where),
                instance_id=iid,
                instance_type=_shape(item, where),
            )
        )
    return Topology(tuple(hosts), source=origin, skipped=tuple(skipped))


def _parse_imds(data: Any, origin: str) -> Topology:
    if (
        not isinstance(data, dict)
        or not data
        or not all(isinstance(v, dict) for v in data.values())
    ):
        raise UserError(
            f"{origin}: expected OCI compute hosts ({{'items': [...]}}, the CLI's {{'data': ...}}) "
            "or a mapping node name -> rdmaTopologyData"
        )
    hosts: list[Host] = []
    skipped: list[tuple[str, str]] = []
    for name, doc in data.items():
        values = [  # a value of the wrong type is refused, not skipped under another reason
            None
            if doc.get(k) in (None, "")
            else types.check(types.NodeId, doc[k], f"{origin}: {name}: {k}")
            for k in _IMDS
        ]
        missing = [k for k, v in zip(_IMDS, values, strict=True) if v is None]
        if missing:
            skipped.append((str(name), f"rdmaTopologyData lacks {', '.join(missing)}"))
            continue
        hosts.append(
            Host(
                name=str(name),
                path=tuple(str(v) for v in values),
                nvlink_domain=doc.get("customerGpuMemoryFabric") or None,
            )
        )
    return Topology(tuple(hosts), source=origin, skipped=tuple(skipped))


def load(data: Any, names: Mapping[str, str] | None, origin: str) -> Topology:
    """The topology of recorded input (ids too long or not node names: names apply in parse)."""
    return parse(data, names, origin)
