"""storage-in-node-zone and encryption-at-rest."""

from __future__ import annotations

from gpufabric.policies import Resource, check_stack
from gpufabric.policies.storage import ENCRYPTION_AT_REST

from .helpers import by_policy, mutate, stack

ZONE = "storage-in-node-zone"
REST = "encryption-at-rest"
LT = "aws:ec2/launchTemplate:LaunchTemplate"


def test_fsx_in_another_zone_through_config_is_a_violation() -> None:
    found = by_policy(check_stack(stack("aws-h100", "gpufabric:storage.zone=us-east-1b")), ZONE)
    assert [v.resource for v in found] == ["aws:fsx/lustreFileSystem:LustreFileSystem aws-h100-fsx"]
    assert "us-east-1b" in found[0].reason and "us-east-1a" in found[0].reason


def test_fsx_in_the_nodes_zone_explicitly_passes() -> None:
    assert check_stack(stack("aws-h100", "gpufabric:storage.zone=us-east-1a")) == []


def test_gcp_lustre_in_another_zone_is_a_violation() -> None:
    view = mutate(
        stack("gcp-a3-mega"),
        "gcp:lustre/instance:Instance",
        lambda p: p.update(location="us-central1-b"),
    )
    assert len(by_policy(check_stack(view), ZONE)) == 1


def test_azure_lustre_in_another_zone_is_a_violation() -> None:
    view = mutate(
        stack("azure-ndv5"),
        "azure-native:storagecache:AmlFilesystem",
        lambda p: p.update(zones=["3"]),
    )
    found = by_policy(check_stack(view), ZONE)
    assert len(found) == 1 and "zone 3" in found[0].reason


def test_unencrypted_root_volume_is_a_violation() -> None:
    view = mutate(
        stack("aws-h100"),
        LT,
        lambda p: p["blockDeviceMappings"][0]["ebs"].update(encrypted="false"),
    )
    found = by_policy(check_stack(view), REST)
    assert [v.reason for v in found] == ["EBS volume /dev/sda1 is not encrypted"]


def test_template_without_block_devices_is_a_violation() -> None:
    view = mutate(stack("aws-h100"), LT, lambda p: p.pop("blockDeviceMappings"))
    assert len(by_policy(check_stack(view), REST)) == 1


def test_volumes_and_instances() -> None:
    def check(type_: str, props: dict) -> list[str]:
        return list(ENCRYPTION_AT_REST.check(Resource(type_, "r", "", props)))

    assert check("aws:ebs/volume:Volume", {"encrypted": True}) == []
    assert check("aws:ebs/volume:Volume", {}) == ["encrypted is not true"]
    assert check("aws:ec2/instance:Instance", {"launchTemplate": {"id": "lt"}}) == []
    assert check("aws:ec2/instance:Instance", {"rootBlockDevice": {"encrypted": False}}) == [
        "rootBlockDevice is not encrypted"
    ]
    # FSx, GCP and Azure encrypt at rest with no switch: nothing to report
    assert check("aws:fsx/lustreFileSystem:LustreFileSystem", {}) == []


def _lines(view) -> list[str]:  # type: ignore[no-untyped-def]
    return [v.line() for v in check_stack(view)]


def test_oci_lustre_in_another_ad_fails() -> None:
    view = mutate(
        stack("oci-h100"),
        "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem",
        lambda p: p.update(availabilityDomain="Uocm:US-ASHBURN-AD-2"),
    )
    assert any("US-ASHBURN-AD-2" in line for line in _lines(view)), _lines(view)
