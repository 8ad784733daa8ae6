"""Azure stack config: every bad value is one line naming the key; good values parse."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.clouds.azure.partitions import partitions, scale_set_sizes
from gpufabric.config import parse
from gpufabric.errors import ConfigError
from gpufabric.storage.sizing import service

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFMWp3s4NJdNa6ti+9HIIEOmZQzdt5n/GoatO3rtzRpH test"
AMLFS = {"type": "azure-managed-lustre", "throughputPerTib": 250, "capacityTib": 16}
AZ = {"sshPublicKey": KEY}
BASE: dict[str, Any] = {
    "azure-native:location": "eastus",
    "gpufabric:instanceType": "Standard_ND96isr_H100_v5",
    "gpufabric:nodes": 16,
    "gpufabric:zone": "1",
    "gpufabric:encryption": "ipsec",
    "gpufabric:azure": AZ,
    "gpufabric:storage": AMLFS,
}
CRG = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/cap/providers/"
    "Microsoft.Compute/capacityReservationGroups/crg1"
)

BAD: list[tuple[str, dict[str, Any], str, str]] = [
    # (case, override, key named, words in the message)
    ("size typo", {"gpufabric:instanceType": "Standard_ND96isr_H100_v4"}, "gpufabric:instanceType", "did you mean 'Standard_ND96isr_H100_v5'"),
    ("zone letter", {"gpufabric:zone": "eastus-1a"}, "gpufabric:zone", "'1', '2' or '3'"),
    ("zone 4", {"gpufabric:zone": 4}, "gpufabric:zone", "'1', '2' or '3'"),
    ("location display name", {"azure-native:location": "East US"}, "azure-native:location", "did you mean 'eastus'"),
    ("vnet on the RDMA range", {"gpufabric:network": {"cidr": "172.16.0.0/12", "fabricSubnet": "172.17.0.0/18", "storageSubnet": "172.18.64.0/24", "managementSubnet": "172.18.65.0/24", "egressSubnet": "172.18.66.0/28"}}, "gpufabric:network.cidr", "reserves for RDMA"),
    ("provider-native encryption", {"gpufabric:encryption": "provider-native"}, "gpufabric:encryption", "not known to encrypt"),
    ("split forbidden", {"gpufabric:nodes": 256, "gpufabric:azure": {**AZ, "allowSplit": False}}, "gpufabric:nodes", "allowSplit is false"),
    ("split forbidden at a raised limit", {"gpufabric:nodes": 301, "gpufabric:azure": {**AZ, "allowSplit": False, "maxVmsPerScaleSet": 300}}, "gpufabric:nodes", "2 scale sets"),
    ("max per set above 300", {"gpufabric:azure": {**AZ, "maxVmsPerScaleSet": 400}}, "gpufabric:azure.maxVmsPerScaleSet", "less than or equal to 300"),
    ("max per set zero", {"gpufabric:azure": {**AZ, "maxVmsPerScaleSet": 0}}, "gpufabric:azure.maxVmsPerScaleSet", "greater than or equal to 1"),
    ("allowSplit not a bool", {"gpufabric:azure": {**AZ, "allowSplit": "no"}}, "gpufabric:azure.allowSplit", "boolean"),
    ("bad image urn", {"gpufabric:azure": {**AZ, "image": "ubuntu-hpc:2204"}}, "gpufabric:azure.image", "publisher:offer:sku:version"),
    ("ssh key missing", {"gpufabric:azure": {}}, "gpufabric:azure.sshPublicKey", "not set; required: the admin user"),
    ("ssh key not a key", {"gpufabric:azure": {"sshPublicKey": "hunter2"}}, "gpufabric:azure.sshPublicKey", "OpenSSH public key"),
    ("admin user root", {"gpufabric:azure": {**AZ, "adminUsername": "root"}}, "gpufabric:azure.adminUsername", "reserved"),
    ("resource group ends in a dot", {"gpufabric:azure": {**AZ, "resourceGroup": "rg."}}, "gpufabric:azure.resourceGroup", "not ending in '.'"),
    ("unknown azure key", {"gpufabric:azure": {**AZ, "maxVmsPerSet": 10}}, "gpufabric:azure.maxVmsPerSet", "xtra"),
    ("fsx on azure", {"gpufabric:storage": {"type": "fsx-lustre"}}, "gpufabric:storage.type", "azure-managed-lustre or none"),
    ("lustre throughput 1000", {"gpufabric:storage": {**AMLFS, "throughputPerTib": 1000}}, "gpufabric:storage.throughputPerTib", "40, 125, 250 or 500"),
    ("lustre below the SKU minimum", {"gpufabric:storage": {**AMLFS, "throughputPerTib": 40, "capacityTib": 16}}, "gpufabric:storage.capacityTib", "at least 48 TiB"),
    ("lustre off-step", {"gpufabric:storage": {**AMLFS, "capacityTib": 20}}, "gpufabric:storage.capacityTib", "steps of 8 TiB"),
    ("lustre subnet too small", {"gpufabric:storage": {**AMLFS, "capacityTib": 128}, "gpufabric:network": {"storageSubnet": "10.0.64.0/25"}}, "gpufabric:network.storageSubnet", "/24 or larger"),
    ("lustre maintenance time", {"gpufabric:storage": {**AMLFS, "maintenanceWindow": {"timeOfDayUtc": "25:00"}}}, "gpufabric:storage.maintenanceWindow.timeOfDayUtc", "HH:MM"),
    ("lustre relative mount point", {"gpufabric:storage": {**AMLFS, "mountPoint": "lustre"}}, "gpufabric:storage.mountPoint", "absolute directory"),
    ("lustre without egress", {"gpufabric:network": {"egress": "none"}}, "gpufabric:network.egress", "AzureCloud"),
    ("endpoints egress", {"gpufabric:network": {"egress": "endpoints"}, "gpufabric:storage": {"type": "none"}}, "gpufabric:network.egress", "nat"),
    ("capacity block", {"gpufabric:capacity": {"type": "capacity-block", "reservationId": CRG}}, "gpufabric:capacity.type", "AWS-only"),
    ("capacity reservation with ND-series", {"gpufabric:capacity": {"type": "reservation", "reservationId": CRG}}, "gpufabric:capacity.type", "ND-series"),
    ("capacity reservation names the placement rules", {"gpufabric:capacity": {"type": "reservation", "reservationId": CRG}}, "gpufabric:capacity.type", "singlePlacementGroup true"),
    ("125 nodes split only on request", {"gpufabric:nodes": 125}, "gpufabric:nodes", "allowSplit is false"),
    ("individual instances", {"gpufabric:nodeGroup": "instances"}, "gpufabric:nodeGroup", "use group"),
    ("aws section on azure", {"gpufabric:aws": {"efaLayout": "ena-primary"}}, "gpufabric:aws", "use gpufabric:azure"),
    ("aws kms key on azure", {"gpufabric:rootVolume": {"kmsKeyId": "alias/x"}}, "gpufabric:rootVolume.kmsKeyId", "do not apply on Azure"),
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


def test_good_config_parses_with_defaults() -> None:
    cfg = parse(BASE, "azure-test")
    assert cfg.zone == "1"
    assert cfg.azure.max_vms_per_scale_set == 100 and cfg.azure.allow_split is False
    assert cfg.azure.image_urn == ("microsoft-dsvm", "ubuntu-hpc", "2204", "latest")
    assert cfg.storage.type == "azure-managed-lustre"
    assert cfg.storage.sku == "AMLFS-Durable-Premium-250"  # type: ignore[union-attr]


def test_numeric_zone_from_pulumi_config_becomes_the_zone_string() -> None:
    # `pulumi config set gpufabric:zone 2` reaches the program as JSON text "2" -> 2
    assert parse({**BASE, "gpufabric:zone": 2}, "s").zone == "2"


def test_image_resource_id_is_accepted_instead_of_a_urn() -> None:
    image = "/subscriptions/x/resourceGroups/img/providers/Microsoft.Compute/galleries/g/images/hpc/versions/1.0.0"
    cfg = parse({**BASE, "gpufabric:azure": {**AZ, "image": image}}, "s")
    assert cfg.azure.image == image and cfg.azure.image_urn is None


def test_split_is_accepted_when_asked_for() -> None:
    cfg = parse(
        {**BASE, "gpufabric:nodes": 125, "gpufabric:azure": {**AZ, "allowSplit": True}}, "s"
    )
    assert cfg.nodes == 125 and cfg.azure.allow_split is True


@pytest.mark.parametrize("throughput", service("azure-managed-lustre").tiers())
def test_every_lustre_sku_accepts_its_minimum_and_next_step(throughput: int) -> None:
    (band,) = service("azure-managed-lustre").variants["tcp"][throughput]
    for capacity in (band.low, band.low + band.step):
        storage = {**AMLFS, "throughputPerTib": throughput, "capacityTib": capacity}
        cfg = parse({**BASE, "gpufabric:storage": storage}, "s")
        assert cfg.storage.capacity_tib == capacity  # type: ignore[union-attr]


def test_raised_limit_keeps_300_nodes_in_one_partition_without_splitting() -> None:
    azure = {**AZ, "maxVmsPerScaleSet": 300, "allowSplit": False}
    cfg = parse({**BASE, "gpufabric:nodes": 300, "gpufabric:azure": azure}, "s")
    assert cfg.nodes == 300


@pytest.mark.parametrize(
    ("nodes", "per_set", "sizes"),
    [(16, 100, [16]), (100, 100, [100]), (101, 100, [100, 1]), (256, 100, [100, 100, 56]),
     (600, 300, [300, 300]), (7, 3, [3, 3, 1])],
)  # fmt: skip
def test_scale_set_sizes_fill_sets_to_the_limit(nodes: int, per_set: int, sizes: list[int]) -> None:
    assert scale_set_sizes(nodes, per_set) == sizes
    assert sum(sizes) == nodes and max(sizes) <= per_set


def test_partitions_are_named_and_numbered_in_order() -> None:
    cut = partitions("c", 250, 100)
    assert [(p.index, p.scale_set, p.size) for p in cut] == [
        (0, "c-ib0", 100),
        (1, "c-ib1", 100),
        (2, "c-ib2", 50),
    ]


def test_scale_set_sizes_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="positive"):
        scale_set_sizes(0, 100)
