"""The AWS stack rules (gpufabric.clouds.aws.rules) at the edges the shared config cases leave
out, each line word for word: flow logs to an S3 bucket, the storage zone, several reservations
on capacity blocks, the account's capacity block limit, egress with an existing VPC, SCRATCH_2's
fixed throughput and steps. In-process, through gpufabric.config.parse."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.test_config_aws import BASE, FSX

from gpufabric.config import parse
from gpufabric.config.model import StackConfig
from gpufabric.errors import ConfigError

CR, CR2 = "cr-0123456789abcdef0", "cr-0123456789abcdef1"
GROUP = "arn:aws:resource-groups:us-east-1:123456789012:group/p5-blocks"


def config(**override: Any) -> StackConfig:
    """The AWS base stack with `override` (keys spelled gpufabric__x for gpufabric:x)."""
    raw = {**BASE, **{k.replace("__", ":"): v for k, v in override.items()}}
    return parse({k: v for k, v in raw.items() if v is not None}, "t")


def refusal(**override: Any) -> str:
    with pytest.raises(ConfigError) as err:
        config(**override)
    return str(err.value)


# --- flow logs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "destination", ["arn:aws:s3:::my-flow-logs", "arn:aws:s3:::my.flow-logs/cluster/a_1", "arn:aws-cn:s3:::flows"]
)  # fmt: skip
def test_flow_logs_go_to_an_s3_buckets_arn(destination: str) -> None:
    cfg = config(gpufabric__network={"flowLogs": {"destination": destination}})
    assert cfg.network.flow_logs is not None
    assert cfg.network.flow_logs.destination == destination


@pytest.mark.parametrize(
    ("flow_logs", "shown"),
    [
        ({}, "None"),
        ({"destination": "s3://my-flow-logs"}, "'s3://my-flow-logs'"),
        ({"destination": "arn:aws:s3:::My-Flow-Logs"}, "'arn:aws:s3:::My-Flow-Logs'"),
        ({"destination": "arn:aws:logs:::my-flow-logs"}, "'arn:aws:logs:::my-flow-logs'"),
    ],
)
def test_flow_logs_elsewhere_than_a_buckets_arn_are_refused(
    flow_logs: dict[str, Any], shown: str
) -> None:
    assert refusal(gpufabric__network={"flowLogs": flow_logs}) == (
        f"gpufabric:network.flowLogs.destination: {shown} is not valid; on AWS the S3 bucket's "
        "ARN, e.g. arn:aws:s3:::my-flow-logs"
    )


def test_no_flow_logs_asked_none_checked() -> None:
    assert config().network.flow_logs is None


# --- zones --------------------------------------------------------------------------------


def test_a_storage_zone_that_is_no_zone_is_refused() -> None:
    assert refusal(gpufabric__storage={**FSX, "zone": "east"}) == (
        "gpufabric:storage.zone: 'east' is not valid; expected an availability zone of "
        "us-east-1, e.g. us-east-1a"
    )


def test_efa_storage_in_the_nodes_zone_is_taken() -> None:
    cfg = config(gpufabric__storage={**FSX, "zone": "us-east-1a", "efa": True})
    assert cfg.storage.zone == "us-east-1a"  # type: ignore[union-attr]


def test_a_zone_without_its_letter_is_refused_and_a_partitions_zone_taken() -> None:
    assert refusal(gpufabric__zone="us-east-1") == (
        "gpufabric:zone: 'us-east-1' is not valid; expected an availability zone like us-east-1a"
    )
    assert config(aws__region="us-gov-west-1", gpufabric__zone="us-gov-west-1a").zone == (
        "us-gov-west-1a"
    )


# --- capacity -----------------------------------------------------------------------------


def _reservations(kind: str, *targets: tuple[str, int]) -> dict[str, Any]:
    return {
        "gpufabric__nodes": sum(nodes for _, nodes in targets),
        "gpufabric__nodeGroup": "instances",
        "gpufabric__capacity": {
            "type": kind,
            "reservations": [{"id": rid, "nodes": nodes} for rid, nodes in targets],
        },
    }


def test_each_of_several_reservations_is_a_reservation_id() -> None:
    assert refusal(**_reservations("reservation", (CR, 8), ("res-2", 8))) == (
        "gpufabric:capacity.reservations: 'res-2' is not valid; must look like cr-0123456789abcdef0"
    )


def test_each_capacity_block_of_several_holds_at_most_64_instances() -> None:
    assert refusal(**_reservations("capacity-block", (CR, 63), (CR2, 65))) == (
        "gpufabric:capacity.reservations: 'cr-0123456789abcdef1: 65' is not valid; one "
        "capacity block holds at most 64 instances"
    )
    cfg = config(**_reservations("capacity-block", (CR, 64), (CR2, 64)))
    assert cfg.capacity.target_ids() == [CR, CR2]
    # a reservation that is no capacity block holds more
    assert config(**_reservations("reservation", (CR, 63), (CR2, 65))).nodes == 128


def test_an_accounts_capacity_blocks_hold_at_most_256_instances() -> None:
    blocks = {"type": "capacity-block", "resourceGroupArn": GROUP}
    assert config(gpufabric__nodes=256, gpufabric__capacity=blocks).nodes == 256
    assert refusal(gpufabric__nodes=257, gpufabric__capacity=blocks) == (
        "gpufabric:nodes: 257 is not valid; an account holds at most 256 instances across all "
        "its capacity blocks"
    )
    # a reservation is no capacity block: neither limit
    reservation = {"type": "reservation", "reservationId": CR}
    assert config(gpufabric__nodes=300, gpufabric__capacity=reservation).nodes == 300


# --- egress -------------------------------------------------------------------------------


def test_an_existing_vpc_takes_endpoints_or_no_egress() -> None:
    vpc = {"existingVpcId": "vpc-0123456789abcdef0", "organizationId": "o-a1b2c3d4e5"}
    cfg = config(gpufabric__aws=vpc, gpufabric__network={"egress": "endpoints"})
    assert cfg.network.egress == "endpoints"
    cfg = config(gpufabric__aws={"existingVpcId": vpc["existingVpcId"]},
                 gpufabric__network={"egress": "none"})  # fmt: skip
    assert cfg.network.egress == "none"


def test_endpoints_with_the_organization_are_taken() -> None:
    cfg = config(gpufabric__aws={"organizationId": "o-a1b2c3d4e5"},
                 gpufabric__network={"egress": "endpoints"})  # fmt: skip
    assert cfg.network.egress == "endpoints"


# --- FSx for Lustre -----------------------------------------------------------------------


def test_scratch_2_takes_its_fixed_throughput_and_the_ssd_steps() -> None:
    scratch = {**FSX, "deploymentType": "SCRATCH_2", "throughputPerTib": 1000, "capacityGib": 1200}
    assert config(gpufabric__storage=scratch).storage.capacity_gib == 1200  # type: ignore[union-attr]
    assert refusal(
        gpufabric__storage={**scratch, "throughputPerTib": None, "capacityGib": 3600}
    ) == (
        "gpufabric:storage.capacityGib: 3600 is not valid; FSx for Lustre SSD takes 1,200 GiB; "
        "or 2,400 GiB or more in steps of 2,400"
    )


def test_the_tag_key_dot_is_refused() -> None:
    assert refusal(gpufabric__tags={".": "x"}).startswith(
        "gpufabric:tags: '.' is not valid; the nodes read their tags from the instance metadata"
    )
