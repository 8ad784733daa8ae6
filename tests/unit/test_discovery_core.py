"""What discovery says whatever the cloud: the file kinds it tells apart, its one-line refusals
(no file, a file of another cloud, a file it cannot read, no node found, a cloud without
discovery) word for word, and which nodes the stack's subnets keep."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from tests.pulumi.plans import plan_for
from tests.unit import cli_json
from tests.unit.test_discovery_garbage import _oci

from gpufabric import discovery
from gpufabric.clouds import registry
from gpufabric.clouds.aws import discovery as aws
from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs, parse

AWS_INPUT = "`aws ec2 describe-instances --output json`"
OCI_CIDRS = "10.0.0.0/18, 10.0.65.0/24, 10.0.64.0/24"  # the oci-h100 plan's subnetCidrs


def _outputs(stack: str, *extra_groups: dict[str, Any]) -> StackOutputs:
    doc = copy.deepcopy(plan_for(stack).outputs)
    doc["nodes"]["groups"] += list(extra_groups)
    return parse(doc)


def _write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc))
    return path


def test_a_second_node_of_a_name_without_an_instance_id_is_named_by_its_address() -> None:
    found = Found()
    found.add(Node(name="n1", address="10.0.0.1", group="g"))
    found.add(Node(name="n1", address="10.0.0.2", group="g"))
    found.add(Node(name="n1", address="10.0.0.1", group="g"))  # the same node twice: kept once
    assert found.nodes == [Node(name="n1", address="10.0.0.1", group="g")]
    assert found.warnings == [
        "n1 (g): the node at 10.0.0.2 has the name of the node at 10.0.0.1, found first; left out"
    ]


def test_shape_names_the_cli_that_printed_a_file() -> None:
    assert discovery.shape([]) == "empty"
    assert discovery.shape({"Reservations": []}) == "aws"
    assert discovery.shape({"Instances": []}) == "aws-topology"
    assert discovery.shape({"data": []}) == "oci"
    for garbage in ({}, None, 0, "", {"what": 1}, [1]):
        assert discovery.shape(garbage) == "unknown", garbage


def test_no_discovery_file_is_one_line() -> None:
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("oci-h100"), [])
    assert str(err.value) == "discovery_file: no file given"


def test_a_discovery_file_that_is_not_a_file_says_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("oci-h100"), [tmp_path])
    assert str(err.value) == (
        f"{tmp_path}: is a directory, expected a discovery file (saved cloud CLI JSON)"
    )


def test_a_file_no_cloud_printed_is_refused_naming_the_command_to_run(tmp_path: Path) -> None:
    path = _write(tmp_path / "what.json", {"what": 1})
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("aws-h100"), [path])
    assert str(err.value) == (
        f"discovery file {path}: looks like no cloud CLI's output I know, but the outputs are "
        f"of a aws stack; give {AWS_INPUT}"
    )


def test_a_clouds_second_kind_of_file_is_that_clouds(tmp_path: Path) -> None:
    """An AWS topology file (DescribeInstanceTopology) is AWS output: accepted beside the
    instance listing of an AWS stack, refused naming AWS's command for another cloud's."""
    topology = _write(
        tmp_path / "topology.json",
        {"Instances": [{"InstanceId": "i-0a", "NetworkNodes": ["nn-1", "nn-2", "nn-3"]}]},
    )
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("oci-h100"), [topology])
    assert f"discovery file {topology}: looks like {AWS_INPUT}, but" in str(err.value)

    out = _outputs("aws-h100")
    asg = out.nodes.groups[0].name
    doc = cli_json.aws_describe_instances(cli_json.aws_instance("i-0a", "10.0.1.5", asg=asg))
    listing = _write(tmp_path / "instances.json", doc)
    found = discovery.from_files(out, [listing, topology])
    assert [(n.name, n.leaf) for n in found.nodes] == [("ip-10-0-1-5", "nn-3")]


def test_no_node_found_names_the_files_the_groups_and_every_reason(tmp_path: Path) -> None:
    out = _outputs("oci-h100", {"kind": "instances", "name": "extra", "count": 1})
    files = _oci(
        tmp_path,
        [
            {"name": "inst-a", "ip": "10.0.0.20", "pool": {"state": "Stopped"}},
            {"name": "inst-b", "ip": "10.0.0.21", "pool": {"state": "Terminated"}},
        ],
    )
    with pytest.raises(UserError) as err:
        discovery.from_files(out, files)
    assert str(err.value) == (
        f"discovery in {', '.join(str(p) for p in files)}: no running node of stack oci-h100 "
        "(node groups: oci-h100-cn, extra) (inst-a (oci-h100-cn): state Stopped; left out; "
        "inst-b (oci-h100-cn): state Terminated; left out)"
    )


def test_an_empty_listing_finds_no_node_and_gives_no_reason(tmp_path: Path) -> None:
    empty = _write(tmp_path / "empty.json", [])
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("gcp-a3-mega"), [empty])
    assert str(err.value) == (
        f"discovery in {empty}: no running node of stack gcp-a3-mega "
        "(node groups: gcp-a3-mega-node)"
    )


def test_nodes_outside_the_stack_subnets_are_left_out_and_the_rest_kept(tmp_path: Path) -> None:
    far = [{"name": f"inst-far{i}", "ip": f"10.1.0.{5 + i}"} for i in range(2)]
    files = _oci(tmp_path, [*far, {"name": "inst-good", "ip": "10.0.0.20"}])
    found = discovery.from_files(_outputs("oci-h100"), files)
    assert [n.name for n in found.nodes] == ["inst-good"]
    assert found.warnings == [
        f"inst-far{i} (oci-h100-cn): address 10.1.0.{5 + i} is outside the stack's subnets "
        f"({OCI_CIDRS}); left out"
        for i in range(2)
    ]


class _Ec2Client:
    """EC2 answering describe_instances with `instances`; DescribeInstanceTopology must not
    be asked for when topology is not wanted."""

    def __init__(self, *instances: dict[str, Any]) -> None:
        self.instances = instances
        self.topology_calls = 0

    def describe_instances(self, **_: Any) -> dict[str, Any]:
        return cli_json.aws_describe_instances(*self.instances)

    def describe_instance_topology(self, **_: Any) -> dict[str, Any]:
        self.topology_calls += 1
        return {"Instances": []}


def test_live_without_topology_asks_for_no_topology() -> None:
    out = _outputs("aws-h100")
    client = _Ec2Client(cli_json.aws_instance("i-0a", "10.0.1.5", asg=out.nodes.groups[0].name))
    found = discovery.live(out, aws.Ec2("us-east-1", client), topology=False)
    assert [n.name for n in found.nodes] == ["ip-10-0-1-5"]
    assert client.topology_calls == 0
    discovery.live(out, aws.Ec2("us-east-1", client))
    assert client.topology_calls == 1


def test_live_finding_nothing_names_the_api() -> None:
    with pytest.raises(UserError) as err:
        discovery.live(_outputs("aws-h100"), aws.Ec2("us-east-1", _Ec2Client()))
    assert str(err.value) == (
        "discovery in the aws API: no running node of stack aws-h100 (node groups: aws-h100-nodes)"
    )


def test_a_cloud_without_discovery_points_to_a_static_inventory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "has_module", lambda _cloud, _part: False)
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("gcp-a3-mega"), [_write(tmp_path / "e.json", [])])
    assert str(err.value) == (
        "node discovery for gcp stacks is not implemented yet; write a static inventory with "
        "the gpufabric_* group variables (docs/ansible.md)"
    )


def test_an_address_no_host_has_is_refused_naming_where_it_was_found(tmp_path: Path) -> None:
    files = _oci(tmp_path, [{"name": "inst-bad", "ip": "10.0.0.999"}])
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("oci-h100"), files)
    assert str(err.value) == (
        f"discovery in {', '.join(str(p) for p in files)}: node 'inst-bad': address: "
        "'10.0.0.999' must be an IPv4 address like 10.0.0.5 (four numbers 0-255)"
    )
