"""Node discovery per cloud (live through each SDK, offline from saved CLI output) and the
inventory source's answers to bad input: one line naming the file, non-zero exit, no traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from tests.conftest import capture
from tests.pulumi.plans import REPO, plan_for
from tests.unit import cli_json
from tests.unit.test_inventory_stacks import ANSIBLE_INVENTORY

from gpufabric import discovery
from gpufabric.clouds.azure import discovery as azure
from gpufabric.clouds.gcp import discovery as gcp
from gpufabric.errors import UserError
from gpufabric.inventory import build
from gpufabric.stack_outputs import parse

TOPOLOGY = "aws-topology/describe_instance_topology_awscli_example_3level.json"


def outputs(stack: str, *overrides: str) -> Any:
    return parse(plan_for(stack, *overrides).outputs)


# ------------------------------------------------------------------------------ AWS
def test_aws_live_pages_the_group_and_reads_leaves() -> None:
    """Stubber checks every request and response against the real EC2 API model."""
    out = outputs("aws-h100")
    asg = out.nodes.groups[0].name
    topo = json.loads(capture(TOPOLOGY).read_text())["Instances"]  # i-1111..., i-2222..., i-3333...
    ids = [t["InstanceId"] for t in topo]
    ec2 = boto3.client(
        "ec2", region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    stub = Stubber(ec2)
    query = {"Filters": [{"Name": "tag:aws:autoscaling:groupName", "Values": [asg]}]}
    page1 = cli_json.aws_describe_instances(cli_json.aws_instance(ids[1], "10.0.1.12", asg=asg))
    page2 = cli_json.aws_describe_instances(
        cli_json.aws_instance(ids[0], "10.0.1.11", asg=asg),
        cli_json.aws_instance(ids[2], "10.0.1.14", asg=asg),
    )
    stub.add_response("describe_instances", {**page1, "NextToken": "p2"}, query)
    stub.add_response("describe_instances", page2, {**query, "NextToken": "p2"})
    stub.add_response(
        "describe_instance_topology", {"Instances": topo}, {"InstanceIds": [ids[0], ids[1], ids[2]]}
    )
    with stub:
        found = discovery.live(out, ec2)
    stub.assert_no_pending_responses()
    assert [n.name for n in found.nodes] == ["ip-10-0-1-11", "ip-10-0-1-12", "ip-10-0-1-14"]
    # i-111 and i-222 share the bottom network node; the leaf is the last of NetworkNodes
    leaves = {n.instance_id: n.leaf for n in found.nodes}
    assert leaves[ids[0]] == leaves[ids[1]] == topo[0]["NetworkNodes"][-1]
    inv = build.inventory(out, found.nodes)
    assert inv["gpu_nodes"]["vars"]["gpufabric_topology_source"] == "inventory"


def test_aws_live_error_is_one_line() -> None:
    ec2 = boto3.client(
        "ec2", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )
    stub = Stubber(ec2)
    stub.add_client_error("describe_instances", "UnauthorizedOperation", "not authorized")
    with stub, pytest.raises(UserError, match=r"^aws describe_instances in us-east-1: .*Unauth"):
        discovery.live(outputs("aws-h100"), ec2)


def test_aws_instances_are_matched_by_the_ids_in_the_outputs(tmp_path: Path) -> None:
    out = outputs("aws-a100")
    ids = out.nodes.groups[0].members
    doc = cli_json.aws_describe_instances(
        cli_json.aws_instance(ids[0], "10.0.0.5"),
        cli_json.aws_instance(ids[1], "", state="pending"),
        cli_json.aws_instance("i-0notours0000000", "10.0.0.9"),
    )
    (tmp_path / "d.json").write_text(json.dumps(doc))
    found = discovery.from_files(out, [tmp_path / "d.json"])
    assert [(n.name, n.instance_id) for n in found.nodes] == [("ip-10-0-0-5", ids[0])]
    assert found.warnings == [f"{ids[1]} ({out.nodes.groups[0].name}): state pending; left out"]


# ------------------------------------------------------------------------------ GCP
def test_gcp_mig_members_by_created_by_in_the_stack_zone_only(tmp_path: Path) -> None:
    out = outputs("gcp-a3-ultra")
    mig, zone, project = out.nodes.groups[0].name, out.cluster.zone, "my-gpu-project"
    doc = [
        cli_json.gcp_instance("n-1", "10.0.0.2", zone=zone, project=project, mig=mig),
        cli_json.gcp_instance("n-2", "10.0.0.3", zone="europe-west1-c", project=project, mig=mig),
        cli_json.gcp_instance("n-3", "10.0.0.4", zone=zone, project=project, mig=mig + "-x"),
        cli_json.gcp_instance("n-4", "", zone=zone, project=project, mig=mig),
    ]
    (tmp_path / "i.json").write_text(json.dumps(doc))
    found = discovery.from_files(out, [tmp_path / "i.json"])
    assert [n.name for n in found.nodes] == ["n-1"]
    assert found.warnings == [f"n-4 ({mig}): no private address; left out"]


def test_gcp_live_lists_the_managed_instances() -> None:
    from google.cloud import compute_v1

    out = outputs("gcp-a3-ultra")
    mig, zone = out.nodes.groups[0].name, out.cluster.zone
    calls: list[tuple[str, dict[str, str]]] = []

    class Groups:
        def list_managed_instances(self, **kw: str) -> list[Any]:
            calls.append(("listManagedInstances", kw))
            return [
                compute_v1.ManagedInstance(instance=f"https://x/zones/{zone}/instances/n-{i}")
                for i in (1, 2)
            ]

    class Instances:
        def list(self, **kw: str) -> list[Any]:
            calls.append(("list", kw))
            # no created-by here: listManagedInstances alone links n-1 and n-2 to the group
            return [
                compute_v1.Instance.from_json(
                    json.dumps(
                        cli_json.gcp_instance(f"n-{i}", f"10.0.0.{i}", zone=zone, project="p")
                    )
                )
                for i in (1, 2, 3)
            ]

    found = discovery.live(out, gcp.Compute("my-gpu-project", zone, Instances(), Groups()))
    assert [(n.name, n.address) for n in found.nodes] == [("n-1", "10.0.0.1"), ("n-2", "10.0.0.2")]
    assert calls == [
        (
            "listManagedInstances",
            {"project": "my-gpu-project", "zone": zone, "instance_group_manager": mig},
        ),
        ("list", {"project": "my-gpu-project", "zone": zone}),
    ]


# ------------------------------------------------------------------------------ Azure
def test_azure_nics_both_address_spellings_and_case_insensitive_ids(tmp_path: Path) -> None:
    out = outputs("azure-ndv5")
    vmss, rg = out.nodes.groups[0].name, out.cluster.resource_group or ""
    old = cli_json.azure_nic(rg.upper(), vmss, 1, "")
    old["ipConfigurations"][0]["privateIpAddress"] = "10.0.0.6"  # older az CLI spelling
    doc = [cli_json.azure_nic(rg, vmss, 0, "10.0.0.5"), old, cli_json.azure_nic(rg, vmss, 2, "")]
    (tmp_path / "n.json").write_text(json.dumps(doc))
    found = discovery.from_files(out, [tmp_path / "n.json"])
    assert [(n.name, n.address, n.partition) for n in found.nodes] == [
        (f"{vmss}_0", "10.0.0.5", 0),
        (f"{vmss}_1", "10.0.0.6", 0),
    ]
    assert found.warnings == [f"{vmss}_2 ({vmss}): no private address; left out"]


def test_azure_live_leaves_out_vms_not_running() -> None:
    from azure.mgmt.compute.models import (
        InstanceViewStatus,
        VirtualMachineScaleSetVM,
        VirtualMachineScaleSetVMInstanceView,
    )
    from azure.mgmt.network.models import (
        NetworkInterface,
        NetworkInterfaceIPConfiguration,
        SubResource,
    )

    out = outputs("azure-ndv5")
    vmss, rg = out.nodes.groups[0].name, out.cluster.resource_group or ""
    prefix = f"/subscriptions/s/resourceGroups/{rg}/providers/Microsoft.Compute"

    def nic(i: int) -> NetworkInterface:
        n = NetworkInterface(
            ip_configurations=[
                NetworkInterfaceIPConfiguration(primary=True, private_ip_address=f"10.0.0.{i}")
            ]
        )
        n.virtual_machine = SubResource(  # read-only on the model: set as the service would
            id=f"{prefix}/virtualMachineScaleSets/{vmss}/virtualMachines/{i}"
        )
        return n

    def vm(i: int, power: str) -> VirtualMachineScaleSetVM:
        v = VirtualMachineScaleSetVM(
            location="eastus",
            instance_view=(
                VirtualMachineScaleSetVMInstanceView(statuses=[InstanceViewStatus(code=power)])
            ),
        )
        v.name = f"{vmss}_{i}"
        return v

    class Network:
        class network_interfaces:
            @staticmethod
            def list_virtual_machine_scale_set_network_interfaces(g: str, s: str) -> list[Any]:
                assert (g, s) == (rg, vmss)
                return [nic(0), nic(1)]

    class Compute:
        class virtual_machine_scale_set_vms:
            @staticmethod
            def list(g: str, s: str, expand: str) -> list[Any]:
                assert (g, s, expand) == (rg, vmss, "instanceView")
                return [vm(0, "PowerState/running"), vm(1, "PowerState/deallocated")]

    found = discovery.live(out, azure.Azure(compute=Compute(), network=Network()))
    assert [n.name for n in found.nodes] == [f"{vmss}_0"]
    assert found.warnings == [f"{vmss}_1 ({vmss}): not running; left out"]


# ------------------------------------------------------------------------------ bad input
def _source(tmp: Path, outputs_doc: Any, files: dict[str, Any | str]) -> Path:
    (tmp / "outputs.json").write_text(
        outputs_doc if isinstance(outputs_doc, str) else json.dumps(outputs_doc)
    )
    for name, doc in files.items():
        (tmp / name).write_text(doc if isinstance(doc, str) else json.dumps(doc))
    source = tmp / "s.gpufabric_pulumi.yml"
    source.write_text(
        "plugin: gpufabric_pulumi\noutputs_file: outputs.json\n"
        f"discovery_file: {json.dumps(list(files))}\n"
    )
    return source


def _fails(source: Path, *expected: str) -> None:
    proc = subprocess.run(
        [ANSIBLE_INVENTORY, "-i", str(source), "--list"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    # Ansible words it "Failed to parse inventory with 'gpufabric_pulumi' plugin: <our line>"
    line = next(ln for ln in proc.stderr.splitlines() if "'gpufabric_pulumi' plugin: " in ln)
    for text in expected:
        assert text in line, proc.stderr


AWS_DOC = cli_json.aws_describe_instances(cli_json.aws_instance("i-0a", "10.0.0.1", asg="x"))
GCP_DOC = [cli_json.gcp_instance("n", "10.0.0.1", zone="us-central1-a", project="p")]
AZURE_DOC = [cli_json.azure_nic("rg", "set", 0, "10.0.0.1")]


@pytest.mark.parametrize(
    ("stack", "doc", "words"),
    [
        ("aws-h100", GCP_DOC, "gcloud compute instances list"),
        ("gcp-a3-mega", AZURE_DOC, "az vmss nic list"),
        ("azure-ndv5", AWS_DOC, "aws ec2 describe-instances"),
    ],
)
def test_another_clouds_discovery_file(tmp_path: Path, stack: str, doc: Any, words: str) -> None:
    source = _source(tmp_path, plan_for(stack).outputs, {"other.json": doc})
    _fails(source, "discovery file", "other.json", words, f"of a {stack.split('-')[0]} stack")


def test_truncated_discovery_json(tmp_path: Path) -> None:
    text = json.dumps(AWS_DOC)
    source = _source(tmp_path, plan_for("aws-h100").outputs, {"cut.json": text[: len(text) // 2]})
    _fails(source, "cut.json", "not valid JSON", "cut short?")


def test_truncated_outputs_json(tmp_path: Path) -> None:
    text = json.dumps(plan_for("aws-h100").outputs)
    _fails(
        _source(tmp_path, text[:-7], {"d.json": AWS_DOC}),
        "outputs.json",
        "not valid JSON",
        "cut short?",
    )


def test_binary_discovery_file(tmp_path: Path) -> None:
    source = _source(tmp_path, plan_for("aws-h100").outputs, {})
    (tmp_path / "b.json").write_bytes(b"\x00\xff\xfe\x00")
    source.write_text(
        "plugin: gpufabric_pulumi\noutputs_file: outputs.json\ndiscovery_file: [b.json]\n"
    )
    _fails(source, "discovery file", "b.json", "not UTF-8")


def test_discovery_with_no_node_of_this_stack(tmp_path: Path) -> None:
    source = _source(tmp_path, plan_for("aws-h100").outputs, {"d.json": AWS_DOC})
    _fails(source, "d.json", "no running node of stack aws-h100", "aws-h100-nodes")


def test_outputs_with_no_nodes_section(tmp_path: Path) -> None:
    doc = {k: v for k, v in plan_for("gcp-a3-ultra").outputs.items() if k != "nodes"}
    _fails(
        _source(tmp_path, doc, {"i.json": GCP_DOC}),
        "outputs file",
        "outputs.json",
        "no 'nodes' section",
    )


def test_outputs_of_another_tool(tmp_path: Path) -> None:
    _fails(
        _source(tmp_path, [1, 2], {"i.json": GCP_DOC}),
        "outputs.json",
        "expected a JSON object of stack outputs",
    )


def test_missing_discovery_file(tmp_path: Path) -> None:
    source = _source(tmp_path, plan_for("aws-h100").outputs, {})
    source.write_text(
        "plugin: gpufabric_pulumi\noutputs_file: outputs.json\ndiscovery_file: nope.json\n"
    )
    _fails(source, "discovery file", "nope.json", "no such file")


def test_bad_leaf_map(tmp_path: Path) -> None:
    from gpufabric.inventory.outputs import load_leaf_map

    bad = tmp_path / "leaves.yml"
    bad.write_text("- h1\n- h2\n")
    with pytest.raises(UserError, match="expected a mapping of host or address to leaf name"):
        load_leaf_map(bad)


def test_gcp_live_trusts_the_groups_member_list_over_created_by_metadata() -> None:
    """Metadata is writable by whoever may set it on an instance: live, an instance that
    claims `created-by` = the stack's group but is not in listManagedInstances is left out."""
    from google.cloud import compute_v1

    out = outputs("gcp-a3-ultra")
    mig, zone = out.nodes.groups[0].name, out.cluster.zone

    class Groups:
        def list_managed_instances(self, **kw: str) -> list[Any]:
            return [compute_v1.ManagedInstance(instance=f"https://x/zones/{zone}/instances/n-1")]

    class Instances:
        def list(self, **kw: str) -> list[Any]:
            made = [
                cli_json.gcp_instance("n-1", "10.0.0.1", zone=zone, project="p", mig=mig),
                cli_json.gcp_instance("rogue", "10.0.0.9", zone=zone, project="p", mig=mig),
            ]
            return [compute_v1.Instance.from_json(json.dumps(i)) for i in made]

    found = discovery.live(out, gcp.Compute("my-gpu-project", zone, Instances(), Groups()))
    assert [n.name for n in found.nodes] == ["n-1"]


def test_outputs_file_and_stack_both_set(tmp_path: Path) -> None:
    """One of them silently won; now neither does."""
    source = _source(tmp_path, plan_for("aws-h100").outputs, {"d.json": AWS_DOC})
    source.write_text(
        "plugin: gpufabric_pulumi\noutputs_file: outputs.json\nstack: aws-h100\n"
        "discovery_file: [d.json]\n"
    )
    _fails(source, "set outputs_file or stack, not both", "'outputs.json'", "'aws-h100'")


def test_leaf_map_file_sets_leaves_and_names_an_entry_that_matches_no_node(tmp_path: Path) -> None:
    """The plugin reads `leaf_map_file` next to the source: its leaves win, and an entry naming
    no node of the stack (a typo) is a warning, not a silent no-op."""
    asg = "aws-h100-nodes"
    doc = cli_json.aws_describe_instances(
        cli_json.aws_instance("i-0a", "10.0.0.1", asg=asg),
        cli_json.aws_instance("i-0b", "10.0.0.2", asg=asg),
    )
    source = _source(tmp_path, plan_for("aws-h100").outputs, {"d.json": doc})
    (tmp_path / "leaves.yml").write_text("ip-10-0-0-1: sw-1\n10.0.0.2: sw-2\nip-10-0-0-9: sw-9\n")
    source.write_text(source.read_text() + "leaf_map_file: leaves.yml\n")
    proc = subprocess.run(
        [ANSIBLE_INVENTORY, "-i", str(source), "--list"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert listed["leaf_sw_1"]["hosts"] == ["ip-10-0-0-1"]
    assert listed["leaf_sw_2"]["hosts"] == ["ip-10-0-0-2"]
    assert "leaf_sw_9" not in listed
    warning = " ".join(proc.stderr.split())  # Ansible wraps long warnings
    assert (
        "gpufabric_pulumi: leaf map leaves.yml: 'ip-10-0-0-9' matches no node found of stack aws-h100; unused"
        in warning
    ), proc.stderr
