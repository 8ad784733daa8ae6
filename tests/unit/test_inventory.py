"""Dynamic inventory from recorded Pulumi stack outputs (tests/unit/inventory_data)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber
from tests.conftest import capture

from gpufabric.errors import UserError
from gpufabric.inventory import aws, build, outputs

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "inventory_data"
RECORDED = DATA / "aws-h100.outputs.json"
TOPOLOGY = "aws-topology/describe_instance_topology_awscli_example_3level.json"


def instance(iid: str, ip: str) -> dict:
    """A describe_instances Instance as EC2 returns it (fields this code reads, and more)."""
    return {"InstanceId": iid, "InstanceType": "p5.48xlarge", "PrivateIpAddress": ip,
            "PrivateDnsName": f"ip-{ip.replace('.', '-')}.ec2.internal",
            "Placement": {"AvailabilityZone": "us-east-1a", "GroupName": "aws-h100-pg",
                          "Tenancy": "default"},
            "State": {"Code": 16, "Name": "running"}, "ImageId": "ami-0123456789abcdef0",
            "Tags": [{"Key": "gpufabric:cluster", "Value": "aws-h100"},
                     {"Key": "gpufabric:role", "Value": "gpu-node"}]}


def stubbed_ec2(topology_instances: list[dict]) -> tuple[object, Stubber]:
    ec2 = boto3.client("ec2", region_name="us-east-1", aws_access_key_id="testing",
                       aws_secret_access_key="testing")
    stub = Stubber(ec2)
    filters = aws.ec2_filters(outputs.load_file(RECORDED).inventory.discovery.filters)
    # two pages, as EC2 paginates large groups
    stub.add_response("describe_instances",
                      {"Reservations": [{"ReservationId": "r-1", "OwnerId": "123456789012",
                                         "Instances": [instance("i-2222222222example", "10.0.1.12")]}],
                       "NextToken": "page2"},
                      {"Filters": filters})
    stub.add_response("describe_instances",
                      {"Reservations": [{"ReservationId": "r-2", "OwnerId": "123456789012",
                                         "Instances": [instance("i-1111111111example", "10.0.1.11"),
                                                       instance("i-444444444example", "10.0.1.14")]}]},
                      {"Filters": filters, "NextToken": "page2"})
    stub.add_response("describe_instance_topology", {"Instances": topology_instances},
                      {"InstanceIds": ["i-1111111111example", "i-2222222222example",
                                       "i-444444444example"]})
    return ec2, stub


def test_recorded_outputs_parse():
    out = outputs.load_file(RECORDED)
    assert out.addresses == []
    assert (out.inventory.cloud, out.inventory.fabric, out.inventory.encryption) == (
        "aws", "efa", "provider-native")
    assert out.inventory.discovery.filters["tag:gpufabric:cluster"] == "aws-h100"


def test_aws_group_discovery_and_leaf_groups():
    topo = json.loads(capture(TOPOLOGY).read_text())["Instances"]
    ec2, stub = stubbed_ec2(topo)
    with stub:
        inv = build.from_outputs(outputs.load_file(RECORDED), ec2=ec2)
    stub.assert_no_pending_responses()
    assert inv["gpu_nodes"]["hosts"] == ["10.0.1.11", "10.0.1.12", "10.0.1.14"]
    assert inv["gpu_nodes"]["vars"]["gpufabric_fabric"] == "efa"
    assert inv["gpu_nodes"]["vars"]["gpufabric_encryption"] == "provider-native"
    assert inv["gpu_nodes"]["vars"]["gpufabric_instance_type"] == "p5.48xlarge"
    assert inv["cluster_aws_h100"]["hosts"] == ["10.0.1.11", "10.0.1.12", "10.0.1.14"]
    # i-111 and i-222 share the bottom network node nn-333; i-444 hangs off nn-123...
    assert inv["leaf_nn_3333333333example"]["hosts"] == ["10.0.1.11", "10.0.1.12"]
    assert inv["leaf_nn_1235301234example"]["hosts"] == ["10.0.1.14"]
    hv = inv["_meta"]["hostvars"]["10.0.1.11"]
    assert hv == {"ansible_host": "10.0.1.11", "gpufabric_instance_id": "i-1111111111example",
                  "gpufabric_leaf": "nn-3333333333example"}


def test_hostname_rule_private_dns_name():
    ec2, stub = stubbed_ec2([])
    with stub:
        nodes = aws.discover({"tag:gpufabric:cluster": "aws-h100",
                              "instance-state-name": "running",
                              "tag:gpufabric:role": "gpu-node"},
                             "private-dns-name", "us-east-1", ec2=ec2)
    assert nodes[0].name == "ip-10-0-1-11.ec2.internal" and nodes[0].leaf == ""


def test_addresses_and_leaf_map_without_cloud_calls():
    data = json.loads(RECORDED.read_text())
    data["addresses"] = ["10.0.1.21", "10.0.1.22"]
    data["inventory"]["leaves"] = {"10.0.1.21": "leaf-a", "10.0.1.22": "leaf-b"}
    inv = build.from_outputs(outputs.parse(data))
    assert inv["gpu_nodes"]["hosts"] == ["10.0.1.21", "10.0.1.22"]
    assert inv["leaf_leaf_a"]["hosts"] == ["10.0.1.21"]
    assert "leaf_leaf_b" in inv["all"]["children"]


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["inventory"].update(fabric="ethernet"), "inventory.fabric"),
    (lambda d: d["inventory"].update(encryption="tls"), "inventory.encryption"),
    (lambda d: d.pop("inventory"), "inventory: Field required"),
])
def test_bad_outputs_are_one_line_user_errors(change, message):
    data = json.loads(RECORDED.read_text())
    change(data)
    with pytest.raises(UserError, match=message):
        outputs.parse(data)


def test_bad_outputs_file(tmp_path: Path):
    bad = tmp_path / "outputs.json"
    bad.write_text("{not json")
    with pytest.raises(UserError, match="not JSON"):
        outputs.load_file(bad)
    with pytest.raises(UserError, match="No such file"):
        outputs.load_file(tmp_path / "missing.json")


def test_non_aws_without_addresses_is_refused():
    data = json.loads(RECORDED.read_text())
    data["inventory"]["cloud"] = "gcp"
    with pytest.raises(UserError, match="only implemented for aws"):
        build.from_outputs(outputs.parse(data))


def test_ansible_inventory_plugin_end_to_end(tmp_path: Path):
    data = json.loads(RECORDED.read_text())
    data["addresses"] = ["10.0.1.21", "10.0.1.22"]
    (tmp_path / "outputs.json").write_text(json.dumps(data))
    cfg = tmp_path / "c.gpufabric_pulumi.yml"
    (tmp_path / "leaves.yml").write_text("10.0.1.21: rack7-leaf\n10.0.1.22: rack8-leaf\n")
    cfg.write_text("plugin: gpufabric_pulumi\noutputs_file: outputs.json\n"
                   "leaf_map_file: leaves.yml\n")
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-inventory"), "-i", str(cfg),
                           "--list"], cwd=REPO, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert listed["gpu_nodes"]["hosts"] == ["10.0.1.21", "10.0.1.22"]
    assert listed["leaf_rack7_leaf"]["hosts"] == ["10.0.1.21"]
    # inventory values are untrusted data (never templated): ansible-inventory marks them so
    hv = {k: v["__ansible_unsafe"] if isinstance(v, dict) else v
          for k, v in listed["_meta"]["hostvars"]["10.0.1.21"].items()}
    assert hv["gpufabric_fabric"] == "efa" and hv["ansible_host"] == "10.0.1.21"
    assert hv["gpufabric_gpus_per_node"] == 8


def test_ansible_inventory_plugin_bad_file_is_one_clear_error(tmp_path: Path):
    cfg = tmp_path / "c.gpufabric_pulumi.yml"
    cfg.write_text("plugin: gpufabric_pulumi\noutputs_file: nope.json\n")
    proc = subprocess.run([str(Path(sys.executable).parent / "ansible-inventory"), "-i", str(cfg),
                           "--list"], cwd=REPO, capture_output=True, text=True, check=False)
    assert "outputs file" in proc.stderr and "nope.json" in proc.stderr


def test_bad_leaf_map(tmp_path: Path):
    bad = tmp_path / "leaves.yml"
    bad.write_text("- h1\n- h2\n")
    with pytest.raises(UserError, match="expected a mapping of host or address to leaf name"):
        outputs.load_leaf_map(bad)
