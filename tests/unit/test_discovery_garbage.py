"""Inventory from garbage: saved cloud CLI output whose names, addresses or ids no inventory can
hold is refused naming the node and the field; nodes of another network, compartment, shape or
availability domain, and a second node of one name, are left out with a warning naming them.
The hostile values are constructed for these tests, in the real CLIs' shapes (tests/unit/
cli_json.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs, parse

ZONE = "Uocm:US-ASHBURN-AD-1"
CYRILLIC_O = "\u043e"  # looks like Latin 'o'


def _oci(tmp: Path, nodes: list[dict[str, Any]]) -> list[Path]:
    """OCI CLI files for `nodes` (each: name, ip, and optional id / pool-entry overrides)."""
    pool, atts, files = [], [], []
    for i, node in enumerate(nodes):
        iid = node.get("id", f"ocid1.instance.oc1.iad.node{i:04d}")
        entry = cli_json.oci_pool_instance(iid, node["name"], zone=ZONE)
        entry.update(node.get("pool", {}))
        pool.append(entry)
        vnic = f"ocid1.vnic.oc1.iad.v{i:04d}"
        atts.append(cli_json.oci_vnic_attachment(str(iid), vnic, zone=ZONE))
        path = tmp / f"vnic-{i}.json"
        path.write_text(json.dumps(cli_json.oci_vnic(vnic, node["ip"])))
        files.append(path)
    (tmp / "pool.json").write_text(json.dumps({"data": pool}))
    (tmp / "atts.json").write_text(json.dumps({"data": atts}))
    return [tmp / "pool.json", tmp / "atts.json", *files]


def _outputs(stack: str) -> StackOutputs:
    return parse(plan_for(stack).outputs)


GOOD = {"name": "inst-good", "ip": "10.0.0.20"}


@pytest.mark.parametrize("address", ["10.0.0.999", "nan", "not-an-ip/32", "0.0.0.0"])
def test_an_address_no_host_has_is_refused(tmp_path: Path, address: str) -> None:
    files = _oci(tmp_path, [GOOD, {"name": "inst-bad", "ip": address}])
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("oci-h100"), files)
    message = str(err.value)
    assert "node 'inst-bad': address" in message and repr(address) in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "name", ["x;reboot", "nebius-h100-1\nrm -rf /", f"gpu-n{CYRILLIC_O}de-1", "a b"]
)
def test_a_name_no_inventory_can_hold_is_refused(tmp_path: Path, name: str) -> None:
    files = _oci(tmp_path, [GOOD, {"name": name, "ip": "10.0.0.21"}])
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("oci-h100"), files)
    assert f"node {name!r}: name" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_nebius_name_with_a_newline_is_refused(tmp_path: Path) -> None:
    outputs = _outputs("nebius-h100")
    group = outputs.nodes.groups[0]
    inst = cli_json.nebius_instance(
        "nebius-h100-1\nrm -rf /", "10.0.0.5", project="p", gpu_cluster=group.id
    )
    inst["metadata"]["id"] = "computeinstance-e00abc"
    path = tmp_path / "instances.json"
    path.write_text(json.dumps({"items": [inst]}))
    with pytest.raises(UserError, match=r"node 'nebius-h100-1\\nrm -rf /': name"):
        discovery.from_files(outputs, [path])


def test_an_address_outside_the_stack_network_is_left_out_by_name(tmp_path: Path) -> None:
    files = _oci(tmp_path, [GOOD, {"name": "inst-far", "ip": "10.1.0.5"}])
    found = discovery.from_files(_outputs("oci-h100"), files)
    assert [n.name for n in found.nodes] == ["inst-good"]
    assert any(
        "inst-far" in w and "10.1.0.5 is outside the stack's subnets" in w for w in found.warnings
    )


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ({"compartment-id": "ocid1.compartment.oc1..other"}, "compartment"),
        ({"shape": "BM.GPU.A100-v2.8"}, "shape BM.GPU.A100-v2.8"),
        ({"availability-domain": "Uocm:US-ASHBURN-AD-2"}, "availability domain"),
    ],
)
def test_oci_nodes_of_another_compartment_shape_or_domain_left_out(
    tmp_path: Path, override: dict[str, str], words: str
) -> None:
    files = _oci(tmp_path, [GOOD, {"name": "inst-other", "ip": "10.0.0.22", "pool": override}])
    found = discovery.from_files(_outputs("oci-h100"), files)
    assert [n.name for n in found.nodes] == ["inst-good"]
    assert any("inst-other" in w and words in w for w in found.warnings), found.warnings


@pytest.mark.parametrize(
    "iid", ["12345", 12345, "ocid1.vnic.oc1.iad.x", "ocid1.instance.oc1.phx.x"]
)
def test_an_oci_instance_id_that_is_not_one_is_refused(tmp_path: Path, iid: object) -> None:
    """An instance id `12345` made its host vanish; now the listing is refused, naming it."""
    files = _oci(tmp_path, [GOOD, {"name": "inst-odd", "ip": "10.0.0.23", "id": iid}])
    with pytest.raises(UserError) as err:
        discovery.from_files(_outputs("oci-h100"), files)
    assert "instance 'inst-odd': id" in str(err.value)


def test_a_second_node_of_one_name_is_named_not_dropped(tmp_path: Path) -> None:
    files = _oci(tmp_path, [GOOD, {"name": "inst-good", "ip": "10.0.0.24"}])
    found = discovery.from_files(_outputs("oci-h100"), files)
    assert [n.address for n in found.nodes] == ["10.0.0.20"]
    assert any(
        "ocid1.instance.oc1.iad.node0001 has the name of instance "
        "ocid1.instance.oc1.iad.node0000" in w
        for w in found.warnings
    ), found.warnings


def test_a_nebius_vm_of_another_shape_is_left_out(tmp_path: Path) -> None:
    outputs = _outputs("nebius-h100")
    group = outputs.nodes.groups[0]
    insts = [
        cli_json.nebius_instance(n, f"10.0.0.{10 + i}", project="p", gpu_cluster=group.id)
        for i, n in enumerate(group.members[:2])
    ]
    insts[1]["spec"]["resources"]["preset"] = "1gpu-16vcpu-200gb"
    path = tmp_path / "instances.json"
    path.write_text(json.dumps({"items": insts}))
    found = discovery.from_files(outputs, [path])
    assert [n.name for n in found.nodes] == [group.members[0]]
    assert any(group.members[1] in w and "1gpu-16vcpu-200gb" in w for w in found.warnings)


def test_a_gcp_instance_of_another_zone_is_not_taken_for_a_member_of_its_name() -> None:
    """GCP names are unique per zone only: the group's live member list names `n-1`, and an
    instance `n-1` of another zone (listed first) must not stand in for the stack's own."""
    from gpufabric.clouds.gcp import discovery as gcp

    out = _outputs("gcp-a3-ultra")
    mig, zone, project = out.nodes.groups[0].name, out.cluster.zone, "my-gpu-project"
    doc = [
        cli_json.gcp_instance("n-1", "10.0.0.9", zone="europe-west1-c", project=project, mig=mig),
        cli_json.gcp_instance("n-1", "10.0.0.2", zone=zone, project=project, mig=mig),
    ]
    found = gcp.match(out, [("i.json", doc)], members={mig: {"n-1"}})
    assert [(n.name, n.address) for n in found.nodes] == [("n-1", "10.0.0.2")]
    assert found.warnings == []


def test_an_oci_vnic_detached_from_the_instance_gives_no_address(tmp_path: Path) -> None:
    """A VNIC once attached (listed first, same nic index) holds an address the instance no
    longer has: only the ATTACHED one counts."""
    files = _oci(tmp_path, [GOOD])
    atts = json.loads((tmp_path / "atts.json").read_text())
    old = "ocid1.vnic.oc1.iad.detached"
    gone = cli_json.oci_vnic_attachment(
        "ocid1.instance.oc1.iad.node0000", old, zone=ZONE, state="DETACHED"
    )
    atts["data"].insert(0, gone)
    (tmp_path / "atts.json").write_text(json.dumps(atts))
    (tmp_path / "old.json").write_text(json.dumps(cli_json.oci_vnic(old, "10.0.0.50")))
    found = discovery.from_files(_outputs("oci-h100"), [*files, tmp_path / "old.json"])
    assert [(n.name, n.address) for n in found.nodes] == [("inst-good", "10.0.0.20")]
