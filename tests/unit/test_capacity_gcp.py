"""GCP's capacity reader at its edges: each refusal word for word, the counts it takes (and the
ones it refuses), where a block or sub-block sits, which ones are left out and why, the stack
settings a choice becomes, and the ids `capacity check` compares. Documents are constructed in
`gcloud ... --format=json` spelling (the API's `to_json` field names)."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.capacity.model import Choice, Unit
from gpufabric.clouds.gcp import capacity as gcp
from gpufabric.errors import UserError

ZONE = "europe-west1-b"
BASE = f"https://www.googleapis.com/compute/v1/projects/p1/zones/{ZONE}/reservations/r1"
PATH = "projects/p1/reservations/r1/reservationBlocks"


def block(name: str, count: Any = 18, **fields: Any) -> dict[str, Any]:
    doc = {"name": name, "count": count, "status": "READY"}
    doc["selfLink"] = fields.pop("link", f"{BASE}/reservationBlocks/{name}")
    return {**doc, **fields}


def sub(blk: str, name: str, count: Any = 18, **fields: Any) -> dict[str, Any]:
    link = f"{BASE}/reservationBlocks/{blk}/reservationSubBlocks/{name}"
    return block(name, count, link=link, **fields)


def read(*docs: Any) -> Any:
    return gcp.capacity([(f"f{i}.json", d) for i, d in enumerate(docs)], ZONE, "saved")


def refusal(*docs: Any) -> str:
    with pytest.raises(UserError) as err:
        read(*docs)
    return str(err.value)


@pytest.mark.parametrize(
    "doc", [{"name": "x"}, "blocks", "the items", [block("b1"), "b2"], {"items": {}}, {"Items": []}]
)
def test_not_a_listing_is_one_line(doc: Any):
    assert refusal(doc) == (
        "f0.json: not the output of gcloud compute reservations blocks list or sub-blocks list "
        "--format=json (a list of objects)"
    )


def test_the_rest_body_is_read_like_the_cli_listing():
    assert [u.id for u in read({"items": [block("b1")]}).units] == [f"{PATH}/b1"]


@pytest.mark.parametrize(
    ("item", "name"),
    [
        ({"name": "b1", "count": 2}, "'b1'"),
        ({"count": 2}, "'a block'"),
        ({"name": "b1", "selfLink": 7}, "'b1'"),
        ({"name": "b1", "selfLink": f"{BASE}/reservationBlocks/b1/extra"}, "'b1'"),
        ({"name": "b1", "selfLink": f"{BASE}/reservationBlocks/b1/reservationSubBlocks/"}, "'b1'"),
    ],
)
def test_a_missing_or_foreign_self_link_is_one_line(item: dict[str, Any], name: str):
    assert refusal([item]) == (
        f"f0.json: {name}: 'selfLink' missing or not a reservation block or sub-block link"
    )


def test_nothing_in_the_stacks_zone_is_one_line():
    other = block("b1", link=f"{BASE.replace(ZONE, 'us-central1-a')}/reservationBlocks/b1")
    assert refusal([other]) == f"saved: no reservation blocks or sub-blocks in zone {ZONE}"
    assert refusal([]) == f"saved: no reservation blocks or sub-blocks in zone {ZONE}"


def test_another_zones_blocks_are_skipped_and_the_rest_read():
    elsewhere = f"{BASE.replace(ZONE, 'us-central1-a')}/reservationBlocks"
    cap = read(
        [block("b1", link=f"{elsewhere}/b1"), block("b2")],
        [block("s1", link=f"{elsewhere}/b3/reservationSubBlocks/s1"), sub("b3", "s2")],
    )
    assert [u.id.removeprefix(PATH + "/") for u in cap.units] == [
        "b2",
        "b3/reservationSubBlocks/s2",
    ]


def test_a_block_listed_twice_is_refused_as_a_sub_block_is():
    """Two listings of one block would keep one silently (its free hosts may differ)."""
    assert refusal([block("b1"), block("b2")], [block("b1", 4)]) == (
        f"f1.json: {PATH}/b1: the block is listed twice"
    )
    assert refusal([sub("b1", "s1"), sub("b1", "s1")]) == (
        f"saved: sub-block {PATH}/b1/reservationSubBlocks/s1 appears twice"
    )


@pytest.mark.parametrize("count", ["many", "-1", "1.5", "²", "", True, -1, 1.0, [1], {"n": 1}])
def test_a_count_that_is_not_a_count_is_one_line(count: Any):
    """int64 fields may print as decimal strings; anything else is refused, not read as 0 (nor
    a traceback: "²".isdigit() holds)."""
    assert refusal([block("b1", count)]) == f"f0.json: {PATH}/b1: 'count' is not a count"
    for key in ("inUseHostCount", "inUseCount"):
        message = refusal([block("b1", 18, **{key: count})])
        assert message == f"f0.json: {PATH}/b1: '{key}' is not a count"


def test_a_missing_count_is_one_line():
    doc = block("b1")
    del doc["count"]
    assert refusal([doc]) == f"f0.json: {PATH}/b1: 'count' missing"
    assert refusal([block("b1", None)]) == f"f0.json: {PATH}/b1: 'count' missing"


@pytest.mark.parametrize(
    ("fields", "free"),
    [
        ({}, 18),
        ({"inUseCount": 5}, 13),
        ({"inUseCount": "5"}, 13),
        ({"inUseHostCount": 4, "inUseCount": 9}, 14),  # hosts in use, not VMs
        ({"inUseHostCount": 0, "inUseCount": 9}, 18),
        ({"inUseHostCount": None, "inUseCount": 9}, 9),
        ({"inUseCount": 18}, 0),
        ({"inUseCount": 20}, 0),
    ],
)
def test_free_hosts(fields: dict[str, Any], free: int):
    (unit,) = read([block("b1", "18", **fields)]).units
    assert unit.free == free


def test_leaf_is_the_physical_position_else_the_path():
    topo = {"cluster": "c1", "block": "pb1", "subBlock": "ps1"}
    cap = read(
        [
            block("b1", physicalTopology=topo),
            block("b2", physicalTopology={"cluster": "c1"}),
            block("b3", physicalTopology={"cluster": "c1", "block": ""}),
            block("b4", physicalTopology="c1/pb4"),
        ],
        [
            sub("b5", "s1", physicalTopology=topo),
            sub("b5", "s2", physicalTopology={"cluster": "c1", "block": "pb1"}),
            sub("b5", "s3", physicalTopology={"cluster": "c1", "block": "pb1", "subBlock": 3}),
        ],
    )
    assert {u.id.removeprefix(PATH + "/"): u.leaf for u in cap.units} == {
        "b1": "c1/pb1",
        "b2": f"{PATH}/b2",
        "b3": f"{PATH}/b3",
        "b4": f"{PATH}/b4",
        "b5/reservationSubBlocks/s1": "c1/pb1/ps1",
        "b5/reservationSubBlocks/s2": f"{PATH}/b5/reservationSubBlocks/s2",
        "b5/reservationSubBlocks/s3": f"{PATH}/b5/reservationSubBlocks/s3",
    }
    assert cap.unit_kind == cap.leaf_kind == "sub-block"
    blocks_only = read([block("b1")])
    assert blocks_only.unit_kind == blocks_only.leaf_kind == "block"
    assert blocks_only.source == "saved"


def test_a_blocks_sub_blocks_replace_it_and_units_come_in_path_order():
    cap = read(
        [block("b2"), block("b1"), block("b3")],
        [sub("b2", "s2"), sub("b2", "s1"), sub("b9", "s1")],
    )
    assert [u.id.removeprefix(PATH + "/") for u in cap.units] == [
        "b1",
        "b2/reservationSubBlocks/s2",
        "b2/reservationSubBlocks/s1",
        "b3",
        "b9/reservationSubBlocks/s1",
    ]


@pytest.mark.parametrize(
    ("fields", "note"),
    [
        ({"status": "CREATING"}, "status CREATING"),
        ({"status": None}, "status None"),
        ({"healthInfo": {"healthStatus": "DEGRADED"}}, "health DEGRADED"),
        ({"status": "DELETING", "healthInfo": {"healthStatus": "DEGRADED"}}, "status DELETING"),
        ({"healthInfo": {"healthStatus": "HEALTHY"}}, ""),
        ({"healthInfo": "DEGRADED"}, ""),
    ],
)
def test_what_is_left_out_and_why(fields: dict[str, Any], note: str):
    doc = block("b1")
    doc.update(fields)
    if fields.get("status", "") is None:
        del doc["status"]
    (unit,) = read([doc]).units
    assert unit.note == note and unit.healthy is (not note)


def _choice(*units: Unit) -> Choice:
    counts = tuple(u.free for u in units)
    return Choice(sum(counts), "", units, counts, len(units), len(units), 0)


def _cfg(node_group: str = "group") -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(node_group=node_group)


def test_one_block_is_a_specific_reservation_by_its_path():
    one = _choice(Unit(f"{PATH}/b1", "c/b1", 4))
    raw = {"gpufabric:gcp": {"maxTopologyDistance": "block"}}
    assert gcp.settings(one, _cfg(), raw) == {
        "gpufabric:capacity.type": "reservation",
        "gpufabric:capacity.reservationId": f"{PATH}/b1",
    }


def test_several_blocks_put_one_vm_per_node_and_drop_the_groups_workload_policy():
    two = _choice(Unit(f"{PATH}/b1", "c/b1", 4), Unit(f"{PATH}/b2", "c/b2", 2))
    shares = [{"id": f"{PATH}/b1", "nodes": 4}, {"id": f"{PATH}/b2", "nodes": 2}]
    raw = {"gpufabric:gcp": {"maxTopologyDistance": "block"}}
    assert gcp.settings(two, _cfg(), raw) == {
        "gpufabric:capacity.type": "reservation",
        "gpufabric:capacity.reservations": shares,
        "gpufabric:nodeGroup": "instances",
        "gpufabric:gcp.maxTopologyDistance": None,
    }
    assert gcp.settings(two, _cfg(), {}) == {
        "gpufabric:capacity.type": "reservation",
        "gpufabric:capacity.reservations": shares,
        "gpufabric:nodeGroup": "instances",
    }
    assert gcp.settings(two, _cfg("instances"), raw) == {
        "gpufabric:capacity.type": "reservation",
        "gpufabric:capacity.reservations": shares,
    }


def test_planned_ids_are_full_paths():
    from types import SimpleNamespace

    ids = [f"{PATH}/b1", "r2/reservationBlocks/b2", "r3"]
    cfg: Any = SimpleNamespace(
        capacity=SimpleNamespace(target_ids=lambda: ids), gcp=SimpleNamespace(project="p1")
    )
    assert gcp.planned_ids(cfg) == [
        f"{PATH}/b1",
        "projects/p1/reservations/r2/reservationBlocks/b2",
        "projects/p1/reservations/r3",
    ]


def test_the_interface_capacity_calls(monkeypatch: pytest.MonkeyPatch):
    from types import SimpleNamespace

    from gpufabric.clouds.gcp import faulty

    cfg: Any = SimpleNamespace(
        zone=ZONE, instance_type="a3-ultragpu-8g", gcp=SimpleNamespace(project="p1")
    )
    cap = gcp.capacity_for(cfg, [("f.json", [block("b1")])], "f.json")
    assert [u.id for u in cap.units] == [f"{PATH}/b1"] and cap.source == "f.json"

    made: list[tuple[Any, ...]] = []

    class Client:
        def __init__(self, project: str, zone: str) -> None:
            made.append((project, zone))

        def read(self, machine_type: str) -> list[tuple[str, Any]]:
            return [("live", machine_type)]

    monkeypatch.setattr(gcp, "CapacityClient", Client)
    assert gcp.read_live(cfg) == [("live", "a3-ultragpu-8g")]
    assert made == [("p1", ZONE)]

    monkeypatch.setattr(faulty, "fault_report", lambda cfg, **kw: ("report", cfg, kw))
    monkeypatch.setattr(faulty, "send", lambda report: f"sent {report}")
    assert gcp.fault_report(cfg, host="n1") == ("report", cfg, {"host": "n1"})
    assert gcp.send_fault_report("r") == "sent r"


def test_a_live_read_error_is_one_line():
    pytest.importorskip("google.cloud.compute_v1")
    from google.api_core.exceptions import PermissionDenied
    from google.auth.exceptions import DefaultCredentialsError

    class Refusing:
        def __init__(self, exc: Exception) -> None:
            self.exc = exc

        def list(self, request: Any) -> Any:
            raise self.exc

    for exc, line in [
        (PermissionDenied("reservations.list denied\nmore"), "403 reservations.list denied"),
        (DefaultCredentialsError("no credentials\nsee docs"), "no credentials"),
    ]:
        client = gcp.CapacityClient("p1", ZONE, (Refusing(exc), None, None))
        with pytest.raises(UserError) as err:
            client.read("a3-ultragpu-8g")
        assert str(err.value) == f"gcp reservations in p1/{ZONE}: {line}"


def test_a_missing_sdk_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch):
    from gpufabric import extras

    monkeypatch.setattr(extras, "find_spec", lambda name: None)
    with pytest.raises(UserError) as err:
        gcp.CapacityClient("p1", ZONE)
    assert str(err.value) == (
        "reading GCP reservation blocks needs the gcp extra (google.cloud.compute_v1 is not "
        "installed): pip install 'gpufabric[gcp]'"
    )


def test_without_clients_the_sdks_three_are_made(monkeypatch: pytest.MonkeyPatch):
    from types import SimpleNamespace

    from gpufabric.clouds.gcp import faulty

    fake = SimpleNamespace(
        ReservationsClient=lambda: "reservations",
        ReservationBlocksClient=lambda: "blocks",
        ReservationSubBlocksClient=lambda: "sub-blocks",
    )
    monkeypatch.setattr(faulty, "sdk", lambda: fake)
    client = gcp.CapacityClient("p1", ZONE)
    assert (client.project, client.zone) == ("p1", ZONE)
    assert (client.reservations, client.blocks, client.subs) == (
        "reservations",
        "blocks",
        "sub-blocks",
    )


def test_live_listings_are_named_in_what_they_refuse():
    """The live read hands back the blocks' and sub-blocks' listings as `to_json` spells them,
    each named for the refusal a bad one gets."""
    compute_v1 = pytest.importorskip("google.cloud.compute_v1")

    class Listing:
        def __init__(self, items: list[Any]) -> None:
            self.items = items

        def list(self, request: Any) -> list[Any]:
            return self.items

    machine = compute_v1.AllocationSpecificSKUAllocationReservedInstanceProperties(
        machine_type="a3-ultragpu-8g"
    )
    reservation = compute_v1.Reservation(
        name="r1",
        specific_reservation=compute_v1.AllocationSpecificSKUReservation(
            instance_properties=machine
        ),
    )
    blk = compute_v1.ReservationBlock(name="b1", self_link=f"{BASE}/reservationBlocks/b1")
    link = f"{BASE}/reservationBlocks/b1/reservationSubBlocks/s1"
    sub_block = compute_v1.ReservationSubBlock(name="s1", count=18, self_link=link)
    clients = (Listing([reservation]), Listing([blk]), Listing([sub_block]))
    docs = gcp.CapacityClient("p1", ZONE, clients).read("a3-ultragpu-8g")
    assert docs == [
        ("reservation blocks", [{"name": "b1", "selfLink": f"{BASE}/reservationBlocks/b1"}]),
        ("reservation sub-blocks", [{"name": "s1", "count": 18, "selfLink": link}]),
    ]
    with pytest.raises(UserError) as err:
        gcp.capacity([docs[0]], ZONE, "live")
    assert str(err.value) == f"reservation blocks: {PATH}/b1: 'count' missing"
    docs[1][1][0]["count"] = "many"
    with pytest.raises(UserError) as err:
        gcp.capacity(docs, ZONE, "live")
    assert str(err.value) == (
        f"reservation sub-blocks: {PATH}/b1/reservationSubBlocks/s1: 'count' is not a count"
    )
