"""OCI capacity by network position: bare-metal hosts of a compute capacity topology.

Read from saved OCI CLI output, as the CLI prints it (`{"data": {"items": [...]}}`, keys with
'-' for '_': oci-cli's `to_dict`), of either
- `oci compute capacity-topology bare-metal-host list --capacity-topology-id T --all`
  (ComputeBareMetalHostSummary: compute-hpc-island-id, compute-network-block-id,
  compute-local-block-id, instance-id, instance-shape, lifecycle-state ACTIVE | INACTIVE,
  lifecycle-details AVAILABLE | DEGRADED | UNAVAILABLE), or
- `oci compute compute-host list --compartment-id C --all` (ComputeHostSummary:
  hpc-island-id, network-block-id, local-block-id, instance-id, shape, health HEALTHY |
  UNHEALTHY, lifecycle-state AVAILABLE | OCCUPIED | PROVISIONING | REPAIR | UNAVAILABLE).
The REST bodies (`{"items": [...]}`, camelCase) are read too. Live (`CapacityClient`, the OCI
SDK), the same listings: the bare-metal hosts of the availability domain's ACTIVE (or UPDATING) capacity
topologies, or, where the compartment has no capacity topology, its compute hosts.

One unit per network block (what `gpufabric:oci.networkBlockIds` names), grouped by HPC island
(one cluster network stays in one island). Free hosts: the shape's hosts without an instance
that are ACTIVE and AVAILABLE (bare-metal hosts) or AVAILABLE and HEALTHY (compute hosts). A
network block with a DEGRADED or UNHEALTHY host is left out whole: a cluster network placed on
the block could land a node on that host.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpufabric.capacity.model import Capacity, Choice, Unit
from gpufabric.clouds.oci.settings import OciStackConfig
from gpufabric.errors import UserError

# field -> its spellings (REST camelCase, CLI kebab-case), bare-metal host and compute host
_KEYS = {
    "island": ("computeHpcIslandId", "compute-hpc-island-id", "hpcIslandId", "hpc-island-id"),
    "block": (
        "computeNetworkBlockId",
        "compute-network-block-id",
        "networkBlockId",
        "network-block-id",
    ),
    "local": (
        "computeLocalBlockId",
        "compute-local-block-id",
        "localBlockId",
        "local-block-id",
    ),
    "instance": ("instanceId", "instance-id"),
    "shape": ("instanceShape", "instance-shape", "shape"),
    "state": ("lifecycleState", "lifecycle-state"),
    "details": ("lifecycleDetails", "lifecycle-details"),
    "health": ("health",),
    "id": ("id",),
}


def _get(item: dict[str, Any], field: str) -> Any:
    for key in _KEYS[field]:
        if key in item:
            return item[key]
    return None


def _items(doc: Any, origin: str) -> list[dict[str, Any]]:
    if isinstance(doc, dict) and isinstance(doc.get("data"), dict | list):
        doc = doc["data"]
    if isinstance(doc, dict) and isinstance(doc.get("items"), list):
        doc = doc["items"]
    if not isinstance(doc, list) or not all(isinstance(i, dict) for i in doc):
        raise UserError(
            f"{origin}: not the output of oci compute capacity-topology bare-metal-host list "
            "or oci compute compute-host list"
        )
    return doc


@dataclass
class _Block:
    island: str
    free: int = 0
    bad: int = 0
    bad_word: str = ""


def _host_state(item: dict[str, Any]) -> tuple[bool, str]:
    """(free for a new node, why the host spoils its block or '')."""
    if "health" in item or _get(item, "state") in ("AVAILABLE", "OCCUPIED", "REPAIR"):
        # a compute host: health HEALTHY | UNHEALTHY, lifecycle state AVAILABLE | OCCUPIED ...
        if _get(item, "health") == "UNHEALTHY":
            return False, "UNHEALTHY"
        return _get(item, "state") == "AVAILABLE", ""
    details = _get(item, "details")
    if details == "DEGRADED":
        return False, "DEGRADED"
    return _get(item, "state") == "ACTIVE" and details == "AVAILABLE", ""


def capacity(docs: Sequence[tuple[str, Any]], shape: str, source: str) -> Capacity:
    """Network blocks of the stack's shape as capacity units (free hosts, island)."""
    blocks: dict[str, _Block] = {}
    for origin, doc in docs:
        for item in _items(doc, origin):
            island, block = _get(item, "island"), _get(item, "block")
            if not (isinstance(island, str) and island and isinstance(block, str) and block):
                who = _get(item, "id") or "a host"
                raise UserError(f"{origin}: {who}: no HPC island or network block id")
            host_shape = _get(item, "shape")
            if host_shape is not None and host_shape != shape:
                continue
            entry = blocks.setdefault(block, _Block(island))
            if entry.island != island:
                raise UserError(f"{origin}: network block {block} is in two HPC islands")
            free, bad = _host_state(item)
            entry.free += free and not _get(item, "instance")
            if bad:
                entry.bad += 1
                entry.bad_word = bad
    if not blocks:
        raise UserError(f"{source}: no {shape} hosts")
    units = tuple(
        Unit(
            id=block,
            leaf=block,
            free=entry.free,
            healthy=not entry.bad,
            group=entry.island,
            note=f"{entry.bad} {entry.bad_word} host(s)" if entry.bad else "",
        )
        for block, entry in sorted(blocks.items())
    )
    return Capacity(units, source=source, unit_kind="network block", leaf_kind="network block")


# -- what `gpufabric capacity` calls (one interface per cloud) --------------------------------


class CapacityClient:
    """The compartment's capacity topologies and their bare-metal hosts, or (without a capacity
    topology) its compute hosts: every page, as the CLI prints them; errors are one line.

    Calls ([P] oracle/oci-python-sdk ComputeClient): list_compute_capacity_topologies,
    list_compute_capacity_topology_compute_bare_metal_hosts, list_compute_hosts."""

    def __init__(self, region: str, compute: Any = None) -> None:
        self.region = region
        if compute is None:
            import oci

            from gpufabric.clouds.oci.live import sdk_client, sdk_config

            compute = sdk_client(
                oci.core.ComputeClient, sdk_config(region, "OCI capacity"), "OCI capacity"
            )
        self.compute = compute

    def _all(self, what: str, fn: Any) -> list[dict[str, Any]]:
        from gpufabric.clouds.oci.live import kebab, pages

        return [kebab(item) for item in pages(f"{what} in {self.region}", fn)]

    def read(self, compartment: str, zone: str) -> list[tuple[str, Any]]:
        """The documents `capacity` reads: the bare-metal hosts of every ACTIVE (or UPDATING) capacity
        topology in the availability domain, else the compute hosts there."""
        compute = self.compute
        topologies = [
            t["id"]
            for t in self._all(
                "ListComputeCapacityTopologies",
                lambda **page: compute.list_compute_capacity_topologies(
                    compartment, availability_domain=zone, **page
                ),
            )
            if t.get("lifecycle-state") in ("ACTIVE", "UPDATING")
        ]
        if topologies:
            what = "ListComputeCapacityTopologyComputeBareMetalHosts"
            hosts = [
                host
                for topology in topologies
                for host in self._all(
                    f"{what} {topology}",
                    lambda topology=topology, **page: (
                        compute.list_compute_capacity_topology_compute_bare_metal_hosts(
                            topology, availability_domain=zone, **page
                        )
                    ),
                )
            ]
            return [(f"oci {what}", {"data": {"items": hosts}})]
        hosts = self._all(
            "ListComputeHosts",
            lambda **page: compute.list_compute_hosts(
                compartment, availability_domain=zone, **page
            ),
        )
        return [("oci ListComputeHosts", {"data": {"items": hosts}})]


def read_live(cfg: OciStackConfig) -> list[tuple[str, Any]]:
    return CapacityClient(cfg.region).read(cfg.oci.compartment_id, cfg.zone)


def positions(docs: Sequence[tuple[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Instance id -> (HPC island, network block, local block) of the host it runs on: where
    `capacity check` finds the nodes when node discovery reports no position."""
    found: dict[str, tuple[str, ...]] = {}
    for origin, doc in docs:
        for item in _items(doc, origin):
            instance = _get(item, "instance")
            path = tuple(_get(item, f) for f in ("island", "block", "local"))
            if (
                isinstance(instance, str)
                and instance
                and all(isinstance(p, str) and p for p in path)
            ):
                found[instance] = path
    return found


def capacity_for(cfg: OciStackConfig, docs: Sequence[tuple[str, Any]], source: str) -> Capacity:
    return capacity(docs, cfg.instance_type, source)


def settings(choice: Choice, cfg: OciStackConfig, raw: dict[str, Any]) -> dict[str, Any]:
    """Stack config for the choice: the HPC island and its chosen network blocks."""
    return {
        "gpufabric:oci.hpcIslandId": choice.group,
        "gpufabric:oci.networkBlockIds": [u.id for u in choice.units],
    }


def planned_ids(cfg: OciStackConfig) -> list[str]:
    return list(cfg.oci.network_block_ids or [])
