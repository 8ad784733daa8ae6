"""The AWS network under recording mocks, for the choices the example stacks do not make: no
egress path at all, the file system's subnet in its own zone, VPC flow logs, where the
no-internet mode's resources sit in the component's tree, and what the NAT gateway waits for."""

from __future__ import annotations

import json

from tests.pulumi.plans import plan_for, registered_dependencies
from tests.unit.test_cluster_wiring import check_tree, planned

from gpufabric.plan import Plan, PlannedResource

SUBNET = "aws:ec2/subnet:Subnet"
SG = "aws:ec2/securityGroup:SecurityGroup"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"
ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
ASSOCIATION = "aws:ec2/routeTableAssociation:RouteTableAssociation"
FLOW_LOG = "aws:ec2/flowLog:FlowLog"
NAT = "aws:ec2/natGateway:NatGateway"
IGW = "aws:ec2/internetGateway:InternetGateway"
TAGS = {"gpufabric:cluster": "aws-h100", "gpufabric:stack": "aws-h100"}
FLOW_LOGS = "gpufabric:network.flowLogs=" + json.dumps(
    {"destination": "arn:aws:s3:::my-flow-logs/gpufabric"}
)


def named(plan: Plan, token: str, name: str) -> PlannedResource:
    (found,) = [r for r in plan.of_type(token) if r.name == name]
    return found


def test_no_egress_mode_builds_no_path_out_and_no_egress_subnet() -> None:
    plan = plan_for("aws-h100", "gpufabric:network.egress=none")
    for token in (
        NAT,
        IGW,
        "aws:ec2/eip:Eip",
        "aws:ec2/route:Route",
        "aws:ec2/vpcEndpoint:VpcEndpoint",
    ):
        assert not plan.of_type(token), token
    roles = sorted(s.inputs["tags"]["gpufabric:partition"] for s in plan.of_type(SUBNET))
    assert roles == ["fabric", "management", "storage"]
    # one private route table (no routes) for every subnet
    (private,) = plan.of_type(ROUTE_TABLE)
    assert private.name == "aws-h100-private" and "routes" not in private.inputs
    associated = {a.inputs["subnetId"]: a.inputs["routeTableId"] for a in plan.of_type(ASSOCIATION)}
    assert associated == {s.id: private.id for s in plan.of_type(SUBNET)}
    # the management group may not send anywhere but to the cluster's file system
    mgmt = named(plan, SG, "aws-h100-mgmt")
    sends = [r for r in plan.of_type(EGRESS) if r.inputs["securityGroupId"] == mgmt.id]
    storage = named(plan, SG, "aws-h100-storage")
    assert sends and {r.inputs["referencedSecurityGroupId"] for r in sends} == {storage.id}


def test_storage_zone_moves_only_the_storage_subnet() -> None:
    plan = plan_for("aws-h100", 'gpufabric:storage={"type": "fsx-lustre", "zone": "us-east-1b"}')
    zones = {
        s.inputs["tags"]["gpufabric:partition"]: s.inputs["availabilityZone"]
        for s in plan.of_type(SUBNET)
    }
    assert zones == {
        "fabric": "us-east-1a",
        "storage": "us-east-1b",
        "management": "us-east-1a",
        "egress": "us-east-1a",
    }


def test_flow_log_records_every_flow_each_minute_tagged_as_the_cluster() -> None:
    plan = plan_for("aws-h100", FLOW_LOGS)
    (log,) = plan.of_type(FLOW_LOG)
    assert log.name == "aws-h100-flow-log"
    assert log.inputs == {
        "vpcId": "<aws-h100-vpc.id>",
        "trafficType": "ALL",
        "logDestinationType": "s3",
        "logDestination": "arn:aws:s3:::my-flow-logs/gpufabric",
        "maxAggregationInterval": 60,
        "tags": TAGS,
    }


def test_flow_log_of_an_existing_vpc_records_that_vpc() -> None:
    plan = plan_for(
        "aws-h100",
        "gpufabric:aws.existingVpcId=vpc-0123456789abcdef0",
        "gpufabric:network.egress=endpoints",
        "gpufabric:aws.organizationId=o-a1b2c3d4e5",
        FLOW_LOGS,
    )
    (log,) = plan.of_type(FLOW_LOG)
    assert log.inputs["vpcId"] == "vpc-0123456789abcdef0"
    assert not plan.of_type("aws:ec2/vpc:Vpc")


def test_no_internet_mode_and_flow_log_sit_under_the_cluster_component() -> None:
    plan, tree = planned("aws-a100", FLOW_LOGS)
    check_tree(plan, tree, "aws")
    built = {t for t, *_ in tree.nodes.values()}
    assert {FLOW_LOG, "aws:ec2/vpcEndpoint:VpcEndpoint", SG} <= built


def test_nat_gateway_waits_for_the_internet_gateway() -> None:
    # EC2 refuses a public NAT gateway in a VPC with no internet gateway attached yet
    after = registered_dependencies("aws-h100")
    nat = (NAT, "aws-h100-nat")
    assert (IGW, "aws-h100-igw") in after[nat]
    # the default route goes through that NAT gateway, in the private route table
    assert after[("aws:ec2/route:Route", "aws-h100-default")] == {
        nat,
        (ROUTE_TABLE, "aws-h100-private"),
    }


def test_no_internet_mode_sends_https_to_the_s3_endpoints_prefix_list_only() -> None:
    plan = plan_for("aws-a100")
    (s3,) = [
        e
        for e in plan.of_type("aws:ec2/vpcEndpoint:VpcEndpoint")
        if e.inputs["vpcEndpointType"] == "Gateway"
    ]
    to_s3 = named(plan, EGRESS, "aws-a100-mgmt-out-s3")
    assert to_s3.inputs == {
        "securityGroupId": "<aws-a100-mgmt.id>",
        "ipProtocol": "tcp",
        "fromPort": 443,
        "toPort": 443,
        "prefixListId": f"<{s3.name}.prefixListId>",
    }
