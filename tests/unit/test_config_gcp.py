"""GCP stack config: every bad value is one line naming the key; good values parse."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.catalog import lookup
from gpufabric.clouds.gcp.placement import (
    compact_placement,
    compact_policy_limit,
    policy_sizes,
    provisioning_model,
)
from gpufabric.clouds.gcp.rules import gpu_subnets
from gpufabric.config import parse
from gpufabric.errors import ConfigError
from gpufabric.storage.sizing import service

LUSTRE = {"type": "managed-lustre", "capacityGib": 36000, "perUnitStorageThroughput": 1000}
NETWORK = {
    "cidr": "10.0.0.0/16",
    "fabricSubnet": "10.0.0.0/20",
    "managementSubnet": "10.0.16.0/24",
    "storageSubnet": "10.0.32.0/20",
    "egressSubnet": "10.0.17.0/28",
}
GCP = {"project": "my-gpu-project"}
BASE: dict[str, Any] = {
    "gcp:region": "us-central1",
    "gcp:project": "my-gpu-project",
    "gpufabric:instanceType": "a3-megagpu-8g",
    "gpufabric:nodes": 16,
    "gpufabric:zone": "us-central1-a",
    "gpufabric:encryption": "none",
    "gpufabric:network": NETWORK,
    "gpufabric:gcp": GCP,
    "gpufabric:storage": LUSTRE,
}

BAD: list[tuple[str, dict[str, Any], str, str]] = [
    # (case, override, key named, words in the message)
    (
        "project missing",
        {"gpufabric:gcp": {}},
        "gpufabric:gcp.project",
        "not set; required: the project id",
    ),
    (
        "project malformed",
        {"gpufabric:gcp": {"project": "My_Project"}},
        "gpufabric:gcp.project",
        "project id",
    ),
    (
        "project not the provider's",
        {"gcp:project": "someone-else"},
        "gpufabric:gcp.project",
        "'my-gpu-project' is not valid; it must match gcp:project 'someone-else' (the provider's project)",
    ),
    (
        "zone in another region",
        {"gpufabric:zone": "europe-west4-b"},
        "gpufabric:zone",
        "region us-central1 (gcp:region)",
    ),
    ("zone not a GCP zone", {"gpufabric:zone": "us-central1a"}, "gpufabric:zone", "us-central1-a"),
    (
        "near-miss machine type",
        {"gpufabric:instanceType": "a3-megagpu-8"},
        "gpufabric:instanceType",
        "did you mean 'a3-megagpu-8g'",
    ),
    (
        "provider-native encryption not confirmed for GPU NICs",
        {"gpufabric:encryption": "provider-native"},
        "gpufabric:encryption",
        "unconfirmed",
    ),
    (
        "capacity block is AWS",
        {"gpufabric:capacity": {"type": "capacity-block", "reservationId": "blk"}},
        "gpufabric:capacity.type",
        "capacity blocks are AWS",
    ),
    (
        "reservation name with capitals and underscores",
        {"gpufabric:capacity": {"type": "reservation", "reservationId": "My_Reservation"}},
        "gpufabric:capacity.reservationId",
        "reservation name",
    ),
    (
        "shared dense reservation with compact placement",
        {
            "gpufabric:instanceType": "a3-ultragpu-8g",
            "gpufabric:nodeGroup": "instances",
            "gpufabric:capacity": {
                "type": "reservation",
                "reservationId": "projects/other-project/reservations/res1",
            },
        },
        "gpufabric:capacity.reservationId",
        "single-project reservations",
    ),
    (
        "AWS capacity reservation resource group on GCP",
        {
            "gpufabric:capacity": {
                "type": "reservation",
                "resourceGroupArn": "arn:aws:resource-groups:us-east-1:123456789012:group/g",
            }
        },
        "gpufabric:capacity.resourceGroupArn",
        "AWS-only",
    ),
    (
        "maxDistance on a plain reservation",
        {
            "gpufabric:nodeGroup": "instances",
            "gpufabric:capacity": {"type": "reservation", "reservationId": "a3m-res"},
            "gpufabric:gcp": {**GCP, "maxDistance": 2},
        },
        "gpufabric:gcp.maxDistance",
        "plain reservation is placed by the policy it was created with",
    ),
    (
        "AWS storage type on GCP",
        {"gpufabric:storage": {"type": "fsx-lustre", "capacityGib": 4800}},
        "gpufabric:storage.type",
        "managed-lustre, parallelstore, filestore or none",
    ),
    (
        "Lustre throughput 300",
        {"gpufabric:storage": {**LUSTRE, "perUnitStorageThroughput": 300}},
        "gpufabric:storage.perUnitStorageThroughput",
        "125, 250, 500 or 1000",
    ),
    (
        "Lustre capacity off-step",
        {"gpufabric:storage": {**LUSTRE, "capacityGib": 10000}},
        "gpufabric:storage.capacityGib",
        "9,000 to 1,530,000 GiB in steps of 9,000",
    ),
    (
        "Lustre capacity below the tier's minimum",
        {"gpufabric:storage": {**LUSTRE, "perUnitStorageThroughput": 125}},
        "gpufabric:storage.capacityGib",
        "72,000 to 12,240,000 GiB in steps of 72,000",
    ),
    (
        "Lustre filesystem name too long",
        {"gpufabric:storage": {**LUSTRE, "filesystem": "scratchfs1"}},
        "gpufabric:storage.filesystem",
        "1-8 lowercase",
    ),
    (
        "mount point relative",
        {"gpufabric:storage": {**LUSTRE, "mountPoint": "lustre"}},
        "gpufabric:storage.mountPoint",
        "absolute",
    ),
    (
        "PSA range too small for Lustre",
        {"gpufabric:network": {**NETWORK, "storageSubnet": "10.0.32.0/24"}},
        "gpufabric:network.storageSubnet",
        "/23 or larger",
    ),
    (
        "Parallelstore capacity off-step",
        {"gpufabric:storage": {"type": "parallelstore", "capacityGib": 13000}},
        "gpufabric:storage.capacityGib",
        "multiple of 4000 GiB",
    ),
    (
        "Parallelstore deployment type",
        {"gpufabric:storage": {"type": "parallelstore", "deploymentType": "FAST"}},
        "gpufabric:storage.deploymentType",
        "SCRATCH or PERSISTENT",
    ),
    (
        "Filestore regional tier",
        {"gpufabric:storage": {"type": "filestore", "tier": "REGIONAL"}},
        "gpufabric:storage.tier",
        "zonal tiers only",
    ),
    (
        "Filestore zonal capacity off-step above 10 TiB",
        {"gpufabric:storage": {"type": "filestore", "tier": "ZONAL", "capacityGib": 10496}},
        "gpufabric:storage.capacityGib",
        "10240-102400 GiB in steps of 2560",
    ),
    (
        "GPU range overlaps the host VPC",
        {"gpufabric:gcp": {**GCP, "gpuCidr": "10.0.0.0/12"}},
        "gpufabric:gcp.gpuCidr",
        "overlaps gpufabric:network.cidr",
    ),
    (
        "GPU range too small for the nodes",
        {"gpufabric:nodes": 64, "gpufabric:gcp": {**GCP, "gpuCidr": "10.128.0.0/24"}},
        "gpufabric:gcp.gpuCidr",
        "cannot hold 64 nodes",
    ),
    (
        "second host range overlaps the GPU range (A3 Ultra)",
        {
            "gpufabric:instanceType": "a3-ultragpu-8g",
            "gpufabric:gcp": {**GCP, "secondaryHostCidr": "10.128.0.0/16"},
        },
        "gpufabric:gcp.gpuCidr",
        "overlaps gpufabric:gcp.secondaryHostCidr",
    ),
    ("MTU above 8896", {"gpufabric:gcp": {**GCP, "mtu": 9000}}, "gpufabric:gcp.mtu", "1300-8896"),
    (
        "maxDistance 1 on A3 Mega",
        {"gpufabric:nodeGroup": "instances", "gpufabric:gcp": {**GCP, "maxDistance": 1}},
        "gpufabric:gcp.maxDistance",
        "cannot use maxDistance 1",
    ),
    (
        "maxDistance with a managed instance group",
        {"gpufabric:nodeGroup": "group", "gpufabric:gcp": {**GCP, "maxDistance": 2}},
        "gpufabric:gcp.maxDistance",
        "workload policy",
    ),
    (
        "maxTopologyDistance with instances",
        {
            "gpufabric:nodeGroup": "instances",
            "gpufabric:gcp": {**GCP, "maxTopologyDistance": "BLOCK"},
        },
        "gpufabric:gcp.maxTopologyDistance",
        "only for nodeGroup group",
    ),
    (
        "label key with capitals",
        {"gpufabric:tags": {"Team": "ml"}},
        "gpufabric:tags",
        "GCP label keys",
    ),
    (
        "AWS KMS key on a GCP boot disk",
        {"gpufabric:rootVolume": {"kmsKeyId": "alias/gpu"}},
        "gpufabric:rootVolume.kmsKeyId",
        "AWS KMS key",
    ),
    (
        "AWS section in a GCP stack",
        {"gpufabric:aws": {"efaLayout": "ena-primary"}},
        "gpufabric:aws",
        "this is a GCP stack",
    ),
    (
        "service account not an email",
        {"gpufabric:gcp": {**GCP, "serviceAccount": "nodes"}},
        "gpufabric:gcp.serviceAccount",
        "service account email",
    ),
]


@pytest.mark.parametrize(("case", "override", "key", "words"), BAD, ids=[b[0] for b in BAD])
def test_bad_value_names_the_key(case: str, override: dict[str, Any], key: str, words: str) -> None:
    raw = {**BASE, **override}
    with pytest.raises(ConfigError) as err:
        parse(raw, "test")
    message = str(err.value)
    assert message.startswith(f"{key}:"), message
    assert words in message, message
    assert "\n" not in message


def test_an_unset_or_empty_provider_project_is_not_compared() -> None:
    """gcp:project left out (or empty) lets the provider find its project: nothing to match."""
    for raw in ({k: v for k, v in BASE.items() if k != "gcp:project"}, {**BASE, "gcp:project": ""}):
        assert parse(raw, "test").gcp.project == "my-gpu-project"


def test_good_config_parses_with_gcp_defaults() -> None:
    cfg = parse(BASE, "gcp-a3-mega")
    assert cfg.gcp.project == "my-gpu-project"
    assert cfg.gcp.gpu_cidr == "10.128.0.0/16"
    assert cfg.gcp.secure_boot is False
    assert cfg.storage.type == "managed-lustre"


@pytest.mark.parametrize(
    ("storage", "kind"),
    [
        ({"type": "parallelstore", "capacityGib": 16000}, "parallelstore"),
        ({"type": "filestore", "tier": "ZONAL", "capacityGib": 9984}, "filestore"),
        ({"type": "filestore", "tier": "HIGH_SCALE_SSD", "capacityGib": 12800}, "filestore"),
        ({"type": "none"}, "none"),
    ],
)
def test_other_gcp_storage_services_parse(storage: dict[str, Any], kind: str) -> None:
    network = {**NETWORK, "storageSubnet": "10.0.32.0/24"}
    cfg = parse({**BASE, "gpufabric:storage": storage, "gpufabric:network": network}, "s")
    assert cfg.storage.type == kind


@pytest.mark.parametrize("throughput", service("managed-lustre").tiers())
def test_every_lustre_tier_accepts_each_band_edge(throughput: int) -> None:
    bands = service("managed-lustre").variants["tcp"][throughput]
    for capacity in [edge for band in bands for edge in (band.low, band.high)]:
        storage = {**LUSTRE, "perUnitStorageThroughput": throughput, "capacityGib": capacity}
        assert parse({**BASE, "gpufabric:storage": storage}, "s").storage.type == "managed-lustre"


def test_gpu_range_splits_into_one_subnet_per_gpu_nic() -> None:
    for name, count in (("a3-megagpu-8g", 8), ("a3-highgpu-8g", 4), ("a4-highgpu-8g", 8)):
        cfg = parse({**BASE, "gpufabric:instanceType": name}, "s")
        subnets = gpu_subnets(cfg, lookup(name))
        assert len(subnets) == count
        assert len(set(subnets)) == count
        assert all(s.startswith("10.128.") for s in subnets)


def test_a3_ultra_takes_maxdistance_1_but_a3_mega_does_not() -> None:
    ultra = {
        **BASE,
        "gpufabric:instanceType": "a3-ultragpu-8g",
        "gpufabric:nodeGroup": "instances",
        "gpufabric:gcp": {**GCP, "maxDistance": 1},
    }
    assert parse(ultra, "s").gcp.max_distance == 1


def test_plain_reservation_without_max_distance_parses() -> None:
    raw = {
        **BASE,
        "gpufabric:nodeGroup": "instances",
        "gpufabric:capacity": {"type": "reservation", "reservationId": "a3m-res"},
    }
    assert parse(raw, "s").capacity.reservation_id == "a3m-res"


@pytest.mark.parametrize(
    ("machine", "distance", "limit"),
    [("a3-megagpu-8g", 1, 22), ("a3-megagpu-8g", 2, 256), ("a3-ultragpu-8g", 2, 256),
     ("a4-highgpu-8g", 2, 150), ("a3-megagpu-8g", 3, 1500), ("a4-highgpu-8g", None, 1500)],
)  # fmt: skip
def test_compact_policy_limits_follow_cluster_toolkit(
    machine: str, distance: int | None, limit: int
) -> None:
    assert compact_policy_limit(lookup(machine), distance) == limit


@pytest.mark.parametrize(
    ("nodes", "limit", "sizes"),
    [(16, 256, [16]), (256, 256, [256]), (300, 256, [256, 44]), (50, 22, [22, 22, 6])],
)
def test_policy_sizes_fill_policies_to_the_limit(nodes: int, limit: int, sizes: list[int]) -> None:
    assert policy_sizes(nodes, limit) == sizes


def test_policy_sizes_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="positive"):
        policy_sizes(0, 256)


def test_dense_reservations_are_reservation_bound_and_plain_ones_standard() -> None:
    ultra, mega = lookup("a3-ultragpu-8g"), lookup("a3-megagpu-8g")
    assert provisioning_model(ultra, "a3u-res") == "RESERVATION_BOUND"
    assert provisioning_model(ultra, None) == "STANDARD"
    assert provisioning_model(mega, "a3m-res") == "STANDARD"
    assert compact_placement(mega, 16, None, "a3m-res").source == "reservation"
    assert compact_placement(mega, 16, None, "a3m-res").sizes == []
    assert compact_placement(ultra, 300, 2, "a3u-res").sizes == [256, 44]
