"""AWS node discovery: the EC2 requests it makes (checked against the real EC2 API model by
botocore's Stubber), what it makes of malformed answers (one line naming where), and what each
left-out instance's warning says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.clouds.aws import discovery as aws
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs, parse

VPC, SUBNET = "vpc-0123456789abcdef0", "subnet-0123456789abcdef0"


def _outputs(stack: str, **network: Any) -> StackOutputs:
    out = parse(plan_for(stack).outputs)
    return out.model_copy(update={"network": {**out.network, **network}}) if network else out


def _ec2() -> Any:
    return boto3.client(
        "ec2", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )


def _ids(count: int) -> list[str]:
    return [f"i-{n:017x}" for n in range(count)]


def test_ec2_without_a_client_talks_to_ec2_in_the_stack_region() -> None:
    ec2 = aws.Ec2("eu-west-2")
    assert ec2.client.meta.service_model.service_name == "ec2"
    assert ec2.client.meta.region_name == "eu-west-2"


def test_ec2_without_boto3_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import gpufabric.extras

    monkeypatch.setattr(gpufabric.extras, "find_spec", lambda _name: None)
    with pytest.raises(UserError) as err:
        aws.Ec2("us-east-1")
    assert str(err.value) == (
        "AWS node discovery needs the aws extra (boto3 is not installed): "
        "pip install 'gpufabric[aws]'"
    )


def test_describe_instances_asks_for_at_most_100_ids_a_call() -> None:
    client = _ec2()
    ids = _ids(150)
    with Stubber(client) as stub:
        for chunk, iid in ((ids[:100], ids[0]), (ids[100:], ids[100])):
            answer = cli_json.aws_describe_instances(cli_json.aws_instance(iid, "10.0.0.5"))
            stub.add_response("describe_instances", answer, {"InstanceIds": chunk})
        doc = aws.Ec2("us-east-1", client).describe_instances(instance_ids=ids)
        stub.assert_no_pending_responses()
    assert [i["InstanceId"] for i in aws.instances(doc, "t")] == [ids[0], ids[100]]


def test_a_page_without_reservations_lists_no_instance() -> None:
    """The EC2 model does not require Reservations in an answer: such a page holds nothing."""
    client = _ec2()
    with Stubber(client) as stub:
        stub.add_response("describe_instances", {}, {"InstanceIds": ["i-0a"]})
        doc = aws.Ec2("us-east-1", client).describe_instances(instance_ids=["i-0a"])
    assert doc == {"Reservations": []}


def test_describe_instance_topology_with_filters_and_no_ids() -> None:
    client = _ec2()
    query = {"Filters": [{"Name": "instance-type", "Values": ["p5.48xlarge"]}]}
    with Stubber(client) as stub:
        stub.add_response("describe_instance_topology", {"Instances": []}, query)
        pages = aws.Ec2("us-east-1", client).describe_instance_topology(filters=query["Filters"])
        stub.assert_no_pending_responses()
    assert [p["Instances"] for p in pages] == [[]]


def test_an_ec2_error_without_a_region_is_one_line() -> None:
    client = _ec2()
    with Stubber(client) as stub:
        stub.add_client_error("describe_instances", "UnauthorizedOperation", "not authorized")
        with pytest.raises(UserError) as err:
            aws.Ec2("", client).describe_instances()
    assert str(err.value) == (
        "aws describe_instances: An error occurred (UnauthorizedOperation) when calling the "
        "DescribeInstances operation: not authorized"
    )


def test_live_asks_for_the_instances_the_outputs_list_by_id() -> None:
    out = _outputs("aws-a100")
    ids = out.nodes.groups[0].members
    client = _ec2()
    with Stubber(client) as stub:
        answer = cli_json.aws_describe_instances(cli_json.aws_instance(ids[2], "10.0.0.7"))
        stub.add_response("describe_instances", answer, {"InstanceIds": ids})
        found = aws.live(out, client, topology=False)
        stub.assert_no_pending_responses()
    assert [(n.name, n.instance_id) for n in found.nodes] == [("ip-10-0-0-7", ids[2])]


def test_live_reads_the_leaves_unless_told_not_to() -> None:
    out = _outputs("aws-a100")
    ids = out.nodes.groups[0].members
    answer = cli_json.aws_describe_instances(cli_json.aws_instance(ids[0], "10.0.0.5"))
    topology = {"Instances": [{"InstanceId": ids[0], "NetworkNodes": ["nn-a", "nn-b", "nn-c"]}]}
    client = _ec2()
    with Stubber(client) as stub:
        stub.add_response("describe_instances", answer, {"InstanceIds": ids})
        stub.add_response("describe_instance_topology", topology, {"InstanceIds": [ids[0]]})
        found = aws.live(out, aws.Ec2("us-east-1", client))
        stub.assert_no_pending_responses()
    assert [n.leaf for n in found.nodes] == ["nn-c"]


@pytest.mark.parametrize("stack", ["aws-h100", "aws-a100"])  # by the group's tag; by id
def test_a_malformed_live_answer_names_the_aws_api(stack: str) -> None:
    out = _outputs(stack)
    group = out.nodes.groups[0]
    query = (
        {"InstanceIds": group.members}
        if group.members
        else {"Filters": [{"Name": "tag:aws:autoscaling:groupName", "Values": [group.name]}]}
    )
    client = _ec2()
    with Stubber(client) as stub:
        stub.add_response("describe_instances", {"Reservations": [{"Groups": []}]}, query)
        with pytest.raises(UserError) as err:
            aws.live(out, client)
    assert str(err.value) == "aws: a reservation has no 'Instances' list"


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        ({"Reservations": [1]}, "a reservation has no 'Instances' list"),
        ({"Reservations": [{"Instances": {}}]}, "a reservation has no 'Instances' list"),
        ({"Reservations": [{"Instances": [{"State": {}}]}]}, "an instance has no 'InstanceId'"),
        ({"Reservations": [{"Instances": [1]}]}, "an instance has no 'InstanceId'"),
        ({"Reservations": [{"Instances": [{"InstanceId": 5}]}]}, "an instance has no 'InstanceId'"),
    ],
)
def test_a_malformed_listing_is_one_line_naming_the_file(
    tmp_path: Path, doc: Any, line: str
) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("aws-a100"), [path])
    assert str(err.value) == f"discovery file {path}: {line}"


def test_leaves_skip_entries_without_an_id_or_a_path() -> None:
    """The leaf is the last network node; the NVLink domain the capacity block, where listed."""
    doc = {
        "Instances": [
            1,
            {"NetworkNodes": ["nn-x"]},
            {"InstanceId": "i-0b", "NetworkNodes": []},
            {"InstanceId": "i-0c", "NetworkNodes": "nn-y"},
            {"InstanceId": "i-0d", "NetworkNodes": ["nn-1", "nn-2"]},
            {"InstanceId": "i-0e", "NetworkNodes": ["nn-3"], "CapacityBlockId": "cr-0abc"},
        ]
    }
    assert aws.leaves([doc]) == {"i-0d": ("nn-2", ""), "i-0e": ("nn-3", "cr-0abc")}


def test_each_left_out_instance_says_why_and_the_rest_are_kept() -> None:
    out = _outputs("aws-a100", vpcId=VPC, subnets={"fabric": SUBNET})
    ids = out.nodes.groups[0].members
    group = out.nodes.groups[0].name
    no_vpc = cli_json.aws_instance(ids[0], "10.0.0.5")
    del no_vpc["VpcId"]
    no_subnet = cli_json.aws_instance(ids[1], "10.0.0.6")
    del no_subnet["SubnetId"]
    no_state = cli_json.aws_instance(ids[2], "10.0.0.7")
    del no_state["State"]
    no_address = cli_json.aws_instance(ids[3], "")
    stranger = cli_json.aws_instance("i-0stranger000000", "10.0.0.9")
    kept = cli_json.aws_instance(ids[3], "10.0.0.8")
    del kept["PrivateDnsName"]
    topology = {ids[3]: ("nn-leaf", "cr-0abc")}
    doc = cli_json.aws_describe_instances(stranger, no_vpc, no_subnet, no_state, no_address, kept)
    found = aws.match(out, [("d", doc)], topology)
    assert found.warnings == [
        f"{ids[0]} ({group}): in no VPC, not the stack's {VPC}; left out",
        f"{ids[1]} ({group}): in subnet (none), not one of the stack's; left out",
        f"{ids[2]} ({group}): state unknown; left out",
        f"{ids[3]} ({group}): no private address; left out",
    ]
    assert [(n.name, n.leaf, n.nvlink_domain) for n in found.nodes] == [
        (ids[3], "nn-leaf", "cr-0abc")
    ]


def test_a_node_without_a_topology_entry_has_no_leaf(tmp_path: Path) -> None:
    out = _outputs("aws-a100")
    ids = out.nodes.groups[0].members
    doc = cli_json.aws_describe_instances(
        cli_json.aws_instance(ids[0], "10.0.0.5"), cli_json.aws_instance(ids[1], "10.0.0.6")
    )
    found = aws.match(out, [("d", doc)], {ids[1]: ("nn-1", "cr-1")})
    assert [(n.leaf, n.nvlink_domain) for n in found.nodes] == [("", ""), ("nn-1", "cr-1")]


def test_outputs_without_subnets_check_no_subnet() -> None:
    out = _outputs("aws-a100")
    out = out.model_copy(update={"network": {"vpcId": VPC}})
    ids = out.nodes.groups[0].members
    doc = cli_json.aws_describe_instances(cli_json.aws_instance(ids[0], "10.0.0.5"))
    assert [n.instance_id for n in aws.match(out, [("d", doc)]).nodes] == [ids[0]]
