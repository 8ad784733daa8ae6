"""OCI stack config: every bad value is one line naming the key; good values parse."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.config import parse
from gpufabric.errors import ConfigError

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFMWp3s4NJdNa6ti+9HIIEOmZQzdt5n/GoatO3rtzRpH test"
COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaaexamplecompartment"
IMAGE = "ocid1.image.oc1.iad.aaaaaaaaexampleimage"
ISLAND = "ocid1.computehpcisland.oc1.iad.aaaaaaaaexampleisland"
OCI = {"compartmentId": COMPARTMENT, "imageId": IMAGE, "sshPublicKey": KEY}
LUSTRE = {"type": "oci-lustre", "capacityGb": 31200, "performanceTier": "MBPS_PER_TB_125"}
AD = "Uocm:US-ASHBURN-AD-1"
BASE: dict[str, Any] = {
    "oci:region": "us-ashburn-1",
    "gpufabric:instanceType": "BM.GPU.H100.8",
    "gpufabric:nodes": 16,
    "gpufabric:zone": AD,
    "gpufabric:encryption": "none",
    "gpufabric:oci": OCI,
    "gpufabric:storage": LUSTRE,
}
RES = "ocid1.capacityreservation.oc1.iad.aaaaaaaaexamplereservation"

BAD: list[tuple[str, dict[str, Any], str, str]] = [
    # (case, override, key named, words in the message)
    ("shape typo", {"gpufabric:instanceType": "BM.GPU.H100.4"}, "gpufabric:instanceType", "did you mean 'BM.GPU.H100.8'"),
    ("provider-native encryption", {"gpufabric:encryption": "provider-native"}, "gpufabric:encryption", "not known to encrypt"),
    ("subnet outside the VCN", {"gpufabric:network": {"cidr": "10.0.0.0/16", "fabricSubnet": "10.9.0.0/18"}}, "gpufabric:network.fabricSubnet", "must lie inside gpufabric:network.cidr"),
    ("subnets overlap", {"gpufabric:network": {"storageSubnet": "10.0.0.0/24"}}, "gpufabric:network.storageSubnet", "overlaps the fabric subnet"),
    ("lustre in another AD", {"gpufabric:storage": {**LUSTRE, "availabilityDomain": "Uocm:US-ASHBURN-AD-2"}}, "gpufabric:storage.availabilityDomain", "nodes' availability domain"),
    ("nodes beyond the cluster network limit", {"gpufabric:oci": {**OCI, "maxClusterNetworkNodes": 8}}, "gpufabric:nodes", "at most 8 nodes"),
    ("limit zero", {"gpufabric:oci": {**OCI, "maxClusterNetworkNodes": 0}}, "gpufabric:oci.maxClusterNetworkNodes", "greater than or equal to 1"),
    ("network blocks without an island", {"gpufabric:oci": {**OCI, "networkBlockIds": [ISLAND]}}, "gpufabric:oci.networkBlockIds", "hpcIslandId"),
    ("network block twice", {"gpufabric:oci": {**OCI, "hpcIslandId": ISLAND, "networkBlockIds": [ISLAND, ISLAND]}}, "gpufabric:oci.networkBlockIds", "twice"),
    ("island not an OCID", {"gpufabric:oci": {**OCI, "hpcIslandId": "island-1"}}, "gpufabric:oci.hpcIslandId", "an OCID"),
    ("compartment missing", {"gpufabric:oci": {"imageId": IMAGE, "sshPublicKey": KEY}}, "gpufabric:oci.compartmentId", "not set; required: the compartment OCID"),
    ("compartment is an image", {"gpufabric:oci": {**OCI, "compartmentId": IMAGE}}, "gpufabric:oci.compartmentId", "ocid1.compartment"),
    ("image missing", {"gpufabric:oci": {"compartmentId": COMPARTMENT, "sshPublicKey": KEY}}, "gpufabric:oci.imageId", "not set; required: the GPU image OCID"),
    ("ssh key with a newline", {"gpufabric:oci": {**OCI, "sshPublicKey": KEY + "\nssh-rsa AAAA x"}}, "gpufabric:oci.sshPublicKey", "one OpenSSH public key"),
    ("zone is a GCP zone", {"gpufabric:zone": "us-east1-b"}, "gpufabric:zone", "availability domain name"),
    ("AD of another region", {"gpufabric:zone": "Uocm:EU-FRANKFURT-1-AD-1"}, "gpufabric:zone", "not in the stack's region us-ashburn-1"),
    ("region misspelt", {"oci:region": "US Ashburn"}, "oci:region", "like us-ashburn-1"),
    ("capacity block", {"gpufabric:capacity": {"type": "capacity-block", "reservationId": RES}}, "gpufabric:capacity.type", "capacity blocks are AWS"),
    ("reservation id from AWS", {"gpufabric:capacity": {"type": "reservation", "reservationId": "cr-0123456789abcdef0"}}, "gpufabric:capacity.reservationId", "capacity reservation OCID"),
    ("individual instances", {"gpufabric:nodeGroup": "instances"}, "gpufabric:nodeGroup", "cluster network"),
    ("lustre off-step", {"gpufabric:storage": {**LUSTRE, "capacityGb": 40000}}, "gpufabric:storage.capacityGb", "steps of 10400"),
    ("lustre too small", {"gpufabric:storage": {**LUSTRE, "capacityGb": 20800}}, "gpufabric:storage.capacityGb", "31200 GB"),
    ("lustre subnet too small for 998.4 TB", {"gpufabric:storage": {**LUSTRE, "capacityGb": 998400}}, "gpufabric:network.storageSubnet", "up to 600 addresses (60 per 100 TB), this subnet has 253; use a /22"),
    ("lustre large off-step", {"gpufabric:storage": {**LUSTRE, "capacityGb": 135200}}, "gpufabric:storage.capacityGb", "41600"),
    ("lustre tier", {"gpufabric:storage": {**LUSTRE, "performanceTier": "MBPS_PER_TB_2000"}}, "gpufabric:storage.performanceTier", "MBPS_PER_TB_1000"),
    ("lustre name too long", {"gpufabric:storage": {**LUSTRE, "fileSystemName": "checkpoints"}}, "gpufabric:storage.fileSystemName", "1-8"),
    ("lustre mount point relative", {"gpufabric:storage": {**LUSTRE, "mountPoint": "lustre"}}, "gpufabric:storage.mountPoint", "absolute"),
    ("lustre key from AWS", {"gpufabric:storage": {**LUSTRE, "kmsKeyId": "alias/x"}}, "gpufabric:storage.kmsKeyId", "Vault key OCID"),
    ("fsx on oci", {"gpufabric:storage": {"type": "fsx-lustre"}}, "gpufabric:storage.type", "oci-lustre or none"),
    ("endpoints egress", {"gpufabric:network": {"egress": "endpoints"}}, "gpufabric:network.egress", "NAT gateway"),
    ("aws kms key on oci", {"gpufabric:rootVolume": {"kmsKeyId": "alias/x"}}, "gpufabric:rootVolume.kmsKeyId", "Oracle-managed"),
    ("aws section on oci", {"gpufabric:aws": {"efaLayout": "ena-primary"}}, "gpufabric:aws", "use gpufabric:oci"),
    ("nebius section on oci", {"gpufabric:nebius": {"projectId": "project-e00abc123"}}, "gpufabric:nebius", "use gpufabric:oci"),
    ("unknown oci key", {"gpufabric:oci": {**OCI, "hpcIsland": ISLAND}}, "gpufabric:oci.hpcIsland", "xtra"),
    ("nodes NaN", {"gpufabric:nodes": float("nan")}, "gpufabric:nodes", "integer"),
    ("checkpoint goal beyond a fixed tier's reach", {"gpufabric:storage": {**LUSTRE, "performanceTier": "MBPS_PER_TB_125", "capacityGb": 31200, "checkpoint": {"sizeGiB": 2048, "writeSeconds": 60}}}, "gpufabric:storage.capacityGb", "rates at most"),
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


def test_good_config_parses() -> None:
    cfg = parse(BASE, "oci-test")
    assert cfg.region == "us-ashburn-1" and cfg.zone == AD
    assert cfg.oci.compartment_id == COMPARTMENT


@pytest.mark.parametrize("capacity", [31200, 41600, 124800, 166400, 208000])
def test_lustre_capacity_steps(capacity: int) -> None:
    cfg = parse({**BASE, "gpufabric:storage": {**LUSTRE, "capacityGb": capacity}}, "t")
    assert cfg.storage.type == "oci-lustre"


def test_old_style_ad_name_passes_any_region() -> None:
    cfg = parse({**BASE, "oci:region": "us-phoenix-1", "gpufabric:zone": "Uocm:PHX-AD-1"}, "t")
    assert cfg.zone == "Uocm:PHX-AD-1"


def test_oci_section_on_an_aws_stack_is_refused() -> None:
    raw = {
        "aws:region": "us-east-1",
        "gpufabric:instanceType": "p5.48xlarge",
        "gpufabric:nodes": 2,
        "gpufabric:zone": "us-east-1a",
        "gpufabric:encryption": "provider-native",
        "gpufabric:oci": OCI,
    }
    with pytest.raises(ConfigError, match=r"^gpufabric:oci: .*use gpufabric:aws"):
        parse(raw, "t")


def test_storage_path_of_oci_and_nebius_nodes_is_unknown_not_a_crash() -> None:
    from gpufabric.catalog import lookup
    from gpufabric.storage.network import node_path

    assert node_path(lookup("BM.GPU.H100.8")) is None
    assert node_path(lookup("gpu-h100-sxm/8gpu-128vcpu-1600gb")) is None


def test_a_lustre_subnet_sized_for_the_file_system_parses() -> None:
    from gpufabric.clouds.oci.rules import lustre_addresses

    assert lustre_addresses(31200) == 19 and lustre_addresses(998400) == 600
    net = {"storageSubnet": "10.0.68.0/22"}
    raw = {**BASE, "gpufabric:network": net, "gpufabric:storage": {**LUSTRE, "capacityGb": 998400}}
    assert parse(raw, "t").network.storage_subnet == "10.0.68.0/22"
