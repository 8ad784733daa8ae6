"""AWS capacity by network position: capacity reservations and capacity blocks.

Read live (boto3) or from saved `aws ec2 ... --output json` documents, as the CLI prints them
(field names from botocore's EC2 service model, 2016-11-15):
- `describe-capacity-reservations`: `CapacityReservations[]` with `CapacityReservationId`,
  `InstanceType`, `AvailabilityZone`, `State`, `AvailableInstanceCount`, `ReservationType`
  (default | capacity-block), `CapacityBlockId`;
- `describe-capacity-reservation-topology`: `CapacityReservations[]` with
  `CapacityReservationId`, `State`, `NetworkNodes` (top-down, hashed per account; empty for an
  instance type without topology or a reservation neither pending nor active);
- optionally `describe-capacity-block-status`: `CapacityBlockStatuses[]` with `CapacityBlockId`
  and `InterconnectStatus` (ok | impaired | insufficient-data).
Both reservation documents hold `CapacityReservations`: an item with `AvailableInstanceCount`
is a reservation, one without is a topology entry.

One unit per reservation, on the leaf its `NetworkNodes` end with; free hosts =
`AvailableInstanceCount`. Left out: another instance type or zone (not listed at all), state
other than active (pending reservations cannot launch yet), no network position, a capacity
block whose interconnect is not `ok`. Group: the reservation type, since one stack's
`capacity.type` is either reservation or capacity-block.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from gpufabric.capacity.model import Capacity, Choice, Unit, present, targets
from gpufabric.clouds.aws.settings import AwsStackConfig
from gpufabric.errors import UserError

MAX_TOPOLOGY_IDS = 10  # DescribeCapacityReservationTopology: at most 10 ids per call
CAPACITY_TYPE = {"default": "reservation", "capacity-block": "capacity-block"}
RESERVATION_KEY = "gpufabric:capacity.reservationId"
RESERVATIONS_KEY = "gpufabric:capacity.reservations"


def _items(doc: Any, key: str, origin: str) -> list[dict[str, Any]]:
    items = doc.get(key) if isinstance(doc, dict) else None
    if items is None:
        return []
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise UserError(f"{origin}: '{key}' is not a list of objects")
    return items


def _text(item: dict[str, Any], key: str, origin: str, who: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise UserError(f"{origin}: {who}: '{key}' missing or not a string")
    return value


def classify(docs: Sequence[tuple[str, Any]]) -> tuple[list, list, list]:
    """(reservations, topology entries, block statuses) as (origin, item) pairs."""
    reservations: list[tuple[str, dict]] = []
    topology: list[tuple[str, dict]] = []
    statuses: list[tuple[str, dict]] = []
    for origin, doc in docs:
        if not isinstance(doc, dict) or not (
            "CapacityReservations" in doc or "CapacityBlockStatuses" in doc
        ):
            raise UserError(
                f"{origin}: not the output of aws ec2 describe-capacity-reservations, "
                "describe-capacity-reservation-topology or describe-capacity-block-status"
            )
        for item in _items(doc, "CapacityReservations", origin):
            (reservations if "AvailableInstanceCount" in item else topology).append((origin, item))
        statuses.extend((origin, s) for s in _items(doc, "CapacityBlockStatuses", origin))
    return reservations, topology, statuses


def capacity(
    docs: Sequence[tuple[str, Any]], instance_type: str, zone: str, source: str
) -> Capacity:
    """The stack's reservations (its instance type, its zone) as capacity units."""
    reservations, topology, statuses = classify(docs)
    if not reservations:
        raise UserError(
            f"{source}: no capacity reservations: give the output of "
            "aws ec2 describe-capacity-reservations too"
        )
    leaves: dict[str, list[str]] = {}
    for origin, item in topology:
        rid = _text(item, "CapacityReservationId", origin, "a topology entry")
        nodes = item.get("NetworkNodes") or []
        if not isinstance(nodes, list) or not all(isinstance(n, str) and n for n in nodes):
            raise UserError(f"{origin}: {rid}: 'NetworkNodes' is not a list of strings")
        leaves[rid] = nodes
    interconnect = {
        _text(s, "CapacityBlockId", origin, "a capacity block status"): str(
            s.get("InterconnectStatus")
        )
        for origin, s in statuses
    }
    return Capacity(
        tuple(_units(reservations, leaves, interconnect, instance_type, zone)),
        source=source,
        unit_kind="reservation",
        leaf_kind="leaf",
    )


def _units(
    reservations: list[tuple[str, dict]],
    leaves: dict[str, list[str]],
    interconnect: dict[str, str],
    instance_type: str,
    zone: str,
) -> Iterator[Unit]:
    for origin, item in reservations:
        rid = _text(item, "CapacityReservationId", origin, "a reservation")
        if item.get("InstanceType") != instance_type or item.get("AvailabilityZone") != zone:
            continue
        free = item.get("AvailableInstanceCount")
        if not isinstance(free, int) or isinstance(free, bool) or free < 0:
            raise UserError(f"{origin}: {rid}: 'AvailableInstanceCount' is not a count")
        kind = str(item.get("ReservationType") or "default")
        if kind not in CAPACITY_TYPE:
            raise UserError(f"{origin}: {rid}: unknown 'ReservationType' {kind!r}")
        path = leaves.get(rid, [])
        block = item.get("CapacityBlockId")
        why = ""
        if item.get("State") != "active":
            why = f"state {item.get('State')}"
        elif not path:
            why = "no network position (not in the topology output)"
        elif isinstance(block, str) and block in interconnect and interconnect[block] != "ok":
            why = f"capacity block {block} interconnect {interconnect[block]}"
        yield Unit(
            id=rid,
            leaf=path[-1] if path else f"unknown:{rid}",
            free=free,
            healthy=not why,
            group=CAPACITY_TYPE[kind],
            note=why,
        )


class CapacityClient:
    """The three EC2 calls, paged; errors (credentials, denied, network) are one line."""

    def __init__(self, region: str, client: Any = None) -> None:
        from gpufabric.clouds.aws.discovery import Ec2

        self.ec2 = Ec2(region, client)

    def read(self, instance_type: str, zone: str) -> list[tuple[str, Any]]:
        """The documents `capacity` reads, as the CLI would print them."""
        filters = [
            {"Name": "instance-type", "Values": [instance_type]},
            {"Name": "availability-zone", "Values": [zone]},
        ]
        found: list[dict[str, Any]] = []
        for page in self.ec2._pages("describe_capacity_reservations", Filters=filters):
            found.extend(page.get("CapacityReservations", []))
        ids = [r["CapacityReservationId"] for r in found if r.get("State") in ("active", "pending")]
        topology: list[dict[str, Any]] = []
        for start in range(0, len(ids), MAX_TOPOLOGY_IDS):
            chunk = ids[start : start + MAX_TOPOLOGY_IDS]
            for page in self.ec2._pages(
                "describe_capacity_reservation_topology", CapacityReservationIds=chunk
            ):
                topology.extend(page.get("CapacityReservations", []))
        blocks = sorted({r["CapacityBlockId"] for r in found if r.get("CapacityBlockId")})
        statuses: list[dict[str, Any]] = []
        if blocks:
            for page in self.ec2._pages("describe_capacity_block_status", CapacityBlockIds=blocks):
                statuses.extend(page.get("CapacityBlockStatuses", []))
        return [
            ("describe-capacity-reservations", {"CapacityReservations": found}),
            ("describe-capacity-reservation-topology", {"CapacityReservations": topology}),
            ("describe-capacity-block-status", {"CapacityBlockStatuses": statuses}),
        ]


# -- what `gpufabric capacity` calls (one interface per cloud) --------------------------------


def read_live(cfg: AwsStackConfig) -> list[tuple[str, Any]]:
    return CapacityClient(cfg.region).read(cfg.instance_type, cfg.zone)


def capacity_for(cfg: AwsStackConfig, docs: Sequence[tuple[str, Any]], source: str) -> Capacity:
    return capacity(docs, cfg.instance_type, cfg.zone, source)


def settings(choice: Choice, cfg: AwsStackConfig, raw: dict[str, Any]) -> dict[str, Any]:
    """Stack config for the choice: the capacity type, the reservation id (one) or the
    reservations with their node counts (several: one launch per node, `nodeGroup: instances`)."""
    out: dict[str, Any] = {"gpufabric:capacity.type": choice.group}
    out.update(targets(choice, RESERVATION_KEY, RESERVATIONS_KEY, raw))
    if present(raw, "gpufabric:capacity.resourceGroupArn"):
        out["gpufabric:capacity.resourceGroupArn"] = None
    if len(choice.units) > 1 and cfg.node_group != "instances":
        out["gpufabric:nodeGroup"] = "instances"
    return out


def planned_ids(cfg: AwsStackConfig) -> list[str]:
    return cfg.capacity.target_ids()
