"""GCP capacity by network position: reservation blocks and sub-blocks.

Read live (google-cloud-compute, imported only then: it takes seconds) or from saved
`gcloud compute reservations blocks list R --zone Z --format=json` and
`gcloud compute reservations sub-blocks list R --block-name B --zone Z --format=json` output (a
JSON array of resources; the REST `{"items": [...]}` body is read too). Field names are the
API's (google-cloud-compute ReservationBlock / ReservationSubBlock, `to_json` spelling):
`name`, `count` (hosts), `inUseCount`, `inUseHostCount`, `status` (READY when usable),
`healthInfo.healthStatus` (HEALTHY | DEGRADED), `physicalTopology{cluster, block[, subBlock]}`,
`selfLink` (.../projects/P/zones/Z/reservations/R/reservationBlocks/B[/reservationSubBlocks/S]).

One unit per sub-block where its block's sub-blocks are given, else one per block; the stack
config names it by path (`projects/P/reservations/R/reservationBlocks/B[/reservationSubBlocks/S]`).
Leaf: the physical cluster/block/sub-block (cluster/block for a block). Free hosts: `count` less
`inUseHostCount` (or `inUseCount` where absent). Left out: status other than READY, health
DEGRADED, another zone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from gpufabric.capacity.model import Capacity, Choice, Unit, present, targets
from gpufabric.clouds.gcp.settings import GcpStackConfig
from gpufabric.errors import UserError
from gpufabric.inputs.formats import parse_json
from gpufabric.inputs.types import digits

RESERVATION_KEY = "gpufabric:capacity.reservationId"
RESERVATIONS_KEY = "gpufabric:capacity.reservations"
_SELF_LINK = re.compile(
    r"projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)/reservations/(?P<reservation>[^/]+)"
    r"/reservationBlocks/(?P<block>[^/]+)(/reservationSubBlocks/(?P<sub>[^/]+))?$"
)


def _resources(doc: Any, origin: str) -> list[dict[str, Any]]:
    if isinstance(doc, dict) and "items" in doc:
        doc = doc["items"]
    if not isinstance(doc, list) or not all(isinstance(i, dict) for i in doc):
        raise UserError(
            f"{origin}: not the output of gcloud compute reservations blocks list or "
            "sub-blocks list --format=json (a list of objects)"
        )
    return doc


def _count(item: dict[str, Any], key: str, origin: str, who: str) -> int | None:
    value = item.get(key)
    if value is None:
        return None
    # int64 fields may print as strings (ASCII digits only: "²".isdigit() holds, int() fails)
    if isinstance(value, str) and digits(value):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise UserError(f"{origin}: {who}: '{key}' is not a count")
    return value


def config_path(match: re.Match[str]) -> str:
    path = (
        f"projects/{match['project']}/reservations/{match['reservation']}"
        f"/reservationBlocks/{match['block']}"
    )
    return path + (f"/reservationSubBlocks/{match['sub']}" if match["sub"] else "")


def capacity(docs: Sequence[tuple[str, Any]], zone: str, source: str) -> Capacity:
    """Blocks and sub-blocks of the stack's zone as capacity units."""
    blocks: dict[str, tuple[str, dict, re.Match[str]]] = {}
    subs: dict[str, list[tuple[str, dict, re.Match[str]]]] = {}
    for origin, doc in docs:
        for item in _resources(doc, origin):
            link = item.get("selfLink")
            match = _SELF_LINK.search(link) if isinstance(link, str) else None
            if match is None:
                raise UserError(
                    f"{origin}: {item.get('name', 'a block')!r}: 'selfLink' missing or not a "
                    "reservation block or sub-block link"
                )
            if match["zone"] != zone:
                continue
            parent = config_path(match).split("/reservationSubBlocks/")[0]
            if match["sub"]:
                subs.setdefault(parent, []).append((origin, item, match))
            elif parent in blocks:  # as a sub-block listed twice is (Capacity refuses it)
                raise UserError(f"{origin}: {parent}: the block is listed twice")
            else:
                blocks[parent] = (origin, item, match)
    units = list(_units(blocks, subs))
    if not units:
        raise UserError(f"{source}: no reservation blocks or sub-blocks in zone {zone}")
    kind = "sub-block" if subs else "block"
    return Capacity(tuple(units), source=source, unit_kind=kind, leaf_kind=kind)


def _units(
    blocks: dict[str, tuple[str, dict, re.Match[str]]],
    subs: dict[str, list[tuple[str, dict, re.Match[str]]]],
) -> Iterator[Unit]:
    for parent in sorted(set(blocks) | set(subs)):
        if parent in subs:
            for origin, item, match in subs[parent]:
                yield _unit(origin, item, match)
        else:
            origin, item, match = blocks[parent]
            yield _unit(origin, item, match)


def _unit(origin: str, item: dict[str, Any], match: re.Match[str]) -> Unit:
    path = config_path(match)
    total = _count(item, "count", origin, path)
    if total is None:
        raise UserError(f"{origin}: {path}: 'count' missing")
    used = _count(item, "inUseHostCount", origin, path)
    if used is None:
        used = _count(item, "inUseCount", origin, path) or 0
    topo = item.get("physicalTopology") if isinstance(item.get("physicalTopology"), dict) else {}
    assert isinstance(topo, dict)
    parts = [topo.get("cluster"), topo.get("block")] + (
        [topo.get("subBlock")] if match["sub"] else []
    )
    leaf = "/".join(str(p) for p in parts) if all(isinstance(p, str) and p for p in parts) else path
    health = item.get("healthInfo") if isinstance(item.get("healthInfo"), dict) else {}
    assert isinstance(health, dict)
    why = ""
    if item.get("status") != "READY":
        why = f"status {item.get('status')}"
    elif health.get("healthStatus") == "DEGRADED":
        why = "health DEGRADED"
    return Unit(id=path, leaf=leaf, free=max(0, total - used), healthy=not why, note=why)


def _as_json(message: Any) -> dict[str, Any]:
    return parse_json(type(message).to_json(message), where=type(message).__name__)


class CapacityClient:
    """Reservations of the stack's machine type in its zone, their blocks and sub-blocks."""

    def __init__(self, project: str, zone: str, clients: Any = None) -> None:
        self.project, self.zone = project, zone
        if clients is None:
            from gpufabric.extras import require

            require("google.cloud.compute_v1", "reading GCP reservation blocks")
            from gpufabric.clouds.gcp.faulty import sdk

            compute_v1 = sdk()

            clients = (
                compute_v1.ReservationsClient(),
                compute_v1.ReservationBlocksClient(),
                compute_v1.ReservationSubBlocksClient(),
            )
        self.reservations, self.blocks, self.subs = clients

    def read(self, machine_type: str) -> list[tuple[str, Any]]:
        from gpufabric.clouds.gcp.faulty import sdk

        compute_v1 = sdk()
        from google.api_core.exceptions import GoogleAPIError
        from google.auth.exceptions import GoogleAuthError

        try:
            return self._read(compute_v1, machine_type)
        except (GoogleAPIError, GoogleAuthError) as exc:
            raise UserError(
                f"gcp reservations in {self.project}/{self.zone}: {str(exc).splitlines()[0]}"
            ) from None

    def _read(self, compute_v1: Any, machine_type: str) -> list[tuple[str, Any]]:
        names = []
        request = compute_v1.ListReservationsRequest(project=self.project, zone=self.zone)
        for reservation in self.reservations.list(request=request):
            sku = reservation.specific_reservation.instance_properties
            if sku.machine_type == machine_type:
                names.append(reservation.name)
        blocks: list[dict[str, Any]] = []
        subs: list[dict[str, Any]] = []
        for name in names:
            request = compute_v1.ListReservationBlocksRequest(
                project=self.project, zone=self.zone, reservation=name
            )
            for block in self.blocks.list(request=request):
                blocks.append(_as_json(block))
                sub_request = compute_v1.ListReservationSubBlocksRequest(
                    project=self.project,
                    zone=self.zone,
                    parent_name=f"reservations/{name}/reservationBlocks/{block.name}",
                )
                subs.extend(_as_json(s) for s in self.subs.list(request=sub_request))
        return [("reservation blocks", blocks), ("reservation sub-blocks", subs)]


# -- what `gpufabric capacity` calls (one interface per cloud) --------------------------------


def read_live(cfg: GcpStackConfig) -> list[tuple[str, Any]]:
    return CapacityClient(cfg.gcp.project, cfg.zone).read(cfg.instance_type)


def capacity_for(cfg: GcpStackConfig, docs: Sequence[tuple[str, Any]], source: str) -> Capacity:
    return capacity(docs, cfg.zone, source)


def settings(choice: Choice, cfg: GcpStackConfig, raw: dict[str, Any]) -> dict[str, Any]:
    """Stack config for the choice: a specific reservation, by the block or sub-block path (one)
    or paths with node counts (several: one VM per node, `nodeGroup: instances`)."""
    out: dict[str, Any] = {"gpufabric:capacity.type": "reservation"}
    out.update(targets(choice, RESERVATION_KEY, RESERVATIONS_KEY, raw))
    if len(choice.units) > 1 and cfg.node_group != "instances":
        out["gpufabric:nodeGroup"] = "instances"
        if present(raw, "gpufabric:gcp.maxTopologyDistance"):  # a group's workload policy
            out["gpufabric:gcp.maxTopologyDistance"] = None
    return out


def planned_ids(cfg: GcpStackConfig) -> list[str]:
    ids = cfg.capacity.target_ids()
    project = cfg.gcp.project
    return [i if i.startswith("projects/") else f"projects/{project}/reservations/{i}" for i in ids]


def fault_report(cfg: GcpStackConfig, **kw: Any) -> Any:
    """Day 2 (`gpufabric capacity report-faulty`): see gpufabric.clouds.gcp.faulty."""
    from gpufabric.clouds.gcp import faulty

    return faulty.fault_report(cfg, **kw)


def send_fault_report(report: Any) -> str:
    from gpufabric.clouds.gcp import faulty

    return faulty.send(report)
