"""Every shipped stack, end to end and offline: the offline plan's outputs (what
`pulumi stack output --json` prints), saved cloud CLI discovery output for those nodes, and
`ansible-inventory -i <source.yml> --list` returning exactly the expected hosts and variables."""

from __future__ import annotations

import ipaddress
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.pulumi.plans import REPO, plan_for
from tests.unit import cli_json

ANSIBLE_INVENTORY = str(Path(sys.executable).parent / "ansible-inventory")

# stack, overrides -> the group variables every host must carry (written out by hand: the
# test does not ask the code under test what to expect)
EXPECTED: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {
    ("aws-h100", ()): {
        "gpufabric_cloud": "aws",
        "gpufabric_region": "us-east-1",
        "gpufabric_zone": "us-east-1a",
        "gpufabric_instance_type": "p5.48xlarge",
        "gpufabric_fabric": "efa",
        "gpufabric_encryption": "provider-native",
        "gpufabric_topology_source": "inventory",
    },
    ("aws-h200", ()): {
        "gpufabric_cloud": "aws",
        "gpufabric_region": "us-west-2",
        "gpufabric_zone": "us-west-2b",
        "gpufabric_instance_type": "p5en.48xlarge",
        "gpufabric_fabric": "efa",
        "gpufabric_encryption": "ipsec",
        "gpufabric_topology_source": "aws",
    },
    ("aws-a100", ()): {
        "gpufabric_cloud": "aws",
        "gpufabric_region": "us-east-1",
        "gpufabric_zone": "us-east-1c",
        "gpufabric_instance_type": "p4d.24xlarge",
        "gpufabric_fabric": "efa",
        "gpufabric_encryption": "provider-native",
        "gpufabric_topology_source": "aws",
    },
    ("gcp-a3-mega", ()): {
        "gpufabric_cloud": "gcp",
        "gpufabric_region": "us-central1",
        "gpufabric_zone": "us-central1-a",
        "gpufabric_instance_type": "a3-megagpu-8g",
        "gpufabric_fabric": "tcpxo",
        "gpufabric_encryption": "none",
        "gpufabric_topology_source": "inventory",
    },
    ("gcp-a3-mega", ("gpufabric:instanceType=a3-highgpu-8g",)): {
        "gpufabric_cloud": "gcp",
        "gpufabric_region": "us-central1",
        "gpufabric_zone": "us-central1-a",
        "gpufabric_instance_type": "a3-highgpu-8g",
        "gpufabric_fabric": "tcpx",
        "gpufabric_encryption": "none",
        "gpufabric_topology_source": "gcp",
    },
    ("gcp-a3-ultra", ()): {
        "gpufabric_cloud": "gcp",
        "gpufabric_region": "europe-west1",
        "gpufabric_zone": "europe-west1-b",
        "gpufabric_instance_type": "a3-ultragpu-8g",
        "gpufabric_fabric": "roce",
        "gpufabric_encryption": "none",
        "gpufabric_topology_source": "inventory",
    },
    ("azure-ndv5", ()): {
        "gpufabric_cloud": "azure",
        "gpufabric_region": "eastus",
        "gpufabric_zone": "1",
        "gpufabric_instance_type": "Standard_ND96isr_H100_v5",
        "gpufabric_fabric": "infiniband",
        "gpufabric_encryption": "ipsec",
        "gpufabric_topology_source": "ib",
    },
    ("azure-ndv5-h200", ()): {
        "gpufabric_cloud": "azure",
        "gpufabric_region": "eastus2",
        "gpufabric_zone": "2",
        "gpufabric_instance_type": "Standard_ND96isr_H200_v5",
        "gpufabric_fabric": "infiniband",
        "gpufabric_encryption": "ipsec",
        "gpufabric_topology_source": "ib",
    },
    ("oci-h100", ()): {
        "gpufabric_cloud": "oci",
        "gpufabric_region": "us-ashburn-1",
        "gpufabric_zone": "Uocm:US-ASHBURN-AD-1",
        "gpufabric_instance_type": "BM.GPU.H100.8",
        "gpufabric_fabric": "roce",
        "gpufabric_encryption": "none",
        "gpufabric_topology_source": "oci",
    },
    ("nebius-h100", ()): {
        "gpufabric_cloud": "nebius",
        "gpufabric_region": "eu-north1",
        "gpufabric_zone": "eu-north1",
        "gpufabric_instance_type": "gpu-h100-sxm/8gpu-128vcpu-1600gb",
        "gpufabric_fabric": "infiniband",
        "gpufabric_encryption": "none",
        "gpufabric_topology_source": "inventory",
    },
}
CLUSTER = {"azure-ndv5-h200": "ndv5-h200"}  # clusterName; else the stack name
# stacks whose discovery files carry the leaf (topology) of every node
WITH_LEAVES = {("aws-h100", ()), ("gcp-a3-mega", ()), ("gcp-a3-ultra", ()), ("nebius-h100", ())}


def _ip(i: int, subnet: str = "") -> str:
    """Node i's address; inside `subnet` where the stack's outputs list its nodes' subnet."""
    if subnet:
        return str(ipaddress.IPv4Network(subnet).network_address + 10 + i)
    return f"10.0.{i // 200}.{10 + i % 200}"


def discovery_files(
    outputs: dict[str, Any], leaves: bool, tmp: Path
) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Saved CLI output for the stack's nodes plus nodes that must be left out; returns the
    file names and the expected hostvars of each host."""
    cluster, files, expected = outputs["cluster"], [], {}
    for g, group in enumerate(outputs["nodes"]["groups"]):
        names = [f"{group['name']}-{i:04d}" for i in range(group["count"])]
        if cluster["cloud"] == "aws":
            ids = group["members"] or [f"i-{g:02d}{i:015x}" for i in range(group["count"])]
            asg = group["name"] if group["kind"] == "autoscaling-group" else ""
            insts = [
                cli_json.aws_instance(
                    iid, _ip(i), asg=asg, itype=cluster["instanceType"], zone=cluster["zone"]
                )
                for i, iid in enumerate(ids)
            ]
            insts += [
                cli_json.aws_instance("i-0stopped0000000", "10.9.0.1", asg=asg, state="stopped"),
                cli_json.aws_instance("i-0other00000000", "10.9.0.2", asg="other-asg"),
            ]
            files.append(("describe-instances.json", cli_json.aws_describe_instances(*insts)))
            if leaves:
                files.append(
                    (
                        "describe-instance-topology.json",
                        {
                            "Instances": [
                                {
                                    "InstanceId": iid,
                                    "InstanceType": cluster["instanceType"],
                                    "AvailabilityZone": cluster["zone"],
                                    "ZoneId": "use1-az1",
                                    "NetworkNodes": [
                                        "nn-top",
                                        f"nn-mid{i // 8}",
                                        f"nn-leaf{i // 4}",
                                    ],
                                }
                                for i, iid in enumerate(ids)
                            ]
                        },
                    )
                )
            for i, iid in enumerate(ids):
                hv = {
                    "ansible_host": _ip(i),
                    "gpufabric_instance_id": iid,
                    "gpufabric_node_group": group["name"],
                }
                if leaves:
                    hv["gpufabric_leaf"] = f"nn-leaf{i // 4}"
                expected[f"ip-{_ip(i).replace('.', '-')}"] = hv
        elif cluster["cloud"] == "gcp":
            names = group["members"] or [f"{group['name']}-x{i:03d}" for i in range(group["count"])]
            mig = group["name"] if group["kind"] == "managed-instance-group" else ""
            common = {
                "zone": cluster["zone"],
                "project": cluster["project"],
                "machine": cluster["instanceType"],
            }
            insts = [
                cli_json.gcp_instance(
                    n,
                    _ip(i),
                    mig=mig,
                    number=i,
                    **common,
                    topology={"cluster": "c1", "block": f"b{i // 8}", "subblock": f"s{i // 4}"}
                    if leaves
                    else None,
                )
                for i, n in enumerate(names)
            ]
            insts += [
                cli_json.gcp_instance(
                    "stopped-node", "10.9.0.1", mig=mig or "x", status="TERMINATED", **common
                ),
                cli_json.gcp_instance(
                    names[0], "10.9.0.3", zone="us-east1-b", project=cluster["project"], mig=mig
                ),
            ]
            files.append(("instances.json", insts))
            for i, n in enumerate(names):
                hv = {
                    "ansible_host": _ip(i),
                    "gpufabric_instance_id": str(7000000000000000000 + i),
                    "gpufabric_node_group": group["name"],
                }
                if leaves:
                    hv["gpufabric_leaf"] = f"c1/b{i // 8}/s{i // 4}"
                expected[n] = hv
        elif cluster["cloud"] == "oci":
            zone = cluster["zone"]
            ids = [f"ocid1.instance.oc1.iad.node{i:04d}" for i in range(group["count"])]
            names = [f"inst-{i:04d}-{group['name']}" for i in range(group["count"])]
            pool = [
                cli_json.oci_pool_instance(iid, n, zone=zone)
                for iid, n in zip(ids, names, strict=True)
            ]
            pool.append(
                cli_json.oci_pool_instance(
                    "ocid1.instance.oc1.iad.off", "inst-off", zone=zone, state="Stopped"
                )
            )
            atts = [
                cli_json.oci_vnic_attachment(iid, f"ocid1.vnic.oc1.iad.v{i:04d}", zone=zone)
                for i, iid in enumerate(ids)
            ]
            files += [
                ("pool-instances.json", {"data": pool}),
                ("vnic-attachments.json", {"data": atts}),
            ]
            files += [
                (f"vnic-{i:04d}.json", cli_json.oci_vnic(f"ocid1.vnic.oc1.iad.v{i:04d}", _ip(i)))
                for i in range(group["count"])
            ]
            for i, (iid, n) in enumerate(zip(ids, names, strict=True)):
                expected[n] = {
                    "ansible_host": _ip(i),
                    "gpufabric_instance_id": iid,
                    "gpufabric_node_group": group["name"],
                }
        elif cluster["cloud"] == "nebius":
            insts = [
                cli_json.nebius_instance(
                    n,
                    _ip(i),
                    project=cluster["project"],
                    gpu_cluster=group["id"],
                    path=["root", f"spine{i // 8}", f"leaf{i // 4}"] if leaves else None,
                )
                for i, n in enumerate(group["members"])
            ]
            insts += [
                cli_json.nebius_instance(
                    "bastion", "10.9.0.1", project=cluster["project"], gpu_cluster=None
                ),
                cli_json.nebius_instance(
                    f"{group['members'][0]}-old",
                    "10.9.0.2",
                    project=cluster["project"],
                    gpu_cluster=group["id"],
                    state="STOPPED",
                ),
            ]
            files.append(("instances.json", {"items": insts}))
            for i, n in enumerate(group["members"]):
                hv = {
                    "ansible_host": _ip(i),
                    "gpufabric_instance_id": f"computeinstance-{n}",
                    "gpufabric_node_group": group["name"],
                }
                if leaves:
                    hv["gpufabric_leaf"] = f"leaf{i // 4}"
                expected[n] = hv
        else:
            rg = cluster["resourceGroup"]
            subnet = outputs["network"]["subnetCidrs"]["compute"]
            nics = [
                cli_json.azure_nic(rg, group["name"], i, _ip(i, subnet))
                for i in range(group["count"])
            ]
            nics.append(cli_json.azure_nic("another-rg", group["name"], 99, "10.9.0.1"))
            files.append((f"vmss-nics-{g}.json", nics))
            for i in range(group["count"]):
                expected[f"{group['name']}_{i}"] = {
                    "ansible_host": _ip(i, subnet),
                    "gpufabric_node_group": group["name"],
                    "gpufabric_partition": group["partition"],
                }
    for name, doc in files:
        (tmp / name).write_text(json.dumps(doc, indent=2))
    return [name for name, _ in files], expected


def ansible_inventory(source: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ANSIBLE_INVENTORY, "-i", str(source), "--list"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def plain(value: Any) -> Any:
    """ansible-inventory marks inventory strings unsafe ({"__ansible_unsafe": ...})."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


@pytest.mark.parametrize(
    ("stack", "overrides"), list(EXPECTED), ids=[" ".join((s, *o)) for s, o in EXPECTED]
)
def test_every_stack_has_an_inventory(
    stack: str, overrides: tuple[str, ...], tmp_path: Path
) -> None:
    outputs = plan_for(stack, *overrides).outputs
    (tmp_path / "outputs.json").write_text(json.dumps(outputs, indent=2))
    files, expected_hosts = discovery_files(outputs, (stack, overrides) in WITH_LEAVES, tmp_path)
    source = tmp_path / f"{stack}.gpufabric_pulumi.yml"
    source.write_text(
        "plugin: gpufabric_pulumi\noutputs_file: outputs.json\n"
        f"discovery_file: {json.dumps(files)}\n"
    )
    proc = ansible_inventory(source)
    assert proc.returncode == 0, proc.stderr
    listed = plain(json.loads(proc.stdout))
    cluster = CLUSTER.get(stack, stack)
    group_vars = {
        **EXPECTED[(stack, overrides)],
        "gpufabric_cluster": cluster,
        "gpufabric_stack": stack,
    }
    hosts = sorted(expected_hosts)
    assert listed["gpu_nodes"]["hosts"] == hosts
    assert listed[f"cluster_{cluster.replace('-', '_')}"]["hosts"] == hosts
    assert len(hosts) == plan_for(stack, *overrides).config.nodes
    for host, hostvars in expected_hosts.items():
        assert listed["_meta"]["hostvars"][host] == {**group_vars, **hostvars}, host
    # a member that is not running is named in a warning; nodes of other groups, zones or
    # resource groups are not this stack's
    kinds = {g["kind"] for g in outputs["nodes"]["groups"]}
    if kinds & {"autoscaling-group", "managed-instance-group", "cluster-network"}:
        stopped = {"autoscaling-group": "i-0stopped0000000", "cluster-network": "inst-off"}.get(
            next(iter(kinds)), "stopped-node"
        )
        assert f"{stopped} (" in proc.stderr and "left out" in proc.stderr
    assert "10.9.0." not in json.dumps(listed["_meta"]["hostvars"])


@pytest.mark.parametrize("stack", ["oci-h100", "nebius-h100"])
def test_oci_and_nebius_inventories_feed_tune_fabric(stack: str, tmp_path: Path) -> None:
    """The inventory built from the stack's outputs and saved CLI output passes tune-fabric's
    preflight (its switches are valid) and the play then reaches for every node (pointed at a
    closed loopback port here: no traffic leaves this machine)."""
    outputs = plan_for(stack).outputs
    (tmp_path / "outputs.json").write_text(json.dumps(outputs))
    files, expected = discovery_files(outputs, (stack, ()) in WITH_LEAVES, tmp_path)
    source = tmp_path / f"{stack}.gpufabric_pulumi.yml"
    source.write_text(
        "plugin: gpufabric_pulumi\noutputs_file: outputs.json\n"
        f"discovery_file: {json.dumps(files)}\n"
    )
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-playbook"),
            "-i",
            str(source),
            "playbooks/tune-fabric.yml",
            "-e",
            "ansible_host=127.0.0.1",
            "-e",
            "ansible_port=1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    fabric = EXPECTED[(stack, ())]["gpufabric_fabric"]
    assert (
        f"preflight: {len(expected)} host(s) in 'gpu_nodes', fabric {fabric}, encryption none"
        in proc.stdout
    ), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "UNREACHABLE" in proc.stdout
    recap = proc.stdout.split("PLAY RECAP")[-1]
    assert all(f"{host} " in recap for host in expected)
