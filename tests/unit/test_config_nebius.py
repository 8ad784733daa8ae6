"""Nebius stack config: every bad value is one line naming the key; good values parse."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.config import parse
from gpufabric.errors import ConfigError

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFMWp3s4NJdNa6ti+9HIIEOmZQzdt5n/GoatO3rtzRpH test"
NEB = {"projectId": "project-e00abc123", "infinibandFabric": "fabric-3", "sshPublicKey": KEY}
FS = {"type": "nebius-filesystem", "filesystemType": "NETWORK_SSD", "sizeGib": 10240}
BASE: dict[str, Any] = {
    "gpufabric:instanceType": "gpu-h100-sxm/8gpu-128vcpu-1600gb",
    "gpufabric:nodes": 16,
    "gpufabric:zone": "eu-north1",
    "gpufabric:encryption": "none",
    "gpufabric:nodeGroup": "instances",
    "gpufabric:network": {"egress": "none"},
    "gpufabric:nebius": NEB,
    "gpufabric:storage": FS,
}

BAD: list[tuple[str, dict[str, Any], str, str]] = [
    # (case, override, key named, words in the message)
    ("preset typo", {"gpufabric:instanceType": "gpu-h100-sxm/8gpu-128vcpu-1600g"}, "gpufabric:instanceType", "did you mean 'gpu-h100-sxm/8gpu-128vcpu-1600gb'"),
    ("platform alone", {"gpufabric:instanceType": "gpu-h100-sxm"}, "gpufabric:instanceType", "known types"),
    ("provider-native encryption", {"gpufabric:encryption": "provider-native"}, "gpufabric:encryption", "not known to encrypt"),
    ("subnet outside the VPC", {"gpufabric:network": {"egress": "none", "fabricSubnet": "10.9.0.0/18"}}, "gpufabric:network.fabricSubnet", "must lie inside gpufabric:network.cidr"),
    ("subnet too small", {"gpufabric:network": {"egress": "none", "fabricSubnet": "10.0.0.0/28"}}, "gpufabric:network.fabricSubnet", "too small for 16 nodes"),
    ("zone below a region", {"gpufabric:zone": "eu-north1-a"}, "gpufabric:zone", "Nebius region"),
    ("fabric of another region", {"gpufabric:zone": "us-central1"}, "gpufabric:nebius.infinibandFabric", "this fabric is in eu-north1"),
    ("fabric missing where H100 has four", {"gpufabric:nebius": {"projectId": "project-e00abc123", "sshPublicKey": KEY}}, "gpufabric:nebius.infinibandFabric", "several fabrics (fabric-2, fabric-3, fabric-4, fabric-6)"),
    ("H200 VMs on an H100 fabric", {"gpufabric:instanceType": "gpu-h200-sxm/8gpu-128vcpu-1600gb"}, "gpufabric:nebius.infinibandFabric", "holds gpu-h100-sxm VMs, not gpu-h200-sxm; gpu-h200-sxm in eu-north1: fabric-7"),
    ("B200 VMs on an H200 fabric", {"gpufabric:zone": "us-central1", "gpufabric:instanceType": "gpu-b200-sxm/8gpu-160vcpu-1792gb", "gpufabric:nebius": {**NEB, "infinibandFabric": "us-central1-a"}}, "gpufabric:nebius.infinibandFabric", "holds gpu-h200-sxm VMs, not gpu-b200-sxm; gpu-b200-sxm in us-central1: us-central1-b"),
    ("no fabric known for the platform there", {"gpufabric:zone": "eu-west1", "gpufabric:nebius": {"projectId": "project-e00abc123", "sshPublicKey": KEY}}, "gpufabric:nebius.infinibandFabric", "no published fabric holds gpu-h100-sxm in eu-west1"),
    ("publicIp as a string", {"gpufabric:nebius": {**NEB, "publicIp": "yes"}}, "gpufabric:nebius.publicIp", "boolean"),
    ("publicIp as a number", {"gpufabric:nebius": {**NEB, "publicIp": 1}}, "gpufabric:nebius.publicIp", "boolean"),
    ("fabric with spaces", {"gpufabric:nebius": {**NEB, "infinibandFabric": "fabric 3"}}, "gpufabric:nebius.infinibandFabric", "fabric name"),
    ("project missing", {"gpufabric:nebius": {"infinibandFabric": "fabric-3", "sshPublicKey": KEY}}, "gpufabric:nebius.projectId", "not set; required: the project that owns"),
    ("project not an id", {"gpufabric:nebius": {**NEB, "projectId": "my-project"}}, "gpufabric:nebius.projectId", "project-e00abc123"),
    ("ssh key missing", {"gpufabric:nebius": {"projectId": "project-e00abc123", "infinibandFabric": "fabric-3"}}, "gpufabric:nebius.sshPublicKey", "not set; required: the admin public key"),
    ("ssh key binary", {"gpufabric:nebius": {**NEB, "sshPublicKey": "\x00\x01"}}, "gpufabric:nebius.sshPublicKey", "OpenSSH public key"),
    ("admin root", {"gpufabric:nebius": {**NEB, "adminUsername": "root"}}, "gpufabric:nebius.adminUsername", "other than root"),
    ("group mode", {"gpufabric:nodeGroup": "group"}, "gpufabric:nodeGroup", "use instances"),
    ("nat egress", {"gpufabric:network": {"egress": "nat"}}, "gpufabric:network.egress", "no NAT"),
    ("capacity block", {"gpufabric:capacity": {"type": "capacity-block", "reservationId": "cbg-1"}}, "gpufabric:capacity.type", "capacity blocks are AWS"),
    ("reservation id with spaces", {"gpufabric:capacity": {"type": "reservation", "reservationId": "my reservation"}}, "gpufabric:capacity.reservationId", "capacity block group"),
    ("filesystem type", {"gpufabric:storage": {**FS, "filesystemType": "LUSTRE"}}, "gpufabric:storage.filesystemType", "WEKA"),
    ("block size not a power of two", {"gpufabric:storage": {**FS, "blockSizeBytes": 5000}}, "gpufabric:storage.blockSizeBytes", "power of two"),
    ("block size too large", {"gpufabric:storage": {**FS, "blockSizeBytes": 262144}}, "gpufabric:storage.blockSizeBytes", "131072"),
    ("filesystem empty", {"gpufabric:storage": {**FS, "sizeGib": 0}}, "gpufabric:storage.sizeGib", "at least 1 GiB"),
    ("mount tag upper case", {"gpufabric:storage": {**FS, "mountTag": "Shared"}}, "gpufabric:storage.mountTag", "lowercase"),
    ("mount point root", {"gpufabric:storage": {**FS, "mountPoint": "/"}}, "gpufabric:storage.mountPoint", "other than /"),
    ("lustre on nebius", {"gpufabric:storage": {"type": "oci-lustre"}}, "gpufabric:storage.type", "nebius-filesystem or none"),
    ("aws kms key", {"gpufabric:rootVolume": {"kmsKeyId": "alias/x"}}, "gpufabric:rootVolume.kmsKeyId", "does not apply on Nebius"),
    ("oci section on nebius", {"gpufabric:oci": {"compartmentId": "ocid1.compartment.oc1..aaaa"}}, "gpufabric:oci", "use gpufabric:nebius"),
    ("unknown nebius key", {"gpufabric:nebius": {**NEB, "fabric": "fabric-3"}}, "gpufabric:nebius.fabric", "xtra"),
    ("checkpoint goal", {"gpufabric:storage": {**FS, "checkpoint": {"sizeGiB": 2048, "writeSeconds": 60}}}, "gpufabric:storage.checkpoint", "no throughput table"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "override", "key", "words"), BAD, ids=[b[0] for b in BAD])
def test_bad_value_names_the_key(case: str, override: dict[str, Any], key: str, words: str) -> None:
    raw = {k: v for k, v in {**BASE, **override}.items() if v is not None}
    with pytest.raises(ConfigError) as err:
        parse(raw, "test")
    message = str(err.value)
    assert message.startswith(f"{key}:"), message
    assert words in message, message
    assert "\n" not in message


def test_good_config_parses_and_the_zone_is_the_region() -> None:
    cfg = parse(BASE, "nebius-test")
    assert cfg.region == cfg.zone == "eu-north1"
    assert cfg.nebius.infiniband_fabric == "fabric-3"


def test_unknown_fabric_names_pass() -> None:
    nebius = {**NEB, "infinibandFabric": "fabric-42"}
    cfg = parse({**BASE, "gpufabric:nebius": nebius}, "t")
    assert cfg.nebius.infiniband_fabric == "fabric-42"


@pytest.mark.parametrize(
    ("instance_type", "zone", "fabric"),
    [
        ("gpu-h200-sxm/8gpu-128vcpu-1600gb", "eu-north1", "fabric-7"),
        ("gpu-h200-sxm/8gpu-128vcpu-1600gb", "eu-west1", "fabric-5"),
        ("gpu-h200-sxm/8gpu-128vcpu-1600gb", "us-central1", "us-central1-a"),
        ("gpu-b200-sxm/8gpu-160vcpu-1792gb", "us-central1", "us-central1-b"),
    ],
)
def test_an_unset_fabric_is_the_only_one_for_the_platform_there(
    instance_type: str, zone: str, fabric: str
) -> None:
    from gpufabric.clouds.nebius import facts
    from gpufabric.clouds.nebius.fabrics import fabric_for

    neb = {"projectId": "project-e00abc123", "sshPublicKey": KEY}
    raw = {**BASE, "gpufabric:instanceType": instance_type, "gpufabric:zone": zone}
    cfg = parse({**raw, "gpufabric:nebius": neb}, "t")
    assert fabric_for(cfg, facts.of(cfg.instance).platform) == fabric


def test_public_ip_takes_booleans() -> None:
    assert parse({**BASE, "gpufabric:nebius": {**NEB, "publicIp": True}}, "t").nebius.public_ip


@pytest.mark.parametrize("zone", [None, ""])
def test_no_region_names_the_zone_key(zone: str | None) -> None:
    raw = {k: v for k, v in BASE.items() if k != "gpufabric:zone"}
    if zone is not None:
        raw["gpufabric:zone"] = zone
    with pytest.raises(ConfigError, match=r"^gpufabric:zone: .*required on Nebius: the region"):
        parse(raw, "t")
