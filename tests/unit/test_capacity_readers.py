"""Each cloud's capacity reader: real field names, request shapes, health, large cases.

Inputs are constructed (tests/unit/capacity_shapes.py), in the shapes the clouds' SDKs define.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from tests.unit import capacity_shapes as shapes

from gpufabric.capacity.choose import choose
from gpufabric.capacity.model import Capacity
from gpufabric.capacity.synthetic import synthetic_units
from gpufabric.clouds.aws import capacity as aws
from gpufabric.clouds.gcp import capacity as gcp
from gpufabric.clouds.oci import capacity as oci
from gpufabric.errors import UserError
from gpufabric.topology.score import min_leaves


def healthy_bound(cap: Capacity, nodes: int) -> int:
    per_group: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for u in cap.units:
        if u.healthy and u.free:
            per_group[u.group][u.leaf] += u.free
    return min(
        min_leaves(list(leaves.values()), nodes)
        for leaves in per_group.values()
        if sum(leaves.values()) >= nodes
    )


def meets_bound_share(read, leaf_size: int, per_leaf: int, groups: int) -> float:
    """Share of 30 synthetic cases (1,000-4,000 hosts) where the choice on what the reader
    read meets the bound; asserts no unhealthy unit is ever taken."""
    met = 0
    for seed in range(30):
        hosts = 1000 + seed * 100
        synth = synthetic_units(hosts, leaf_size, per_leaf, groups, unhealthy=0.08, seed=seed)
        cap = read(synth)
        assert len(cap.units) == len(synth.units)
        assert sum(u.healthy for u in cap.units) == sum(u.healthy for u in synth.units)
        most = max(
            sum(u.free for u in cap.usable() if u.group == g) for g in {u.group for u in cap.units}
        )
        nodes = max(1, most * (seed % 9 + 1) // 10)
        choice = choose(cap, nodes)
        assert all(u.healthy for u in choice.units)
        assert sum(choice.counts) == nodes
        met += choice.leaves == healthy_bound(cap, nodes)
    return met / 30


# -- AWS -------------------------------------------------------------------------------------


def botocore_members(shape: str) -> set[str]:
    import botocore.session

    model = botocore.session.get_session().get_service_model("ec2")
    return set(model.shape_for(shape).members)


def test_aws_constructed_output_uses_botocore_field_names():
    docs = dict(shapes.aws_docs(synthetic_units(200, 16, 3, seed=1)))
    reservation = botocore_members("CapacityReservation")
    topology = botocore_members("CapacityReservationTopology")
    status = botocore_members("CapacityBlockStatus")
    assert all(set(r) <= reservation for r in docs["reservations.json"]["CapacityReservations"])
    assert all(set(t) <= topology for t in docs["topology.json"]["CapacityReservations"])
    assert all(set(s) <= status for s in docs["status.json"]["CapacityBlockStatuses"])


def _res(rid: str, free: int, **kw: Any) -> dict[str, Any]:
    return {
        "CapacityReservationId": rid,
        "InstanceType": kw.pop("InstanceType", shapes.ITYPE),
        "AvailabilityZone": kw.pop("AvailabilityZone", shapes.ZONE),
        "AvailableInstanceCount": free,
        "TotalInstanceCount": free + 1,
        "State": kw.pop("State", "active"),
        "ReservationType": kw.pop("ReservationType", "default"),
        **kw,
    }


def _topo(rid: str, *nodes: str) -> dict[str, Any]:
    return {"CapacityReservationId": rid, "State": "active", "NetworkNodes": list(nodes)}


def test_aws_units_health_and_filters():
    docs = [
        (
            "r.json",
            {
                "CapacityReservations": [
                    _res("cr-1", 4),
                    _res("cr-2", 8, State="pending"),
                    _res("cr-3", 8, ReservationType="capacity-block", CapacityBlockId="cb-3"),
                    _res("cr-4", 8, InstanceType="p4d.24xlarge"),
                    _res("cr-5", 8, AvailabilityZone="us-east-1b"),
                    _res("cr-6", 2),
                ]
            },
        ),
        (
            "t.json",
            {
                "CapacityReservations": [
                    _topo("cr-1", "nn-a", "nn-b", "nn-leaf1"),
                    _topo("cr-2", "nn-a", "nn-b", "nn-leaf2"),
                    _topo("cr-3", "nn-a", "nn-b", "nn-leaf3"),
                ]
            },
        ),
        (
            "s.json",
            {
                "CapacityBlockStatuses": [
                    {"CapacityBlockId": "cb-3", "InterconnectStatus": "impaired"}
                ]
            },
        ),
    ]
    cap = aws.capacity(docs, shapes.ITYPE, shapes.ZONE, "files")
    units = {u.id: u for u in cap.units}
    assert set(units) == {"cr-1", "cr-2", "cr-3", "cr-6"}
    assert units["cr-1"].leaf == "nn-leaf1" and units["cr-1"].healthy
    assert units["cr-2"].note == "state pending"
    assert units["cr-3"].note == "capacity block cb-3 interconnect impaired"
    assert units["cr-3"].group == "capacity-block"
    assert units["cr-6"].note.startswith("no network position")
    with pytest.raises(UserError, match="4 free hosts on 1 healthy reservations; 3 unhealthy"):
        choose(cap, 5)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "not the output of aws ec2 describe-capacity-reservations"),
        ({"CapacityReservations": [_res("cr-1", -1)]}, "'AvailableInstanceCount' is not a count"),
        (
            {
                "CapacityReservations": [
                    _res("cr-1", 1),
                    {"CapacityReservationId": "cr-1", "NetworkNodes": "x"},
                ]
            },
            "'NetworkNodes' is not a list of strings",
        ),
        (
            {"CapacityReservations": [_res("cr-1", 1, ReservationType="x")]},
            "unknown 'ReservationType'",
        ),
        ({"CapacityReservations": "x"}, "'CapacityReservations' is not a list of objects"),
        ({"CapacityReservations": []}, "no capacity reservations"),
    ],
)
def test_aws_bad_documents_are_one_line(doc: Any, message: str):
    with pytest.raises(UserError, match=message):
        aws.capacity([("f.json", doc)], shapes.ITYPE, shapes.ZONE, "f.json")


def test_aws_live_requests_match_the_ec2_model():
    """Stubber checks every request's parameters and every response against botocore's model:
    topology asked for at most 10 ids at a time, pending ones included, block status asked."""
    import boto3
    from botocore.stub import Stubber

    client = boto3.client(
        "ec2", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    reservations = [_res(f"cr-{i:017x}", 2) for i in range(11)]
    reservations.append(_res("cr-0000000000000000b", 3, State="pending"))
    reservations.append(_res("cr-0000000000000000c", 3, State="expired"))
    reservations[0].update(ReservationType="capacity-block", CapacityBlockId="cb-0123")
    ids = [r["CapacityReservationId"] for r in reservations[:12]]
    filters = [
        {"Name": "instance-type", "Values": [shapes.ITYPE]},
        {"Name": "availability-zone", "Values": [shapes.ZONE]},
    ]
    with Stubber(client) as stub:
        stub.add_response(
            "describe_capacity_reservations",
            {"CapacityReservations": reservations},
            {"Filters": filters},
        )
        for chunk in (ids[:10], ids[10:]):
            stub.add_response(
                "describe_capacity_reservation_topology",
                {"CapacityReservations": [_topo(i, "nn-a", f"nn-{i}") for i in chunk]},
                {"CapacityReservationIds": chunk},
            )
        stub.add_response(
            "describe_capacity_block_status",
            {"CapacityBlockStatuses": [{"CapacityBlockId": "cb-0123", "InterconnectStatus": "ok"}]},
            {"CapacityBlockIds": ["cb-0123"]},
        )
        docs = aws.CapacityClient("us-east-1", client).read(shapes.ITYPE, shapes.ZONE)
        stub.assert_no_pending_responses()
    cap = aws.capacity(docs, shapes.ITYPE, shapes.ZONE, "live")
    assert len(cap.units) == 13
    assert sum(u.healthy for u in cap.units) == 11


def test_aws_live_error_is_one_line():
    import boto3
    from botocore.stub import Stubber

    client = boto3.client(
        "ec2", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(client) as stub:
        stub.add_client_error("describe_capacity_reservations", "UnauthorizedOperation", "denied")
        with pytest.raises(UserError, match="aws describe_capacity_reservations in us-east-1"):
            aws.CapacityClient("us-east-1", client).read(shapes.ITYPE, shapes.ZONE)


def test_aws_large_cases_meet_the_bound():
    def read(synth: Capacity) -> Capacity:
        return aws.capacity(shapes.aws_docs(synth), shapes.ITYPE, shapes.ZONE, "synthetic")

    assert meets_bound_share(read, 32, 4, 1) >= 0.99


# -- GCP -------------------------------------------------------------------------------------


def _block(name: str, count: int, used: int, **kw: Any) -> Any:
    from google.cloud import compute_v1

    link = (
        f"https://www.googleapis.com/compute/v1/projects/{shapes.GCP_PROJECT}/zones/"
        f"{kw.pop('zone', shapes.GCP_ZONE)}/reservations/res-a/reservationBlocks/{name}"
    )
    return compute_v1.ReservationBlock(
        name=name, count=count, in_use_count=used, self_link=link, status="READY", **kw
    )


def _json(message: Any) -> dict[str, Any]:
    import json

    return json.loads(type(message).to_json(message))


def test_gcp_blocks_and_sub_blocks():
    from google.cloud import compute_v1

    degraded = compute_v1.ReservationBlockHealthInfo(health_status="DEGRADED")
    blocks = [
        _json(_block("b1", 36, 30)),  # replaced by its sub-blocks below
        _json(
            _block(
                "b2",
                18,
                2,
                physical_topology=compute_v1.ReservationBlockPhysicalTopology(
                    cluster="c", block="x"
                ),
            )
        ),
        _json(_block("b3", 18, 0, health_info=degraded)),
        _json(_block("b4", 18, 0, zone="us-central1-a")),
    ]
    subs = [
        _json(
            shapes.gcp_sub_block(
                "res-a", "b1", "s1", count=18, in_use_count=10, in_use_host_count=9, status="READY"
            )
        ),
        _json(
            shapes.gcp_sub_block("res-a", "b1", "s2", count=18, in_use_count=0, status="CREATING")
        ),
    ]
    cap = gcp.capacity(
        [("blocks.json", blocks), ("subs.json", {"items": subs})], shapes.GCP_ZONE, "f"
    )
    units = {u.id.split("/reservations/")[1]: u for u in cap.units}
    assert set(units) == {
        "res-a/reservationBlocks/b1/reservationSubBlocks/s1",
        "res-a/reservationBlocks/b1/reservationSubBlocks/s2",
        "res-a/reservationBlocks/b2",
        "res-a/reservationBlocks/b3",
    }
    s1 = units["res-a/reservationBlocks/b1/reservationSubBlocks/s1"]
    assert s1.free == 9 and s1.healthy
    assert (
        s1.id
        == f"projects/{shapes.GCP_PROJECT}/reservations/res-a/reservationBlocks/b1/reservationSubBlocks/s1"
    )
    assert units["res-a/reservationBlocks/b1/reservationSubBlocks/s2"].note == "status CREATING"
    assert units["res-a/reservationBlocks/b2"].leaf == "c/x"
    assert units["res-a/reservationBlocks/b2"].free == 16
    assert units["res-a/reservationBlocks/b3"].note == "health DEGRADED"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"name": "x"}, "not the output of gcloud compute reservations blocks list"),
        ([{"name": "b1", "count": 2}], "'b1': 'selfLink' missing"),
        (
            [
                {
                    "name": "b1",
                    "selfLink": "https://x/projects/p/zones/z/reservations/r/reservationBlocks/b1",
                }
            ],
            "no reservation blocks or sub-blocks in zone",
        ),
    ],
)
def test_gcp_bad_documents_are_one_line(doc: Any, message: str):
    with pytest.raises(UserError, match=message):
        gcp.capacity([("f.json", doc)], shapes.GCP_ZONE, "f.json")


def test_gcp_count_must_be_a_count():
    doc = [_json(_block("b1", 2, 0))]
    doc[0]["count"] = "many"
    with pytest.raises(UserError, match="'count' is not a count"):
        gcp.capacity([("f.json", doc)], shapes.GCP_ZONE, "f.json")


class _Recorder:
    def __init__(self, answers: dict[str, list[Any]]) -> None:
        self.answers, self.requests = answers, []

    def list(self, request: Any) -> list[Any]:
        self.requests.append(request)
        key = (
            getattr(request, "parent_name", None) or getattr(request, "reservation", None) or "all"
        )
        return self.answers.get(key, [])


def test_gcp_live_requests_are_the_sdks_own_types():
    from google.cloud import compute_v1

    reservations = _Recorder(
        {
            "all": [
                compute_v1.Reservation(
                    name="res-a",
                    specific_reservation=compute_v1.AllocationSpecificSKUReservation(
                        instance_properties=compute_v1.AllocationSpecificSKUAllocationReservedInstanceProperties(
                            machine_type="a3-ultragpu-8g"
                        )
                    ),
                ),
                compute_v1.Reservation(
                    name="res-other",
                    specific_reservation=compute_v1.AllocationSpecificSKUReservation(
                        instance_properties=compute_v1.AllocationSpecificSKUAllocationReservedInstanceProperties(
                            machine_type="a3-megagpu-8g"
                        )
                    ),
                ),
            ]
        }
    )
    blocks = _Recorder({"res-a": [_block("b1", 18, 0)]})
    subs = _Recorder(
        {
            "reservations/res-a/reservationBlocks/b1": [
                shapes.gcp_sub_block("res-a", "b1", "s1", count=18, status="READY")
            ]
        }
    )
    client = gcp.CapacityClient(shapes.GCP_PROJECT, shapes.GCP_ZONE, (reservations, blocks, subs))
    docs = client.read("a3-ultragpu-8g")
    assert reservations.requests == [
        compute_v1.ListReservationsRequest(project=shapes.GCP_PROJECT, zone=shapes.GCP_ZONE)
    ]
    assert blocks.requests == [
        compute_v1.ListReservationBlocksRequest(
            project=shapes.GCP_PROJECT, zone=shapes.GCP_ZONE, reservation="res-a"
        )
    ]
    assert subs.requests == [
        compute_v1.ListReservationSubBlocksRequest(
            project=shapes.GCP_PROJECT,
            zone=shapes.GCP_ZONE,
            parent_name="reservations/res-a/reservationBlocks/b1",
        )
    ]
    cap = gcp.capacity(docs, shapes.GCP_ZONE, "live")
    assert [u.id.rsplit("/", 1)[-1] for u in cap.units] == ["s1"]


def test_gcp_large_cases_meet_the_bound():
    def read(synth: Capacity) -> Capacity:
        return gcp.capacity(shapes.gcp_docs(synth), shapes.GCP_ZONE, "synthetic")

    assert meets_bound_share(read, 18, 1, 1) >= 0.99


# -- OCI -------------------------------------------------------------------------------------


def _bm(
    i: int, block: str, details: str, instance: str | None = None, shape: str = shapes.OCI_SHAPE
) -> Any:
    from oci.core.models import ComputeBareMetalHostSummary

    return ComputeBareMetalHostSummary(
        id=f"ocid1.host.{i}",
        compute_hpc_island_id="ocid1.island.1",
        compute_network_block_id=block,
        compute_local_block_id="ocid1.local.1",
        instance_id=instance,
        instance_shape=shape,
        lifecycle_state="ACTIVE",
        lifecycle_details=details,
    )


def test_oci_bare_metal_hosts():
    doc = shapes.oci_cli(
        [
            _bm(1, "nb1", "AVAILABLE"),
            _bm(2, "nb1", "AVAILABLE"),
            _bm(3, "nb1", "AVAILABLE", instance="ocid1.instance.x"),
            _bm(4, "nb1", "UNAVAILABLE"),
            _bm(5, "nb2", "AVAILABLE"),
            _bm(6, "nb2", "DEGRADED"),
            _bm(7, "nb3", "AVAILABLE", shape="BM.GPU.A100-v2.8"),
        ]
    )
    assert "compute-network-block-id" in doc["data"]["items"][0]
    cap = oci.capacity([("hosts.json", doc)], shapes.OCI_SHAPE, "hosts.json")
    units = {u.id: u for u in cap.units}
    assert set(units) == {"nb1", "nb2"}
    assert (
        units["nb1"].free == 2 and units["nb1"].healthy and units["nb1"].group == "ocid1.island.1"
    )
    assert not units["nb2"].healthy and units["nb2"].note == "1 DEGRADED host(s)"


def test_oci_compute_hosts():
    from oci.core.models import ComputeHostSummary

    def host(i: int, state: str, health: str) -> Any:
        return ComputeHostSummary(
            id=f"ocid1.computehost.{i}",
            hpc_island_id="ocid1.island.1",
            network_block_id="nb1" if i < 3 else "nb2",
            local_block_id="lb",
            shape=shapes.OCI_SHAPE,
            health=health,
            lifecycle_state=state,
        )

    doc = shapes.oci_cli(
        [
            host(1, "AVAILABLE", "HEALTHY"),
            host(2, "OCCUPIED", "HEALTHY"),
            host(3, "AVAILABLE", "UNHEALTHY"),
        ]
    )
    cap = oci.capacity([("hosts.json", doc)], shapes.OCI_SHAPE, "hosts.json")
    units = {u.id: u for u in cap.units}
    assert units["nb1"].free == 1 and units["nb1"].healthy
    assert units["nb2"].note == "1 UNHEALTHY host(s)"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"data": "x"}, "not the output of oci compute capacity-topology"),
        ({"data": {"items": [{"id": "h1"}]}}, "h1: no HPC island or network block id"),
        ({"items": []}, "no BM.GPU.H100.8 hosts"),
    ],
)
def test_oci_bad_documents_are_one_line(doc: Any, message: str):
    with pytest.raises(UserError, match=message):
        oci.capacity([("f.json", doc)], shapes.OCI_SHAPE, "f.json")


def test_oci_large_cases_meet_the_bound_inside_one_island():
    def read(synth: Capacity) -> Capacity:
        cap = oci.capacity(shapes.oci_docs(synth), shapes.OCI_SHAPE, "synthetic")
        assert {u.group for u in cap.units} == {
            f"ocid1.island.{g}" for g in {u.group for u in synth.units}
        }
        return cap

    assert meets_bound_share(read, 64, 1, 4) >= 0.99
