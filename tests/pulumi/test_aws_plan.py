"""The AWS component under recording mocks: what `pulumi up -s aws-*` would send."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from tests.pulumi.plans import REPO, plan_for

from gpufabric.errors import UserError
from gpufabric.plan import Plan, PlannedResource, run_plan
from gpufabric.plan.mocks import RecordingMocks
from gpufabric.plan.summary import fabric_summary
from gpufabric.stack_outputs import EXPORTS, parse

LT = "aws:ec2/launchTemplate:LaunchTemplate"
SG = "aws:ec2/securityGroup:SecurityGroup"
INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
SUBNET = "aws:ec2/subnet:Subnet"
ASG = "aws:autoscaling/group:Group"
INSTANCE = "aws:ec2/instance:Instance"


def one(plan: Plan, token: str) -> PlannedResource:
    found = plan.of_type(token)
    assert len(found) == 1, f"expected one {token}, got {[r.name for r in found]}"
    return found[0]


def by_id(plan: Plan) -> dict[str, PlannedResource]:
    return {r.id: r for r in plan.resources}


def nics(plan: Plan) -> list[dict[str, Any]]:
    return one(plan, LT).inputs["networkInterfaces"]


def test_one_cluster_placement_group_used_by_the_launch_template() -> None:
    plan = plan_for("aws-h100")
    group = one(plan, "aws:ec2/placementGroup:PlacementGroup")
    assert group.inputs["strategy"] == "cluster"
    assert one(plan, LT).inputs["placement"]["groupName"] == group.name
    assert one(plan, ASG).inputs["placementGroup"] == group.name
    assert plan.outputs["network"]["placementGroup"] == {
        "name": group.name,
        "strategy": "cluster",
        "source": "new",
    }
    assert dict(fabric_summary(plan))["Placement"].startswith("new placement group aws-h100-pg")


@pytest.mark.parametrize(("stack", "cards"), [("aws-h100", 32), ("aws-h200", 16), ("aws-a100", 4)])
def test_efa_devices_cover_every_network_card_exactly_once(stack: str, cards: int) -> None:
    interfaces = nics(plan_for(stack))
    efa_cards = Counter(
        n["networkCardIndex"] for n in interfaces if n["interfaceType"] in ("efa", "efa-only")
    )
    assert sorted(efa_cards) == list(range(cards))
    assert set(efa_cards.values()) == {1}


def test_efa_primary_layout_puts_efa_with_ena_on_card_zero() -> None:
    interfaces = nics(plan_for("aws-h100", "gpufabric:aws.efaLayout=efa-primary"))
    primary = [n for n in interfaces if n["networkCardIndex"] == 0 and n["deviceIndex"] == 0]
    assert [p["interfaceType"] for p in primary] == ["efa"]
    others = [n for n in interfaces if n is not primary[0]]
    assert {n["interfaceType"] for n in others} == {"efa-only"}
    assert {n["deviceIndex"] for n in others} == {0}


@pytest.mark.parametrize("stack", ["aws-h100", "aws-h200"])
def test_ena_primary_is_the_default_layout(stack: str) -> None:
    plan = plan_for(stack)
    card0 = sorted(
        (n["deviceIndex"], n["interfaceType"]) for n in nics(plan) if n["networkCardIndex"] == 0
    )
    assert card0 == [(0, "interface"), (1, "efa-only")]
    others = [n for n in nics(plan) if n["networkCardIndex"] != 0]
    assert {(n["deviceIndex"], n["interfaceType"]) for n in others} == {(0, "efa-only")}


def test_efa_security_group_allows_all_traffic_from_and_to_itself_only() -> None:
    plan = plan_for("aws-h100")
    efa = next(g for g in plan.of_type(SG) if g.name.endswith("-efa"))
    rules = [
        r
        for r in plan.of_type(INGRESS) + plan.of_type(EGRESS)
        if r.inputs["securityGroupId"] == efa.id
    ]
    kinds = sorted(r.type for r in rules)
    assert kinds == [EGRESS, INGRESS]
    for rule in rules:
        assert rule.inputs["ipProtocol"] == "-1"
        assert rule.inputs["referencedSecurityGroupId"] == efa.id
        assert "cidrIpv4" not in rule.inputs
    # every EFA interface carries the EFA group
    assert all(efa.id in n["securityGroups"] for n in nics(plan))


def test_management_ssh_only_from_the_configured_cidr() -> None:
    plan = plan_for("aws-h100")
    ssh = [r for r in plan.of_type(INGRESS) if r.inputs.get("fromPort") == 22]
    assert [r.inputs["cidrIpv4"] for r in ssh] == ["10.0.65.0/24"]
    no_ssh = plan_for("aws-h100", "gpufabric:network.managementCidr=null")
    assert not [r for r in no_ssh.of_type(INGRESS) if r.inputs.get("fromPort") == 22]


def test_no_ingress_from_the_internet() -> None:
    plan = plan_for("aws-h100")
    assert not [r for r in plan.of_type(INGRESS) if r.inputs.get("cidrIpv4") == "0.0.0.0/0"]


def test_fsx_persistent_2_in_the_storage_subnet_of_the_nodes_zone() -> None:
    plan = plan_for("aws-h100")
    fsx = one(plan, FSX)
    assert fsx.inputs["deploymentType"] == "PERSISTENT_2"
    subnet = by_id(plan)[fsx.inputs["subnetIds"]]
    assert subnet.inputs["tags"]["gpufabric:partition"] == "storage"
    node_subnet = by_id(plan)[one(plan, ASG).inputs["vpcZoneIdentifiers"][0]]
    assert (
        subnet.inputs["availabilityZone"] == node_subnet.inputs["availabilityZone"] == "us-east-1a"
    )
    assert fsx.inputs["perUnitStorageThroughput"] == 1000
    assert fsx.inputs["metadataConfiguration"] == {"mode": "AUTOMATIC"}
    assert plan.outputs["storage"]["mountCommand"].startswith("mount -t lustre")


def test_efa_enabled_fsx_sits_with_its_clients_and_joins_the_efa_group() -> None:
    plan = plan_for(
        "aws-h100",
        "gpufabric:storage.efa=true",
        "gpufabric:storage.capacityGib=4800",
    )
    fsx = one(plan, FSX)
    assert fsx.inputs["efaEnabled"] is True
    subnet = by_id(plan)[fsx.inputs["subnetIds"]]
    assert subnet.inputs["tags"]["gpufabric:partition"] == "fabric"
    efa = next(g for g in plan.of_type(SG) if g.name.endswith("-efa"))
    assert efa.id in fsx.inputs["securityGroupIds"]
    storage = next(g for g in plan.of_type(SG) if g.name.endswith("-storage"))
    all_traffic = [r for r in plan.of_type(INGRESS) if r.inputs["securityGroupId"] == storage.id]
    assert {r.inputs["ipProtocol"] for r in all_traffic} == {"-1"}


def test_tcp_lustre_ports_between_nodes_and_file_system() -> None:
    plan = plan_for("aws-h100")
    storage = next(g for g in plan.of_type(SG) if g.name.endswith("-storage"))
    ports = sorted(
        (r.inputs["fromPort"], r.inputs["toPort"])
        for r in plan.of_type(INGRESS)
        if r.inputs["securityGroupId"] == storage.id
    )
    assert ports == [(988, 988), (988, 988), (1018, 1023), (1018, 1023)]


def test_s3_data_repository_association() -> None:
    plan = plan_for(
        "aws-h100",
        'gpufabric:storage.s3={"dataRepositoryPath": "s3://my-datasets/train", "fileSystemPath": "/datasets"}',
    )
    dra = one(plan, "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")
    assert dra.inputs["fileSystemId"] == one(plan, FSX).id
    assert dra.inputs["dataRepositoryPath"] == "s3://my-datasets/train"
    assert dra.inputs["s3"]["autoImportPolicy"]["events"] == ["NEW", "CHANGED", "DELETED"]


def test_launch_template_imdsv2_encrypted_root_ssm_profile_user_data() -> None:
    plan = plan_for(
        "aws-h100",
        "gpufabric:userData=#!/bin/bash\necho hi",
        "gpufabric:rootVolume.kmsKeyId=alias/gpu-root",
    )
    lt = one(plan, LT).inputs
    assert lt["metadataOptions"]["httpTokens"] == "required"
    ebs = lt["blockDeviceMappings"][0]["ebs"]
    assert ebs["encrypted"] == "true" and ebs["kmsKeyId"] == "alias/gpu-root"
    assert lt["iamInstanceProfile"]["arn"].startswith("arn:aws:iam")
    assert lt["userData"] == "IyEvYmluL2Jhc2gKZWNobyBoaQ=="
    attachment = one(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
    assert attachment.inputs["policyArn"].endswith("AmazonSSMManagedInstanceCore")


def test_no_public_ip_on_gpu_nodes() -> None:
    plan = plan_for("aws-h100")
    for nic in nics(plan):
        assert nic.get("associatePublicIpAddress") in (None, "false")
    for subnet in plan.of_type(SUBNET):
        assert subnet.inputs["mapPublicIpOnLaunch"] is False


def test_resource_count_is_independent_of_node_count() -> None:
    small = plan_for("aws-h100", "gpufabric:nodes=16")
    large = plan_for("aws-h100", "gpufabric:nodes=1024")
    assert len(small.resources) == len(large.resources)
    assert one(large, ASG).inputs["desiredCapacity"] == 1024
    assert one(large, ASG).inputs["minSize"] == one(large, ASG).inputs["maxSize"] == 1024


def test_instances_mode_creates_one_instance_per_node_in_the_fabric_subnet() -> None:
    plan = plan_for("aws-h100", "gpufabric:nodeGroup=instances", "gpufabric:nodes=3")
    assert len(plan.of_type(INSTANCE)) == 3
    assert not plan.of_type(ASG)
    fabric = next(s for s in plan.of_type(SUBNET) if s.name.endswith("-fabric"))
    assert {n["subnetId"] for n in nics(plan)} == {fabric.id}
    (group,) = plan.outputs["nodes"]["groups"]
    assert group["kind"] == "instances"
    assert group["members"] == [i.id for i in plan.of_type(INSTANCE)]


def test_capacity_block_sets_market_type_and_reservation() -> None:
    plan = plan_for(
        "aws-h100",
        'gpufabric:capacity={"type": "capacity-block", "reservationId": "cr-0123456789abcdef0"}',
    )
    lt = one(plan, LT).inputs
    assert lt["instanceMarketOptions"] == {"marketType": "capacity-block"}
    target = lt["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target["capacityReservationId"] == "cr-0123456789abcdef0"


RESERVED = 'gpufabric:capacity={"type": "reservation", "reservationId": "cr-0123456789abcdef0"}'
CR_GROUP = "arn:aws:resource-groups:us-east-1:123456789012:group/p5-blocks"


class ReservationInGroupMocks(RecordingMocks):
    """A cloud whose capacity reservation was created in a cluster placement group."""

    def _computed(self, typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        out = super()._computed(typ, name, inputs)
        if typ == "aws:ec2/capacityReservation:CapacityReservation":
            out["placementGroupArn"] = (
                "arn:aws:ec2:us-east-1:123456789012:placement-group/p5-reserved"
            )
        return out


def test_reservation_in_a_placement_group_uses_that_group_and_creates_none() -> None:
    plan = run_plan(REPO, "aws-h100", [RESERVED], make_mocks=ReservationInGroupMocks)
    assert plan.of_type("aws:ec2/placementGroup:PlacementGroup") == []
    assert one(plan, LT).inputs["placement"] == {"groupName": "p5-reserved"}
    assert one(plan, ASG).inputs["placementGroup"] == "p5-reserved"
    assert plan.outputs["network"]["placementGroup"]["source"] == "reservation"
    placement = dict(fabric_summary(plan))["Placement"]
    assert placement.startswith("the reservation's placement group p5-reserved")


class TwoReservationsMocks(RecordingMocks):
    """A cloud where the first of two reservations is in placement group pg-a, the second in
    none."""

    def _computed(self, typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        out = super()._computed(typ, name, inputs)
        if typ == "aws:ec2/capacityReservation:CapacityReservation" and name.endswith("-0"):
            out["placementGroupArn"] = "arn:aws:ec2:us-east-1:123456789012:placement-group/pg-a"
        return out


def test_several_reservations_each_instance_targets_its_own_in_its_group() -> None:
    shares = '[{"id":"cr-0a0000000000000aa","nodes":3},{"id":"cr-0b0000000000000bb","nodes":2}]'
    overrides = [
        "gpufabric:nodes=5",
        "gpufabric:nodeGroup=instances",
        "gpufabric:capacity.type=reservation",
        f"gpufabric:capacity.reservations={shares}",
    ]
    plan = run_plan(REPO, "aws-h100", overrides, make_mocks=TwoReservationsMocks)
    seen = [
        (
            i.inputs["capacityReservationSpecification"]["capacityReservationTarget"][
                "capacityReservationId"
            ],
            i.inputs.get("placementGroup"),
            i.inputs["launchTemplate"],
        )
        for i in plan.of_type(INSTANCE)
    ]
    template = {"id": one(plan, LT).id, "version": "1"}  # the template's latest version
    a, b = "cr-0a0000000000000aa", "cr-0b0000000000000bb"
    assert seen == [(a, "pg-a", template)] * 3 + [(b, None, template)] * 2


@pytest.mark.parametrize(
    ("capacity", "words"),
    [
        (RESERVED, "none: cr-0123456789abcdef0 is in no placement group"),
        (
            'gpufabric:capacity={"type": "capacity-block", "reservationId": "cr-0123456789abcdef0"}',
            "none: cr-0123456789abcdef0 is in no placement group",
        ),
        (
            f'gpufabric:capacity={{"type": "capacity-block", "resourceGroupArn": "{CR_GROUP}"}}',
            f"none: capacity reservation resource group {CR_GROUP}",
        ),
    ],
)
def test_reserved_capacity_gets_no_new_placement_group(capacity: str, words: str) -> None:
    plan = plan_for("aws-h100", capacity)
    assert plan.of_type("aws:ec2/placementGroup:PlacementGroup") == []
    assert "placement" not in one(plan, LT).inputs
    assert "placementGroup" not in one(plan, ASG).inputs
    assert dict(fabric_summary(plan))["Placement"].startswith(words)
    from gpufabric.policies.offline import check_plan

    assert check_plan(plan) == []


def test_resource_group_is_the_launch_templates_capacity_target() -> None:
    plan = plan_for(
        "aws-h100",
        "gpufabric:nodes=125",
        f'gpufabric:capacity={{"type": "capacity-block", "resourceGroupArn": "{CR_GROUP}"}}',
    )
    lt = one(plan, LT).inputs
    target = lt["capacityReservationSpecification"]["capacityReservationTarget"]
    assert target == {"capacityReservationResourceGroupArn": CR_GROUP}
    assert lt["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert one(plan, ASG).inputs["desiredCapacity"] == 125
    assert not plan.of_type("aws:ec2/capacityReservation:CapacityReservation")


def test_up_waits_for_every_node_with_a_settable_timeout() -> None:
    group = one(plan_for("aws-h100"), ASG).inputs
    assert group["waitForCapacityTimeout"] == "30m"
    assert group["minSize"] == group["maxSize"] == group["desiredCapacity"] == 16
    assert "waits up to 30m" in dict(fabric_summary(plan_for("aws-h100")))["Node group"]
    custom = plan_for("aws-h100", "gpufabric:aws.waitForCapacityTimeout=1h")
    assert one(custom, ASG).inputs["waitForCapacityTimeout"] == "1h"
    off = plan_for("aws-h100", "gpufabric:aws.waitForCapacityTimeout=0")
    assert "does NOT wait" in dict(fabric_summary(off))["Node group"]


def test_s3_repository_on_scratch_2() -> None:
    plan = plan_for(
        "aws-h100",
        'gpufabric:storage={"type": "fsx-lustre", "deploymentType": "SCRATCH_2", '
        '"capacityGib": 2400, "throughputPerTib": null, '
        '"s3": {"dataRepositoryPath": "s3://example-training-data/x"}}',
    )
    fs = one(plan, "aws:fsx/lustreFileSystem:LustreFileSystem")
    assert fs.inputs["deploymentType"] == "SCRATCH_2"
    dra = one(plan, "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")
    assert dra.inputs["fileSystemId"] == fs.id


def test_on_demand_reservation_has_no_market_type() -> None:
    plan = plan_for(
        "aws-h100",
        'gpufabric:capacity={"type": "reservation", "reservationId": "cr-0123456789abcdef0"}',
    )
    lt = one(plan, LT).inputs
    assert "instanceMarketOptions" not in lt
    assert "capacityReservationSpecification" in lt


class ElsewhereMocks(RecordingMocks):
    """A cloud whose capacity reservation lives in another zone."""

    def _computed(self, typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        out = super()._computed(typ, name, inputs)
        if typ == "aws:ec2/capacityReservation:CapacityReservation":
            out["availabilityZone"] = "us-east-1d"
        return out


def test_reservation_in_another_zone_fails_the_deployment_naming_the_key() -> None:
    with pytest.raises(UserError, match=r"gpufabric:capacity.reservationId: .* us-east-1d"):
        run_plan(
            REPO,
            "aws-h100",
            ['gpufabric:capacity={"type": "reservation", "reservationId": "cr-0123456789abcdef0"}'],
            make_mocks=ElsewhereMocks,
        )


def test_nat_egress_vs_endpoints() -> None:
    nat = plan_for("aws-h100")
    assert len(nat.of_type("aws:ec2/natGateway:NatGateway")) == 1
    endpoints = plan_for(
        "aws-h100",
        "gpufabric:network.egress=endpoints",
        "gpufabric:aws.organizationId=o-a1b2c3d4e5",
    )
    assert not endpoints.of_type("aws:ec2/natGateway:NatGateway")
    services = sorted(
        e.inputs["serviceName"] for e in endpoints.of_type("aws:ec2/vpcEndpoint:VpcEndpoint")
    )
    assert services == [
        f"com.amazonaws.us-east-1.{s}" for s in ("ec2messages", "s3", "ssm", "ssmmessages")
    ]


def test_partitions_are_separate_subnets_in_one_zone() -> None:
    plan = plan_for("aws-h100")
    subnets = {s.inputs["tags"]["gpufabric:partition"]: s for s in plan.of_type(SUBNET)}
    assert set(subnets) == {"fabric", "storage", "management", "egress"}
    assert {s.inputs["availabilityZone"] for s in subnets.values()} == {"us-east-1a"}
    assert len({s.inputs["cidrBlock"] for s in subnets.values()}) == 4


def test_existing_vpc_is_used_not_created() -> None:
    plan = plan_for(
        "aws-h100",
        "gpufabric:aws.existingVpcId=vpc-0123456789abcdef0",
        "gpufabric:network.egress=endpoints",
        "gpufabric:aws.organizationId=o-a1b2c3d4e5",
    )
    assert not plan.of_type("aws:ec2/vpc:Vpc")
    assert {s.inputs["vpcId"] for s in plan.of_type(SUBNET)} == {"vpc-0123456789abcdef0"}


def test_outputs_are_the_contract_and_name_the_autoscaling_group() -> None:
    plan = plan_for("aws-h100")
    assert set(plan.outputs) == set(EXPORTS)
    out = parse(plan.outputs)
    assert (out.cluster.fabric, out.cluster.cloud, out.cluster.encryption) == (
        "efa",
        "aws",
        "provider-native",
    )
    (group,) = out.nodes.groups
    # EC2 tags the group's instances with aws:autoscaling:groupName = this name
    assert (group.kind, group.name, group.count) == ("autoscaling-group", one(plan, ASG).name, 16)
    asg = one(plan, ASG)
    tags = {t["key"]: t["value"] for t in asg.inputs["tags"]}
    assert tags["gpufabric:cluster"] == "aws-h100"
    assert all(t["propagateAtLaunch"] for t in asg.inputs["tags"])


def test_every_reference_in_the_plan_resolves() -> None:
    plan = plan_for("aws-h100")
    ids = {r.id for r in plan.resources}

    def refs(value: Any) -> list[str]:
        if isinstance(value, str) and value.startswith("<") and value.endswith(".id>"):
            return [value]
        if isinstance(value, dict):
            return [x for v in value.values() for x in refs(v)]
        if isinstance(value, list):
            return [x for v in value for x in refs(v)]
        return []

    dangling = {ref for r in plan.resources for ref in refs(r.inputs)} - ids
    assert not dangling


def test_plan_json_is_byte_identical_across_runs() -> None:
    first = run_plan(REPO, "aws-a100").to_json()
    second = run_plan(REPO, "aws-a100").to_json()
    assert first == second
    assert '"notice": "offline preview' in first
