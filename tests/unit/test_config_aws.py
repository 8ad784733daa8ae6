"""Stack config: one clear line naming the key for every bad value; good values parse."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.config import parse
from gpufabric.errors import ConfigError

BASE: dict[str, Any] = {
    "aws:region": "us-east-1",
    "gpufabric:instanceType": "p5.48xlarge",
    "gpufabric:nodes": 16,
    "gpufabric:zone": "us-east-1a",
    "gpufabric:encryption": "provider-native",
    "gpufabric:storage": {"type": "fsx-lustre", "capacityGib": 4800},
}

FSX = {"type": "fsx-lustre", "capacityGib": 4800}

CR_GROUP = "arn:aws:resource-groups:us-east-1:123456789012:group/p5-blocks"

BAD: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "capacity block of 125 instances",
        {
            "gpufabric:nodes": 125,
            "gpufabric:capacity": {
                "type": "capacity-block",
                "reservationId": "cr-0123456789abcdef0",
            },
        },
        "gpufabric:nodes",
        "resourceGroupArn",
    ),
    (
        "more instances than an account's capacity blocks hold",
        {
            "gpufabric:nodes": 300,
            "gpufabric:capacity": {"type": "capacity-block", "resourceGroupArn": CR_GROUP},
        },
        "gpufabric:nodes",
        "at most 256 instances across all",
    ),
    (
        "resource group and reservation id together",
        {
            "gpufabric:capacity": {
                "type": "reservation",
                "reservationId": "cr-0123456789abcdef0",
                "resourceGroupArn": CR_GROUP,
            }
        },
        "gpufabric:capacity",
        "not both",
    ),
    (
        "resource group in another region",
        {
            "gpufabric:capacity": {
                "type": "reservation",
                "resourceGroupArn": CR_GROUP.replace("us-east-1", "us-west-2"),
            }
        },
        "gpufabric:capacity.resourceGroupArn",
        "resource group in us-east-1",
    ),
    (
        "resource group that is not an ARN",
        {"gpufabric:capacity": {"type": "reservation", "resourceGroupArn": "p5-blocks"}},
        "gpufabric:capacity.resourceGroupArn",
        "arn:aws:resource-groups",
    ),
    (
        "resource group on demand",
        {"gpufabric:capacity": {"type": "on-demand", "resourceGroupArn": CR_GROUP}},
        "gpufabric:capacity",
        "only used with type reservation or capacity-block",
    ),
    (
        "wait timeout not a duration",
        {"gpufabric:aws": {"waitForCapacityTimeout": "30 minutes"}},
        "gpufabric:aws.waitForCapacityTimeout",
        "duration",
    ),
    (
        "wait timeout as a number",
        {"gpufabric:aws": {"waitForCapacityTimeout": 30}},
        "gpufabric:aws.waitForCapacityTimeout",
        "string",
    ),
    (
        "wait timeout with individual instances",
        {"gpufabric:nodeGroup": "instances", "gpufabric:aws": {"waitForCapacityTimeout": "10m"}},
        "gpufabric:aws.waitForCapacityTimeout",
        "only for nodeGroup group",
    ),
    # (case, override, key named, words in the message)
    (
        "unknown instance type",
        {"gpufabric:instanceType": "p5.48xlarg"},
        "gpufabric:instanceType",
        "did you mean 'p5.48xlarge'",
    ),
    (
        "instance type from nowhere",
        {"gpufabric:instanceType": "m5.large"},
        "gpufabric:instanceType",
        "known types",
    ),
    ("zero nodes", {"gpufabric:nodes": 0}, "gpufabric:nodes", "greater than or equal to 1"),
    ("negative nodes", {"gpufabric:nodes": -4}, "gpufabric:nodes", "greater than or equal to 1"),
    ("nodes not an integer", {"gpufabric:nodes": "many"}, "gpufabric:nodes", "valid integer"),
    ("nodes fractional", {"gpufabric:nodes": 2.5}, "gpufabric:nodes", "valid integer"),
    ("nodes missing", {"gpufabric:nodes": None}, "gpufabric:nodes", "integer"),
    (
        "throughput 300",
        {"gpufabric:storage": {**FSX, "throughputPerTib": 300}},
        "gpufabric:storage.throughputPerTib",
        "125, 250, 500 or 1000",
    ),
    (
        "capacity off-step",
        {"gpufabric:storage": {**FSX, "capacityGib": 3000}},
        "gpufabric:storage.capacityGib",
        "2,400 GiB or more in steps of 2,400",
    ),
    (
        "efa capacity off-step",
        {"gpufabric:storage": {**FSX, "efa": True, "capacityGib": 2400}},
        "gpufabric:storage.capacityGib",
        "4,800 GiB or more in steps of 4,800",
    ),
    (
        "efa on scratch",
        {
            "gpufabric:storage": {
                **FSX,
                "deploymentType": "SCRATCH_2",
                "throughputPerTib": None,
                "efa": True,
            }
        },
        "gpufabric:storage.efa",
        "PERSISTENT_2",
    ),
    (
        "bad s3 url",
        {"gpufabric:storage": {**FSX, "s3": {"dataRepositoryPath": "https://bucket"}}},
        "gpufabric:storage.s3.dataRepositoryPath",
        "s3://",
    ),
    (
        "metadata iops off-step",
        {"gpufabric:storage": {**FSX, "metadata": {"mode": "USER_PROVISIONED", "iops": 5000}}},
        "gpufabric:storage.metadata",
        "multiple of 12000",
    ),
    (
        "unknown storage type",
        {"gpufabric:storage": {"type": "fsxx"}},
        "gpufabric:storage.type",
        "fsx-lustre",
    ),
    (
        "unknown deployment type",
        {"gpufabric:storage": {**FSX, "deploymentType": "PERSISTENT_1"}},
        "gpufabric:storage.deploymentType",
        "PERSISTENT_2",
    ),
    (
        "zone outside the region",
        {"gpufabric:zone": "us-west-2a"},
        "gpufabric:zone",
        "region us-east-1",
    ),
    ("zone malformed", {"gpufabric:zone": "east"}, "gpufabric:zone", "availability zone"),
    (
        "capacity block without reservation",
        {"gpufabric:capacity": {"type": "capacity-block"}},
        "gpufabric:capacity",
        "needs reservationId",
    ),
    (
        "reservation id malformed",
        {"gpufabric:capacity": {"type": "reservation", "reservationId": "res-1"}},
        "gpufabric:capacity.reservationId",
        "cr-",
    ),
    (
        "capacity block too large",
        {
            "gpufabric:nodes": 65,
            "gpufabric:capacity": {
                "type": "capacity-block",
                "reservationId": "cr-0123456789abcdef0",
            },
        },
        "gpufabric:nodes",
        "at most 64",
    ),
    (
        "unknown capacity type",
        {"gpufabric:capacity": {"type": "spot"}},
        "gpufabric:capacity.type",
        "on-demand",
    ),
    (
        "encryption unknown",
        {"gpufabric:encryption": "tls"},
        "gpufabric:encryption",
        "provider-native",
    ),
    (
        "encryption missing",
        {"gpufabric:encryption": None},
        "gpufabric:encryption",
        "provider-native",
    ),
    (
        "provider-native on unconfirmed type",
        {"gpufabric:instanceType": "p5en.48xlarge"},
        "gpufabric:encryption",
        "not known to encrypt",
    ),
    (
        "ssh from the internet",
        {"gpufabric:network": {"managementCidr": "0.0.0.0/0"}},
        "gpufabric:network.managementCidr",
        "0.0.0.0/0",
    ),
    (
        "cidr malformed",
        {"gpufabric:network": {"cidr": "10.0.0.0/33"}},
        "gpufabric:network.cidr",
        "CIDR",
    ),
    (
        "subnet outside the vpc",
        {"gpufabric:network": {"storageSubnet": "192.168.0.0/24"}},
        "gpufabric:network.storageSubnet",
        "inside",
    ),
    (
        "overlapping subnets",
        {"gpufabric:network": {"storageSubnet": "10.0.1.0/24"}},
        "gpufabric:network.storageSubnet",
        "overlaps the fabric subnet",
    ),
    (
        "fabric subnet too small",
        {"gpufabric:nodes": 100, "gpufabric:network": {"fabricSubnet": "10.0.0.0/26"}},
        "gpufabric:network.fabricSubnet",
        "too small",
    ),
    ("bad egress", {"gpufabric:network": {"egress": "igw"}}, "gpufabric:network.egress", "nat"),
    (
        "nat with an existing vpc",
        {"gpufabric:aws": {"existingVpcId": "vpc-0123456789abcdef0"}},
        "gpufabric:network.egress",
        "endpoints",
    ),
    (
        "existing vpc malformed",
        {"gpufabric:aws": {"existingVpcId": "my-vpc"}},
        "gpufabric:aws.existingVpcId",
        "vpc-",
    ),
    (
        "efa layout unknown",
        {"gpufabric:aws": {"efaLayout": "all-efa"}},
        "gpufabric:aws.efaLayout",
        "efa-primary",
    ),
    ("node group unknown", {"gpufabric:nodeGroup": "asg"}, "gpufabric:nodeGroup", "group"),
    (
        "unknown key with a near miss",
        {"gpufabric:node": 3},
        "gpufabric:node",
        "did you mean 'gpufabric:nodes'",
    ),
    (
        "unknown nested key",
        {"gpufabric:storage": {**FSX, "throughput": 1000}},
        "gpufabric:storage.throughput",
        "extra",
    ),
    (
        "root volume too small",
        {"gpufabric:rootVolume": {"sizeGib": 8}},
        "gpufabric:rootVolume.sizeGib",
        "100",
    ),
    (
        "bad kms key",
        {"gpufabric:rootVolume": {"kmsKeyId": "my key"}},
        "gpufabric:rootVolume.kmsKeyId",
        "KMS",
    ),
    (
        "cluster name with capitals",
        {"gpufabric:clusterName": "Train"},
        "gpufabric:clusterName",
        "lowercase",
    ),
    ("no region", {"aws:region": None}, "aws:region", "region"),
    ("tag key with a slash (IMDS tags)", {"gpufabric:tags": {"team/owner": "ml"}}, "gpufabric:tags", "'team/owner'"),
    ("tag key with a space (IMDS tags)", {"gpufabric:tags": {"cost center": "42"}}, "gpufabric:tags", "no spaces or /"),
    ("tag key _index (IMDS tags)", {"gpufabric:tags": {"_index": "x"}}, "gpufabric:tags", "'_index'"),
    ("tag key '..' (IMDS tags)", {"gpufabric:tags": {"..": "x"}}, "gpufabric:tags", "not '.', '..'"),
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


def test_tag_keys_imds_takes_parse() -> None:
    tags = {"gpufabric:owner": "a", "Cost.Center": "b", "team=ml,x+y@z_1-2": "c"}
    assert parse({**BASE, "gpufabric:tags": tags}, "t").tags == tags


def test_good_config_parses_with_defaults() -> None:
    cfg = parse(BASE, "aws-h100")
    assert cfg.name == "aws-h100"
    assert cfg.nodes == 16 and cfg.node_group == "group"
    assert cfg.network.subnets()["fabric"] == "10.0.0.0/18"
    assert cfg.aws.efa_layout == "ena-primary"  # the current EFA guide's layout
    assert cfg.aws.wait_for_capacity_timeout == "30m"


def test_integral_json_values_from_pulumi_config_parse() -> None:
    # pulumi hands numbers as JSON text; the loader decodes them before validation
    from gpufabric.config.load import _decode

    assert _decode("gpufabric:x", "16") == 16
    assert _decode("gpufabric:x", "p5.48xlarge") == "p5.48xlarge"
    assert _decode("gpufabric:x", '{"type": "none"}') == {"type": "none"}


def test_other_namespaces_are_ignored_but_unknown_gpufabric_keys_are_not() -> None:
    cfg = parse({**BASE, "aws:profile": "dev", "pulumi:tags": {}}, "s")
    assert cfg.region == "us-east-1"


def test_type_errors_inside_the_storage_type_name_the_clean_key() -> None:
    with pytest.raises(ConfigError) as err:
        parse({**BASE, "gpufabric:storage": {"type": "fsx-lustre", "capacityGib": "lots"}}, "s")
    assert str(err.value).startswith("gpufabric:storage.capacityGib: 'lots' is not valid")


@pytest.mark.parametrize("storage_type", ["azure-managed-lustre", "managed-lustre", "oci-lustre"])
def test_another_cloud_s_storage_type_is_not_a_type_of_this_stack(storage_type: str) -> None:
    """The AWS stack's model holds AWS's storage types only: no other cloud's model is tried."""
    with pytest.raises(ConfigError) as err:
        parse({**BASE, "gpufabric:storage": {"type": storage_type, "capacityGib": "lots"}}, "s")
    assert str(err.value) == (
        f"gpufabric:storage.type: '{storage_type}' is not valid; on AWS use fsx-lustre or none"
    )


def test_s3_repository_on_scratch_2_parses() -> None:
    storage = {
        **FSX,
        "deploymentType": "SCRATCH_2",
        "throughputPerTib": None,
        "s3": {"dataRepositoryPath": "s3://bucket-a/x"},
    }
    cfg = parse({**BASE, "gpufabric:storage": storage}, "s")
    assert cfg.storage.s3 is not None  # type: ignore[union-attr]


def test_resource_group_lets_blocks_hold_more_than_64_nodes() -> None:
    cap = {"type": "capacity-block", "resourceGroupArn": CR_GROUP}
    cfg = parse({**BASE, "gpufabric:nodes": 125, "gpufabric:capacity": cap}, "s")
    assert cfg.capacity.resource_group_arn == CR_GROUP and cfg.capacity.reservation_id is None


@pytest.mark.parametrize("timeout", ["0", "45m", "1h30m", "90s"])
def test_wait_timeouts_in_go_duration_form_parse(timeout: str) -> None:
    cfg = parse({**BASE, "gpufabric:aws": {"waitForCapacityTimeout": timeout}}, "s")
    assert cfg.aws.wait_for_capacity_timeout == timeout
