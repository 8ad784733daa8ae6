"""OCI's capacity reader at its edges: the document shapes it takes (CLI and REST, bare-metal
hosts and compute hosts, every spelling of each field) and each refusal word for word, which
hosts count as free and which spoil their network block, the units exactly, where `capacity
check` finds a node's host, the stack settings a choice becomes and the ids it compares."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gpufabric.capacity.model import Choice, Unit
from gpufabric.clouds.oci import capacity as oci
from gpufabric.errors import UserError

SHAPE = "BM.GPU.H100.8"
NOT_OCI = (
    "not the output of oci compute capacity-topology bare-metal-host list "
    "or oci compute compute-host list"
)
# each field's spellings, in the four listings: bare-metal hosts (REST, CLI), compute hosts
# (REST, CLI)
SPELLINGS = {
    "bare-metal REST": {
        "island": "computeHpcIslandId",
        "block": "computeNetworkBlockId",
        "local": "computeLocalBlockId",
        "instance": "instanceId",
        "shape": "instanceShape",
        "state": "lifecycleState",
        "details": "lifecycleDetails",
    },
    "bare-metal CLI": {
        "island": "compute-hpc-island-id",
        "block": "compute-network-block-id",
        "local": "compute-local-block-id",
        "instance": "instance-id",
        "shape": "instance-shape",
        "state": "lifecycle-state",
        "details": "lifecycle-details",
    },
    "compute host REST": {
        "island": "hpcIslandId",
        "block": "networkBlockId",
        "local": "localBlockId",
        "instance": "instanceId",
        "shape": "shape",
        "state": "lifecycleState",
    },
    "compute host CLI": {
        "island": "hpc-island-id",
        "block": "network-block-id",
        "local": "local-block-id",
        "instance": "instance-id",
        "shape": "shape",
        "state": "lifecycle-state",
    },
}


def bm(block: str, details: str = "AVAILABLE", island: str = "is1", **fields: Any) -> dict:
    """A bare-metal host as the CLI prints it."""
    return {
        "id": fields.pop("id", f"host-{block}"),
        "compute-hpc-island-id": island,
        "compute-network-block-id": block,
        "compute-local-block-id": f"lb-{block}",
        "instance-id": fields.pop("instance", None),
        "instance-shape": fields.pop("shape", SHAPE),
        "lifecycle-state": fields.pop("state", "ACTIVE"),
        "lifecycle-details": details,
        **fields,
    }


def cli(*items: Any) -> dict[str, Any]:
    return {"data": {"items": list(items)}}


def read(*docs: Any) -> Any:
    return oci.capacity([(f"f{i}.json", d) for i, d in enumerate(docs)], SHAPE, "saved")


def refusal(*docs: Any) -> str:
    with pytest.raises(UserError) as err:
        read(*docs)
    return str(err.value)


@pytest.mark.parametrize(
    "doc",
    [
        cli(bm("nb1")),
        {"data": [bm("nb1")]},
        {"items": [bm("nb1")]},
        [bm("nb1")],
    ],
)
def test_each_listing_shape_is_read(doc: Any):
    assert read(doc).units == (Unit("nb1", "nb1", 1, True, "is1", ""),)


@pytest.mark.parametrize(
    "doc",
    [
        {"data": "x"},
        {"data": {"items": "x"}},
        {"data": {"items": [1]}},
        {"items": {"a": 1}},
        {"data": None},
        {},
        "hosts",
        [bm("nb1"), "nb2"],
        {"DATA": {"items": [bm("nb1")]}},
        {"data": {"ITEMS": [bm("nb1")]}},
    ],
)
def test_not_a_host_listing_is_one_line(doc: Any):
    assert refusal(cli(bm("nb0")), doc) == f"f1.json: {NOT_OCI}"


@pytest.mark.parametrize("listing", sorted(SPELLINGS))
def test_every_spelling_of_every_field(listing: str):
    keys = SPELLINGS[listing]
    compute_host = "details" not in keys

    def host(i: int, block: str, instance: str | None = None, **state: str) -> dict[str, Any]:
        item = {
            "id": f"h{i}",
            keys["island"]: "is1",
            keys["block"]: block,
            keys["local"]: f"lb{i}",
            keys["instance"]: instance,
            keys["shape"]: SHAPE,
        }
        if compute_host:
            item["health"] = state.get("health", "HEALTHY")
            item[keys["state"]] = state.get("state", "AVAILABLE")
        else:
            item[keys["state"]] = state.get("state", "ACTIVE")
            item[keys["details"]] = state.get("details", "AVAILABLE")
        return item

    bad = {"health": "UNHEALTHY"} if compute_host else {"details": "DEGRADED"}
    busy = {"state": "OCCUPIED"} if compute_host else {"details": "UNAVAILABLE"}
    hosts = [host(1, "nb1"), host(2, "nb1"), host(3, "nb1", **busy), host(4, "nb2", **bad)]
    hosts += [host(5, "nb1", "inst-5"), {**host(6, "nb3"), keys["shape"]: "BM.GPU.A100-v2.8"}]
    word = "UNHEALTHY" if compute_host else "DEGRADED"
    assert read(hosts).units == (
        Unit("nb1", "nb1", 2, True, "is1", ""),
        Unit("nb2", "nb2", 0, False, "is1", f"1 {word} host(s)"),
    )
    assert oci.positions([("f.json", hosts)]) == {"inst-5": ("is1", "nb1", "lb5")}


@pytest.mark.parametrize(
    ("fields", "who"),
    [
        ({"compute-hpc-island-id": None}, "h1"),
        ({"compute-hpc-island-id": ""}, "h1"),
        ({"compute-hpc-island-id": 7}, "h1"),
        ({"compute-network-block-id": None}, "h1"),
        ({"compute-network-block-id": ""}, "h1"),
        ({"compute-network-block-id": ["nb1"]}, "h1"),
        ({"compute-network-block-id": None, "id": None}, "a host"),
        ({"compute-hpc-island-id": "", "id": ""}, "a host"),
    ],
)
def test_a_host_without_its_island_or_block_is_one_line(fields: dict[str, Any], who: str):
    item = {**bm("nb1", id="h1"), **fields}
    assert refusal(cli(bm("nb0")), cli(item)) == (
        f"f1.json: {who}: no HPC island or network block id"
    )


def test_a_block_in_two_islands_is_one_line():
    assert refusal(cli(bm("nb1")), cli(bm("nb1", island="is2"))) == (
        "f1.json: network block nb1 is in two HPC islands"
    )


def test_no_host_of_the_shape_is_one_line():
    assert refusal(cli(bm("nb1", shape="BM.GPU.A100-v2.8"))) == f"saved: no {SHAPE} hosts"
    assert refusal(cli()) == f"saved: no {SHAPE} hosts"


def test_hosts_of_another_shape_are_skipped_and_a_host_without_a_shape_counts():
    cap = read(
        cli(
            bm("nb1", shape="BM.GPU.A100-v2.8"),
            bm("nb1", island="is9", shape="BM.GPU.A100-v2.8"),  # not judged either
            bm("nb2", shape=None),
            bm("nb3"),
        )
    )
    assert cap.units == (
        Unit("nb2", "nb2", 1, True, "is1", ""),
        Unit("nb3", "nb3", 1, True, "is1", ""),
    )
    assert (cap.source, cap.unit_kind, cap.leaf_kind) == ("saved", "network block", "network block")


@pytest.mark.parametrize(
    ("state", "free", "bad"),
    [
        # compute hosts: health (when given) and lifecycle state
        ({"health": "HEALTHY", "lifecycle-state": "AVAILABLE"}, 1, ""),
        ({"health": "HEALTHY", "lifecycle-state": "OCCUPIED"}, 0, ""),
        ({"health": "UNHEALTHY", "lifecycle-state": "AVAILABLE"}, 0, "UNHEALTHY"),
        ({"health": None, "lifecycle-state": "AVAILABLE"}, 1, ""),
        ({"health": "HEALTHY", "lifecycle-state": "ACTIVE", "lifecycle-details": "AVAILABLE"}, 0, ""),
        ({"lifecycle-state": "AVAILABLE"}, 1, ""),
        ({"lifecycle-state": "OCCUPIED"}, 0, ""),
        ({"lifecycle-state": "OCCUPIED", "lifecycle-details": "DEGRADED"}, 0, ""),
        ({"lifecycle-state": "REPAIR", "lifecycle-details": "DEGRADED"}, 0, ""),
        ({"lifecycle-state": "AVAILABLE", "lifecycle-details": "DEGRADED"}, 1, ""),
        # bare-metal hosts: lifecycle state and details
        ({"lifecycle-state": "ACTIVE", "lifecycle-details": "AVAILABLE"}, 1, ""),
        ({"lifecycle-state": "ACTIVE", "lifecycle-details": "UNAVAILABLE"}, 0, ""),
        ({"lifecycle-state": "INACTIVE", "lifecycle-details": "AVAILABLE"}, 0, ""),
        ({"lifecycle-state": "ACTIVE", "lifecycle-details": "DEGRADED"}, 0, "DEGRADED"),
        ({"lifecycle-state": "INACTIVE", "lifecycle-details": "DEGRADED"}, 0, "DEGRADED"),
        ({"lifecycle-state": "ACTIVE"}, 0, ""),
        ({}, 0, ""),
    ],
)  # fmt: skip
def test_which_host_is_free_and_which_spoils_its_block(state: dict[str, Any], free: int, bad: str):
    item = {
        "compute-hpc-island-id": "is1",
        "compute-network-block-id": "nb1",
        "shape": SHAPE,
        **state,
    }
    (unit,) = read(cli(item)).units
    assert (unit.free, unit.healthy, unit.note) == (
        free,
        not bad,
        f"1 {bad} host(s)" if bad else "",
    )


def test_a_blocks_free_hosts_and_bad_hosts_are_counted():
    cap = read(
        cli(
            bm("nb2"),
            bm("nb2"),
            bm("nb2", instance="inst-1"),
            bm("nb2", state="INACTIVE"),
            bm("nb1", "DEGRADED"),
            bm("nb1"),
            bm("nb1", "DEGRADED", instance="inst-2"),
            bm("nb3", "UNAVAILABLE"),
        ),
        cli(bm("nb2", island="is1")),
    )
    assert cap.units == (
        Unit("nb1", "nb1", 1, False, "is1", "2 DEGRADED host(s)"),
        Unit("nb2", "nb2", 3, True, "is1", ""),
        Unit("nb3", "nb3", 0, True, "is1", ""),
    )


def test_positions_are_the_hosts_running_an_instance_with_their_whole_path():
    hosts = [
        bm("nb1", instance="inst-1"),
        bm("nb2", island="is2", instance="inst-2", shape="BM.GPU.A100-v2.8"),
        bm("nb3"),  # no instance
        bm("nb4", instance=""),
        {**bm("nb5", instance="inst-5"), "compute-local-block-id": None},
        {**bm("nb6", instance="inst-6"), "compute-local-block-id": ""},
        {**bm("nb7", instance="inst-7"), "compute-hpc-island-id": 7},
        {**bm("nb8", instance=8)},
    ]
    assert oci.positions([("a.json", cli(*hosts[:4])), ("b.json", hosts[4:])]) == {
        "inst-1": ("is1", "nb1", "lb-nb1"),
        "inst-2": ("is2", "nb2", "lb-nb2"),
    }
    with pytest.raises(UserError) as err:
        oci.positions([("a.json", {"data": "x"})])
    assert str(err.value) == f"a.json: {NOT_OCI}"


# -- what `gpufabric capacity` calls -----------------------------------------------------------


def test_the_interface_capacity_calls(monkeypatch: pytest.MonkeyPatch):
    cfg: Any = SimpleNamespace(
        region="us-ashburn-1",
        zone="Uocm:US-ASHBURN-AD-1",
        instance_type=SHAPE,
        oci=SimpleNamespace(compartment_id="ocid1.compartment.oc1..c"),
    )
    cap = oci.capacity_for(cfg, [("f.json", cli(bm("nb1")))], "files")
    assert cap.units == (Unit("nb1", "nb1", 1, True, "is1", ""),) and cap.source == "files"

    made: list[str] = []

    class Client:
        def __init__(self, region: str) -> None:
            made.append(region)

        def read(self, compartment: str, zone: str) -> list[tuple[str, Any]]:
            return [("live", (compartment, zone))]

    monkeypatch.setattr(oci, "CapacityClient", Client)
    assert oci.read_live(cfg) == [("live", ("ocid1.compartment.oc1..c", "Uocm:US-ASHBURN-AD-1"))]
    assert made == ["us-ashburn-1"]


def test_a_choice_is_its_island_and_network_blocks():
    units = (Unit("nb1", "nb1", 4, group="is1"), Unit("nb2", "nb2", 2, group="is1"))
    choice = Choice(6, "is1", units, (4, 2), 2, 2, 0)
    assert oci.settings(choice, SimpleNamespace(), {}) == {  # type: ignore[arg-type]
        "gpufabric:oci.hpcIslandId": "is1",
        "gpufabric:oci.networkBlockIds": ["nb1", "nb2"],
    }


def test_planned_ids_are_the_configs_network_blocks():
    def cfg(ids: Any) -> Any:
        return SimpleNamespace(oci=SimpleNamespace(network_block_ids=ids))

    assert oci.planned_ids(cfg(("nb1", "nb2"))) == ["nb1", "nb2"]
    assert oci.planned_ids(cfg(None)) == []
