"""OCI node discovery from the saved CLI output OCI prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.pulumi.plans import plan_for
from tests.unit import cli_json

from gpufabric import discovery
from gpufabric.errors import UserError
from gpufabric.stack_outputs import parse

ZONE = "Uocm:US-ASHBURN-AD-1"


def _write(tmp: Path, name: str, doc: object) -> Path:
    path = tmp / name
    path.write_text(json.dumps(doc))
    return path


def _oci_files(tmp: Path, count: int) -> list[Path]:
    ids = [f"ocid1.instance.oc1.iad.node{i:04d}" for i in range(count)]
    pool = [
        cli_json.oci_pool_instance(iid, f"inst-{i:04d}-oci-h100-pool", zone=ZONE)
        for i, iid in enumerate(ids)
    ]
    pool.append(
        cli_json.oci_pool_instance(
            "ocid1.instance.oc1.iad.gone", "inst-gone", zone=ZONE, state="Terminated"
        )
    )
    atts = [
        cli_json.oci_vnic_attachment(iid, f"ocid1.vnic.oc1.iad.v{i:04d}", zone=ZONE)
        for i, iid in enumerate(ids)
    ]
    files = [
        _write(tmp, "pool.json", {"data": pool}),
        _write(tmp, "attachments.json", {"data": atts}),
    ]
    files += [
        _write(
            tmp,
            f"vnic-{i}.json",
            cli_json.oci_vnic(f"ocid1.vnic.oc1.iad.v{i:04d}", f"10.0.0.{10 + i}"),
        )
        for i in range(count)
    ]
    return files


def test_oci_pool_instances_with_their_primary_vnic_addresses(tmp_path: Path) -> None:
    outputs = parse(plan_for("oci-h100").outputs)
    found = discovery.from_files(outputs, _oci_files(tmp_path, 16))
    assert len(found.nodes) == 16
    first = found.nodes[0]
    assert first.name == "inst-0000-oci-h100-pool" and first.address == "10.0.0.10"
    assert any("inst-gone" in w and "Terminated" in w for w in found.warnings)


def test_oci_without_vnics_is_one_clear_line(tmp_path: Path) -> None:
    outputs = parse(plan_for("oci-h100").outputs)
    files = _oci_files(tmp_path, 2)[:2]  # no VNIC files
    with pytest.raises(UserError, match="no running node of stack oci-h100"):
        discovery.from_files(outputs, files)


def test_oci_vnics_merged_into_one_file(tmp_path: Path) -> None:
    """deploy-oci.md merges the `oci network vnic get` answers with jq into {data: [...]}."""
    outputs = parse(plan_for("oci-h100").outputs)
    files = _oci_files(tmp_path, 3)
    merged = {"data": [json.loads(p.read_text())["data"] for p in files[2:]]}
    found = discovery.from_files(outputs, [*files[:2], _write(tmp_path, "vnics.json", merged)])
    assert [n.address for n in found.nodes] == ["10.0.0.10", "10.0.0.11", "10.0.0.12"]


def test_a_file_of_another_cloud_is_named(tmp_path: Path) -> None:
    outputs = parse(plan_for("nebius-h100").outputs)
    aws = _write(tmp_path, "aws.json", {"Reservations": []})
    with pytest.raises(UserError, match="looks like `aws ec2 describe-instances"):
        discovery.from_files(outputs, [aws])
    oci = _write(tmp_path, "garbage.json", {"data": [{"what": 1}]})
    with pytest.raises(UserError, match="not OCI CLI output I know"):
        discovery.from_files(parse(plan_for("oci-h100").outputs), [oci])
