"""Discovery keeps only the stack's own network: an instance of the stack's group (or with
one of its ids) in another VPC / subnet (AWS) or on another VPC (GCP) is left out, named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.stack_outputs import StackOutputs, parse

VPC, SUBNET = "vpc-0123456789abcdef0", "subnet-0123456789abcdef0"


def with_network(stack: str, network: dict[str, Any]) -> StackOutputs:
    """The stack's outputs as after a deploy: real network ids instead of plan placeholders."""
    out = parse(plan_for(stack).outputs)
    return out.model_copy(update={"network": {**out.network, **network}})


def test_aws_instance_outside_the_stack_vpc_or_subnets_is_left_out(tmp_path: Path) -> None:
    out = with_network("aws-a100", {"vpcId": VPC, "subnets": {"fabric": SUBNET}})
    ids = out.nodes.groups[0].members
    ours = cli_json.aws_instance(ids[0], "10.0.0.5")
    other_vpc = {**cli_json.aws_instance(ids[1], "10.0.0.6"), "VpcId": "vpc-0fedcba987654321f"}
    other_subnet = {
        **cli_json.aws_instance(ids[2], "10.0.0.7"),
        "SubnetId": "subnet-0aaaaaaaaaaaaaaaa",
    }
    (tmp_path / "d.json").write_text(
        json.dumps(cli_json.aws_describe_instances(ours, other_vpc, other_subnet))
    )
    found = discovery.from_files(out, [tmp_path / "d.json"])
    group = out.nodes.groups[0].name
    assert [n.instance_id for n in found.nodes] == [ids[0]]
    assert found.warnings == [
        f"{ids[1]} ({group}): in vpc-0fedcba987654321f, not the stack's {VPC}; left out",
        f"{ids[2]} ({group}): in subnet subnet-0aaaaaaaaaaaaaaaa, not one of the stack's; left out",
    ]


def test_gcp_instance_on_another_vpc_is_left_out(tmp_path: Path) -> None:
    project = "my-gpu-project"
    out = with_network("gcp-a3-ultra", {"networks": [f"projects/{project}/global/networks/host-0"]})
    mig, zone = out.nodes.groups[0].name, out.cluster.zone
    ours = cli_json.gcp_instance("n-1", "10.0.0.2", zone=zone, project=project, mig=mig)
    stray = cli_json.gcp_instance("n-2", "10.9.0.2", zone=zone, project=project, mig=mig, number=2)
    stray["networkInterfaces"][0]["network"] = (
        f"https://www.googleapis.com/compute/v1/projects/{project}/global/networks/elsewhere"
    )
    (tmp_path / "i.json").write_text(json.dumps([ours, stray]))
    found = discovery.from_files(out, [tmp_path / "i.json"])
    assert [n.name for n in found.nodes] == ["n-1"]
    assert found.warnings == [
        f"n-2 ({mig}): on network projects/{project}/global/networks/elsewhere, "
        "not one of the stack's; left out"
    ]


def test_azure_vm_in_another_subnet_is_left_out(tmp_path: Path) -> None:
    base = parse(plan_for("azure-ndv5").outputs)
    rg, vmss = base.cluster.resource_group or "", base.nodes.groups[0].name
    ours = cli_json.azure_nic(rg, vmss, 0, "10.0.0.4")
    subnet = ours["ipConfigurations"][0]["subnet"]["id"]
    out = with_network("azure-ndv5", {"subnets": {"compute": subnet.upper()}})  # ARM ids: any case
    stray = cli_json.azure_nic(rg, vmss, 1, "10.0.9.4")
    stray["ipConfigurations"][0]["subnet"]["id"] = subnet.replace("/subnets/compute", "/subnets/x")
    (tmp_path / "n.json").write_text(json.dumps([ours, stray]))
    found = discovery.from_files(out, [tmp_path / "n.json"])
    assert [n.address for n in found.nodes] == ["10.0.0.4"]
    (warning,) = found.warnings
    assert warning.startswith(f"{vmss}_1 ({vmss}): in subnet ") and warning.endswith(
        "/subnets/x, not one of the stack's; left out"
    )
