"""GCP nodes under the recording mocks, past what the two stacks' golden plans show: a node
service account, several reservations, split compact policies, one node."""

from __future__ import annotations

from tests.pulumi.plans import plan_for
from tests.unit.test_cluster_wiring import check_tree, planned

from gpufabric.plan import Plan, PlannedResource

MEGA, ULTRA = "gcp-a3-mega", "gcp-a3-ultra"
INSTANCE = "gcp:compute/instance:Instance"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
SA = "nodes@my-gpu-project.iam.gserviceaccount.com"
CLOUD_PLATFORM = ["https://www.googleapis.com/auth/cloud-platform"]
COMPACT = "compact placement: these nodes on one low-latency network"
# 3 nodes on res-a, then 1 on res-b
SHARES = (
    'gpufabric:capacity={"type": "reservation", "reservations": '
    '[{"id": "res-a", "nodes": 3}, {"id": "res-b", "nodes": 1}]}'
)
INSTANCES = ("gpufabric:nodeGroup=instances", "gpufabric:gcp.maxTopologyDistance=null")


def one(plan: Plan, token: str) -> PlannedResource:
    found = plan.of_type(token)
    assert len(found) == 1, f"expected one {token}, got {[r.name for r in found]}"
    return found[0]


def nodes(plan: Plan) -> list[PlannedResource]:
    return sorted(plan.of_type(INSTANCE), key=lambda r: r.name)


def reserved(node: PlannedResource) -> list[str]:
    affinity = node.inputs["reservationAffinity"]
    assert affinity["type"] == "SPECIFIC_RESERVATION"
    assert affinity["specificReservation"]["key"] == "compute.googleapis.com/reservation-name"
    return affinity["specificReservation"]["values"]


def test_the_node_service_account_reaches_the_template_with_the_cloud_platform_scope() -> None:
    plan = plan_for(ULTRA, f"gpufabric:gcp.serviceAccount={SA}")
    assert one(plan, TEMPLATE).inputs["serviceAccount"] == {"email": SA, "scopes": CLOUD_PLATFORM}
    assert "serviceAccount" not in one(plan_for(ULTRA), TEMPLATE).inputs


def test_the_node_service_account_reaches_every_instance_with_the_cloud_platform_scope() -> None:
    plan = plan_for(MEGA, f"gpufabric:gcp.serviceAccount={SA}")
    accounts = [node.inputs["serviceAccount"] for node in nodes(plan)]
    assert accounts == [{"email": SA, "scopes": CLOUD_PLATFORM}] * 16
    assert all("serviceAccount" not in node.inputs for node in nodes(plan_for(MEGA)))


def test_an_on_demand_group_template_names_no_reservation() -> None:
    plan = plan_for(ULTRA, 'gpufabric:capacity={"type": "on-demand"}')
    template = one(plan, TEMPLATE)
    assert "reservationAffinity" not in template.inputs
    assert template.inputs["scheduling"]["provisioningModel"] == "STANDARD"
    reserved_template = one(plan_for(ULTRA), TEMPLATE)
    assert reserved_template.inputs["reservationAffinity"]["specificReservation"]["values"] == [
        "a3u-reservation"
    ]


def test_several_plain_reservations_put_each_node_on_its_share_in_node_order() -> None:
    plan = plan_for(MEGA, SHARES, "gpufabric:nodes=4", "gpufabric:gcp.maxDistance=null")
    placed = nodes(plan)
    assert [node.name for node in placed] == [f"{MEGA}-node-000{i}" for i in range(4)]
    assert [reserved(node) for node in placed] == [["res-a"]] * 3 + [["res-b"]]
    assert {node.inputs["scheduling"]["provisioningModel"] for node in placed} == {"STANDARD"}
    # plain reservations are placed by their own policies: none of ours, none attached
    assert plan.of_type(POLICY) == []
    assert all("resourcePolicies" not in node.inputs for node in placed)
    assert plan.outputs["network"]["placementPolicy"]["source"] == "reservation"


def test_several_dense_reservations_keep_every_node_reservation_bound_on_its_share() -> None:
    plan = plan_for(ULTRA, SHARES, "gpufabric:nodes=4", *INSTANCES)
    placed = nodes(plan)
    assert [reserved(node) for node in placed] == [["res-a"]] * 3 + [["res-b"]]
    models = {node.inputs["scheduling"]["provisioningModel"] for node in placed}
    assert models == {"RESERVATION_BOUND"}
    policy = one(plan, POLICY)
    assert policy.inputs["groupPlacementPolicy"]["vmCount"] == 4
    assert {node.inputs["resourcePolicies"] for node in placed} == {policy.id}
    assert plan.outputs["network"]["placementPolicy"]["source"] == "new-policies"


def test_split_compact_policies_say_which_part_of_how_many_each_is() -> None:
    plan = plan_for(MEGA, "gpufabric:nodes=300")
    descriptions = {p.name: p.inputs["description"] for p in plan.of_type(POLICY)}
    assert descriptions == {
        f"{MEGA}-placement-0": f"{COMPACT} (part 1 of 2)",
        f"{MEGA}-placement-1": f"{COMPACT} (part 2 of 2)",
    }
    assert one(plan_for(MEGA), POLICY).inputs["description"] == COMPACT


def test_one_node_on_a_plain_reservation_is_the_whole_node_group() -> None:
    plan = plan_for(
        MEGA,
        'gpufabric:capacity={"type": "reservation", "reservationId": "a3m-res"}',
        "gpufabric:nodes=1",
        "gpufabric:gcp.maxDistance=null",
    )
    (node,) = nodes(plan)
    assert reserved(node) == ["a3m-res"]
    assert plan.of_type(POLICY) == []
    (group,) = plan.outputs["nodes"]["groups"]
    assert group == {
        "count": 1,
        "kind": "instances",
        "members": [f"{MEGA}-node-0000"],
        "name": f"{MEGA}-node",
    }


def test_the_boot_bundle_sits_under_the_cluster_and_carries_the_stacks_labels() -> None:
    plan, tree = planned(MEGA, "gpufabric:boot.enabled=true", f"gpufabric:gcp.serviceAccount={SA}")
    check_tree(plan, tree, "gcp")
    bucket = one(plan, "gcp:storage/bucket:Bucket")
    labels = dict(nodes(plan)[0].inputs["labels"])
    assert labels.pop("gpufabric-role") == "gpu-node"
    assert labels and bucket.inputs["labels"] == labels
