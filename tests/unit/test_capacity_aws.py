"""AWS's capacity reader at its edges: each refusal word for word, which reservations become
units (and which are left out, and why), the units exactly, the three EC2 calls with a page
that omits its list, the stack settings a choice becomes and the ids `capacity check`
compares. Documents are constructed in `aws ec2 ... --output json` spelling (botocore's EC2
field names)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gpufabric.capacity.model import Choice, Unit
from gpufabric.clouds.aws import capacity as aws
from gpufabric.errors import UserError

ITYPE, ZONE = "p5.48xlarge", "us-east-1a"
NOT_AWS = (
    "not the output of aws ec2 describe-capacity-reservations, "
    "describe-capacity-reservation-topology or describe-capacity-block-status"
)


def res(rid: str, free: Any = 4, **fields: Any) -> dict[str, Any]:
    doc = {
        "CapacityReservationId": rid,
        "InstanceType": ITYPE,
        "AvailabilityZone": ZONE,
        "AvailableInstanceCount": free,
        "State": "active",
    }
    return {**doc, **fields}


def topo(rid: str, *nodes: Any) -> dict[str, Any]:
    return {"CapacityReservationId": rid, "State": "active", "NetworkNodes": list(nodes)}


def read(*docs: Any) -> Any:
    return aws.capacity([(f"f{i}.json", d) for i, d in enumerate(docs)], ITYPE, ZONE, "saved")


def refusal(*docs: Any) -> str:
    with pytest.raises(UserError) as err:
        read(*docs)
    return str(err.value)


def reservations(*items: Any) -> dict[str, Any]:
    return {"CapacityReservations": list(items)}


@pytest.mark.parametrize("doc", [[], {}, "x", {"Reservations": []}, {"capacityReservations": []}])
def test_not_a_capacity_document_is_one_line(doc: Any):
    assert refusal(reservations(res("cr-1")), doc) == f"f1.json: {NOT_AWS}"


@pytest.mark.parametrize("key", ["CapacityReservations", "CapacityBlockStatuses"])
@pytest.mark.parametrize("items", ["x", {"a": 1}, [1], [{}, "cr-1"]])
def test_a_list_that_is_not_of_objects_is_one_line(key: str, items: Any):
    assert refusal(reservations(res("cr-1")), {key: items}) == (
        f"f1.json: '{key}' is not a list of objects"
    )


@pytest.mark.parametrize(
    "docs",
    [
        [reservations()],
        [{"CapacityReservations": None}],
        [{"CapacityBlockStatuses": []}],
        [reservations(topo("cr-1", "nn-a"))],  # topology entries alone
    ],
)
def test_without_reservations_is_one_line_naming_the_call(docs: list[Any]):
    assert refusal(*docs) == (
        "saved: no capacity reservations: give the output of "
        "aws ec2 describe-capacity-reservations too"
    )


def test_a_status_document_alone_is_read_beside_the_reservations():
    cap = read(
        reservations(res("cr-1", CapacityBlockId="cb-1")),
        reservations(topo("cr-1", "nn-a")),
        {"CapacityBlockStatuses": [{"CapacityBlockId": "cb-1", "InterconnectStatus": "impaired"}]},
    )
    assert cap.units[0].note == "capacity block cb-1 interconnect impaired"


@pytest.mark.parametrize("rid", [None, "", 7])
def test_an_item_without_its_id_is_one_line(rid: Any):
    no_id = {"CapacityReservationId": rid} if rid is not None else {}
    assert refusal(reservations({**no_id, "AvailableInstanceCount": 1})) == (
        "f0.json: a reservation: 'CapacityReservationId' missing or not a string"
    )
    assert refusal(reservations(res("cr-1")), reservations({**no_id, "NetworkNodes": []})) == (
        "f1.json: a topology entry: 'CapacityReservationId' missing or not a string"
    )
    status = {"InterconnectStatus": "ok", **({"CapacityBlockId": rid} if rid is not None else {})}
    assert refusal(reservations(res("cr-1")), {"CapacityBlockStatuses": [status]}) == (
        "f1.json: a capacity block status: 'CapacityBlockId' missing or not a string"
    )


@pytest.mark.parametrize("nodes", ["nn-a", {"a": 1}, ["nn-a", ""], ["nn-a", 3], [None]])
def test_network_nodes_that_are_not_strings_are_one_line(nodes: Any):
    entry = {"CapacityReservationId": "cr-1", "NetworkNodes": nodes}
    assert refusal(reservations(res("cr-1")), reservations(entry)) == (
        "f1.json: cr-1: 'NetworkNodes' is not a list of strings"
    )


@pytest.mark.parametrize("free", [-1, True, "3", None, 1.5])
def test_a_free_count_that_is_not_a_count_is_one_line(free: Any):
    assert refusal(reservations(res("cr-1", free))) == (
        "f0.json: cr-1: 'AvailableInstanceCount' is not a count"
    )


def test_an_unknown_reservation_type_is_one_line():
    assert refusal(reservations(res("cr-1", ReservationType="spot"))) == (
        "f0.json: cr-1: unknown 'ReservationType' 'spot'"
    )


def test_another_type_or_zone_is_skipped_before_its_fields_are_judged():
    cap = read(
        reservations(
            res("cr-1", -5, InstanceType="p4d.24xlarge", ReservationType="spot"),
            res("cr-2", "x", AvailabilityZone="us-east-1b"),
            res("cr-3", 0),
            res("cr-4", 2, InstanceType="p4d.24xlarge", AvailabilityZone="us-east-1b"),
        ),
        reservations(topo("cr-3", "nn-a", "nn-b", "nn-c")),
    )
    assert cap.units == (Unit("cr-3", "nn-c", 0, True, "reservation", ""),)
    assert (cap.source, cap.unit_kind, cap.leaf_kind) == ("saved", "reservation", "leaf")


def test_each_unit_its_leaf_group_and_why_it_is_left_out():
    cap = read(
        reservations(
            res("cr-1", 4),
            res("cr-2", 8, ReservationType="capacity-block", CapacityBlockId="cb-ok"),
            res("cr-3", 8, ReservationType="capacity-block", CapacityBlockId="cb-bad"),
            res("cr-4", 8, ReservationType="capacity-block", CapacityBlockId="cb-unlisted"),
            res("cr-5", 8, ReservationType="capacity-block", CapacityBlockId="cb-none"),
            res("cr-6", 2, ReservationType=None, CapacityBlockId=None),
            res("cr-7", 2, State="pending", CapacityBlockId="cb-bad"),
            res("cr-8", 2),
            res("cr-9", 2, CapacityBlockId="cb-bad"),
            {k: v for k, v in res("cr-10", 1).items() if k != "State"},
            res("cr-11", 3),
            res("cr-12", 3, State="expired"),
        ),
        reservations(
            topo("cr-1", "nn-a", "nn-b", "nn-1"),
            topo("cr-2", "nn-a", "nn-b", "nn-2"),
            topo("cr-3", "nn-a", "nn-b", "nn-3"),
            topo("cr-4", "nn-a", "nn-b", "nn-4"),
            topo("cr-5", "nn-a", "nn-b", "nn-5"),
            topo("cr-6", "nn-a", "nn-b", "nn-6"),
            topo("cr-7", "nn-a", "nn-b", "nn-7"),
            {"CapacityReservationId": "cr-11", "NetworkNodes": None},
        ),
        {
            "CapacityBlockStatuses": [
                {"CapacityBlockId": "cb-ok", "InterconnectStatus": "ok"},
                {"CapacityBlockId": "cb-bad", "InterconnectStatus": "impaired"},
                {"CapacityBlockId": "cb-none"},
            ]
        },
    )
    block, unplaced = "capacity-block", "no network position (not in the topology output)"
    assert cap.units == (
        Unit("cr-1", "nn-1", 4, True, "reservation", ""),
        Unit("cr-2", "nn-2", 8, True, block, ""),
        Unit("cr-3", "nn-3", 8, False, block, "capacity block cb-bad interconnect impaired"),
        Unit("cr-4", "nn-4", 8, True, block, ""),
        Unit("cr-5", "nn-5", 8, False, block, "capacity block cb-none interconnect None"),
        Unit("cr-6", "nn-6", 2, True, "reservation", ""),
        Unit("cr-7", "nn-7", 2, False, "reservation", "state pending"),
        Unit("cr-8", "unknown:cr-8", 2, False, "reservation", unplaced),
        Unit("cr-9", "unknown:cr-9", 2, False, "reservation", unplaced),
        Unit("cr-10", "unknown:cr-10", 1, False, "reservation", "state None"),
        Unit("cr-11", "unknown:cr-11", 3, False, "reservation", unplaced),
        Unit("cr-12", "unknown:cr-12", 3, False, "reservation", "state expired"),
    )


def test_without_a_status_document_a_capacity_block_is_taken():
    cap = read(
        reservations(res("cr-1", 4, ReservationType="capacity-block", CapacityBlockId="cb-1")),
        reservations(topo("cr-1", "nn-a")),
    )
    assert cap.units == (Unit("cr-1", "nn-a", 4, True, "capacity-block", ""),)


# -- the three EC2 calls -----------------------------------------------------------------------


class FakeEc2:
    """Answers each call from `answers` (operation -> pages), one page per call; records the
    calls. A page may leave its list out (EC2 omits an empty one)."""

    def __init__(self, answers: dict[str, list[dict[str, Any]]]) -> None:
        self.answers = {op: list(pages) for op, pages in answers.items()}
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, operation: str) -> Any:
        def call(**params: Any) -> dict[str, Any]:
            self.calls.append((operation, params))
            return dict(self.answers[operation].pop(0))

        return call


FILTERS = [
    {"Name": "instance-type", "Values": [ITYPE]},
    {"Name": "availability-zone", "Values": [ZONE]},
]


def test_live_read_pages_and_chunks_and_returns_the_cli_documents():
    found = [res(f"cr-{i:02d}", 1) for i in range(22)]
    found[0].update(CapacityBlockId="cb-2")
    found[1].update(CapacityBlockId="cb-1")
    found[2].update(CapacityBlockId="cb-2")
    found[3].update(State="pending")
    found[4].update(State="cancelled", CapacityBlockId="")
    found.append(res("cr-99", 1, State="expired"))
    ids = [r["CapacityReservationId"] for r in found if r["State"] in ("active", "pending")]
    entries = [topo(i, "nn-a", f"nn-{i}") for i in ids]
    statuses = [{"CapacityBlockId": b, "InterconnectStatus": "ok"} for b in ("cb-1", "cb-2")]
    fake = FakeEc2(
        {
            "describe_capacity_reservations": [
                {"CapacityReservations": found[:12], "NextToken": "t2"},
                {"CapacityReservations": found[12:]},
            ],
            "describe_capacity_reservation_topology": [
                {"CapacityReservations": entries[:10]},
                {"CapacityReservations": entries[10:20]},
                {},  # the last chunk: EC2 left the list out
            ],
            "describe_capacity_block_status": [{"CapacityBlockStatuses": statuses}],
        }
    )
    docs = aws.CapacityClient("us-east-1", fake).read(ITYPE, ZONE)
    assert len(ids) == 21
    assert fake.calls == [
        ("describe_capacity_reservations", {"Filters": FILTERS}),
        ("describe_capacity_reservations", {"Filters": FILTERS, "NextToken": "t2"}),
        ("describe_capacity_reservation_topology", {"CapacityReservationIds": ids[:10]}),
        ("describe_capacity_reservation_topology", {"CapacityReservationIds": ids[10:20]}),
        ("describe_capacity_reservation_topology", {"CapacityReservationIds": ids[20:]}),
        ("describe_capacity_block_status", {"CapacityBlockIds": ["cb-1", "cb-2"]}),
    ]
    assert docs == [
        ("describe-capacity-reservations", {"CapacityReservations": found}),
        ("describe-capacity-reservation-topology", {"CapacityReservations": entries[:20]}),
        ("describe-capacity-block-status", {"CapacityBlockStatuses": statuses}),
    ]


def test_live_read_without_reservations_asks_nothing_more():
    fake = FakeEc2({"describe_capacity_reservations": [{}]})
    docs = aws.CapacityClient("us-east-1", fake).read(ITYPE, ZONE)
    assert fake.calls == [("describe_capacity_reservations", {"Filters": FILTERS})]
    assert docs == [
        ("describe-capacity-reservations", {"CapacityReservations": []}),
        ("describe-capacity-reservation-topology", {"CapacityReservations": []}),
        ("describe-capacity-block-status", {"CapacityBlockStatuses": []}),
    ]


def test_a_status_page_without_its_list_is_no_status():
    fake = FakeEc2(
        {
            "describe_capacity_reservations": [
                {"CapacityReservations": [res("cr-1", CapacityBlockId="cb-1")]}
            ],
            "describe_capacity_reservation_topology": [{"CapacityReservations": []}],
            "describe_capacity_block_status": [{}],
        }
    )
    docs = aws.CapacityClient("us-east-1", fake).read(ITYPE, ZONE)
    assert docs[2] == ("describe-capacity-block-status", {"CapacityBlockStatuses": []})


# -- what `gpufabric capacity` calls -----------------------------------------------------------


def test_the_interface_capacity_calls(monkeypatch: pytest.MonkeyPatch):
    cfg: Any = SimpleNamespace(region="us-east-1", zone=ZONE, instance_type=ITYPE)
    docs = [("f.json", reservations(res("cr-1"))), ("t.json", reservations(topo("cr-1", "nn")))]
    cap = aws.capacity_for(cfg, docs, "files")
    assert cap.units == (Unit("cr-1", "nn", 4, True, "reservation", ""),)
    assert cap.source == "files"

    made: list[str] = []

    class Client:
        def __init__(self, region: str) -> None:
            made.append(region)

        def read(self, instance_type: str, zone: str) -> list[tuple[str, Any]]:
            return [("live", (instance_type, zone))]

    monkeypatch.setattr(aws, "CapacityClient", Client)
    assert aws.read_live(cfg) == [("live", (ITYPE, ZONE))]
    assert made == ["us-east-1"]


def _choice(group: str, *units: Unit) -> Choice:
    counts = tuple(u.free for u in units)
    return Choice(sum(counts), group, units, counts, len(units), len(units), 0)


def _cfg(node_group: str = "group") -> Any:
    return SimpleNamespace(node_group=node_group)


ARN = {"gpufabric:capacity": {"resourceGroupArn": "arn:aws:resource-groups:x"}}


def test_one_reservation_is_its_id_and_type():
    one = _choice("capacity-block", Unit("cr-1", "nn", 4, group="capacity-block"))
    assert aws.settings(one, _cfg(), {}) == {
        "gpufabric:capacity.type": "capacity-block",
        "gpufabric:capacity.reservationId": "cr-1",
    }
    assert aws.settings(one, _cfg(), ARN) == {
        "gpufabric:capacity.type": "capacity-block",
        "gpufabric:capacity.reservationId": "cr-1",
        "gpufabric:capacity.resourceGroupArn": None,
    }


def test_several_reservations_put_one_launch_per_node():
    two = _choice("reservation", Unit("cr-1", "nn", 4), Unit("cr-2", "nn", 2))
    shares = [{"id": "cr-1", "nodes": 4}, {"id": "cr-2", "nodes": 2}]
    assert aws.settings(two, _cfg(), ARN) == {
        "gpufabric:capacity.type": "reservation",
        "gpufabric:capacity.reservations": shares,
        "gpufabric:capacity.resourceGroupArn": None,
        "gpufabric:nodeGroup": "instances",
    }
    assert aws.settings(two, _cfg("instances"), {}) == {
        "gpufabric:capacity.type": "reservation",
        "gpufabric:capacity.reservations": shares,
    }


def test_planned_ids_are_the_configs_targets():
    cfg: Any = SimpleNamespace(capacity=SimpleNamespace(target_ids=lambda: ["cr-1", "cr-2"]))
    assert aws.planned_ids(cfg) == ["cr-1", "cr-2"]
