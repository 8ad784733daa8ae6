"""AWS rules: zone in region, reservation ids, FSx for Lustre throughput and capacity steps."""

from __future__ import annotations

import re
from functools import cache

from gpufabric.catalog import InstanceType
from gpufabric.clouds.aws.settings import AwsStackConfig, FsxLustreConfig
from gpufabric.errors import ConfigError, MissingConfigError
from gpufabric.extras import require
from gpufabric.storage.sizing import service

# docs/sources.md A.4 ([P] EC2 User Guide, capacity-blocks-purchase): one capacity block holds
# at most 64 instances, and an account at most 256 across all its blocks
CAPACITY_BLOCK_MAX_INSTANCES = 64
CAPACITY_BLOCKS_MAX_INSTANCES = 256
# EC2: "User data is limited to 16 KB, in raw form, before it is base64-encoded"
# (EC2 User Guide, "Run commands when you launch an EC2 instance with user data input").
USER_DATA_MAX_BYTES = 16 * 1024

_ZONE_RE = re.compile(r"^(?P<region>[a-z]{2}(-[a-z]+)+-\d)(?P<suffix>[a-z])$")
_RESERVATION_RE = re.compile(r"^cr-[0-9a-f]{8,17}$")
# The nodes' launch template lets them read their tags from the instance metadata
# (instance_metadata_tags=enabled, nodes.py); then EC2 holds every tag key to this rule and
# fails the launch otherwise ([P] docs.aws.amazon.com/AWSEC2/latest/UserGuide/
# work-with-tags-in-IMDS.html: letters, digits and + - = . , _ : @ only; no spaces or /; not
# ".", ".." or "_index").
_IMDS_TAG_KEY_RE = re.compile(r"^[A-Za-z0-9+\-=.,_:@]+$")
_IMDS_RESERVED_TAG_KEYS = (".", "..", "_index")
_RESOURCE_GROUP_RE = re.compile(
    r"^arn:aws[a-z-]*:resource-groups:(?P<region>[a-z0-9-]+):\d{12}:group/[A-Za-z0-9._-]{1,128}$"
)


@cache
def aws_regions() -> frozenset[str]:
    """Every region of every partition in the endpoint data bundled with botocore (offline)."""
    require("boto3", "the AWS region check (botocore's endpoint data)")
    from botocore.loaders import Loader

    data = Loader().load_data("endpoints")
    return frozenset(region for part in data["partitions"] for region in part["regions"])


FLOW_LOGS_KEY = "gpufabric:network.flowLogs.destination"
_S3_ARN = re.compile(r"^arn:aws[a-z-]*:s3:::[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[\w./-]*)?$")


def check_flow_logs(cfg: AwsStackConfig) -> None:
    """VPC flow logs go to an S3 bucket: `destination` is the bucket's ARN (optional prefix)."""
    flow = cfg.network.flow_logs
    if flow is not None and (flow.destination is None or not _S3_ARN.match(flow.destination)):
        raise ConfigError(
            FLOW_LOGS_KEY,
            flow.destination,
            "on AWS the S3 bucket's ARN, e.g. arn:aws:s3:::my-flow-logs",
        )


def check(cfg: AwsStackConfig, itype: InstanceType) -> None:
    check_flow_logs(cfg)
    _check_region(cfg)
    _check_zone(cfg)
    _check_user_data(cfg)
    _check_tags(cfg)
    _check_capacity(cfg)
    if cfg.aws.existing_vpc_id and cfg.network.egress == "nat":
        raise ConfigError(
            "gpufabric:network.egress",
            "nat",
            "with gpufabric:aws.existingVpcId the VPC's own routing is kept: use endpoints or none",
        )
    if cfg.network.egress == "endpoints" and not cfg.aws.organization_id:
        raise MissingConfigError(
            "gpufabric:aws.organizationId",
            "required with gpufabric:network.egress=endpoints: the S3 endpoint then lets the "
            "nodes reach only your organisation's buckets (o-...)",
        )
    if isinstance(cfg.storage, FsxLustreConfig):  # else none: the model allows no other
        _check_fsx(cfg.storage)
        _check_storage_zone(cfg, cfg.storage)


def _check_tags(cfg: AwsStackConfig) -> None:
    for key in cfg.tags:
        if not _IMDS_TAG_KEY_RE.match(key) or key in _IMDS_RESERVED_TAG_KEYS:
            raise ConfigError(
                "gpufabric:tags",
                key,
                "the nodes read their tags from the instance metadata, so EC2 refuses to launch "
                "them with this tag key: use letters, digits and + - = . , _ : @ only (no "
                "spaces or /), and not '.', '..' or '_index'",
            )


def _check_region(cfg: AwsStackConfig) -> None:
    if cfg.region not in aws_regions():
        import difflib

        near = difflib.get_close_matches(cfg.region, sorted(aws_regions()), n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise ConfigError(
            "aws:region", cfg.region, f"{hint}not an AWS region in botocore's endpoint data"
        )


def _check_user_data(cfg: AwsStackConfig) -> None:
    if cfg.user_data is None:
        return
    size = len(cfg.user_data.encode())
    if size > USER_DATA_MAX_BYTES:
        raise ConfigError(
            "gpufabric:userData",
            f"<{size} bytes>",
            f"EC2 takes at most {USER_DATA_MAX_BYTES} bytes of user data (before base64)",
        )


def _check_zone(cfg: AwsStackConfig) -> None:
    match = _ZONE_RE.match(cfg.zone)
    if not match:
        raise ConfigError(
            "gpufabric:zone", cfg.zone, "expected an availability zone like us-east-1a"
        )
    if match["region"] != cfg.region:
        raise ConfigError(
            "gpufabric:zone",
            cfg.zone,
            f"the zone must be in the stack's region {cfg.region} (aws:region), e.g. {cfg.region}a",
        )


def _check_storage_zone(cfg: AwsStackConfig, fsx: FsxLustreConfig) -> None:
    if fsx.zone is None:
        return
    key = "gpufabric:storage.zone"
    match = _ZONE_RE.match(fsx.zone)
    if not match or match["region"] != cfg.region:
        raise ConfigError(
            key, fsx.zone, f"expected an availability zone of {cfg.region}, e.g. {cfg.zone}"
        )
    if fsx.efa and fsx.zone != cfg.zone:
        raise ConfigError(
            key,
            fsx.zone,
            f"EFA-enabled FSx shares the nodes' subnet (EFA cannot cross subnets): "
            f"leave it unset or use gpufabric:zone {cfg.zone}",
        )


def _check_capacity(cfg: AwsStackConfig) -> None:
    cap = cfg.capacity
    rid, group = cap.reservation_id, cap.resource_group_arn
    if rid is not None and not _RESERVATION_RE.match(rid):
        raise ConfigError(
            "gpufabric:capacity.reservationId", rid, "must look like cr-0123456789abcdef0"
        )
    for target in cap.reservations or []:
        if not _RESERVATION_RE.match(target.id):
            raise ConfigError(
                "gpufabric:capacity.reservations", target.id, "must look like cr-0123456789abcdef0"
            )
        if cap.type == "capacity-block" and target.nodes > CAPACITY_BLOCK_MAX_INSTANCES:
            raise ConfigError(
                "gpufabric:capacity.reservations",
                f"{target.id}: {target.nodes}",
                f"one capacity block holds at most {CAPACITY_BLOCK_MAX_INSTANCES} instances",
            )
    if group is not None:
        match = _RESOURCE_GROUP_RE.match(group)
        if not match or match["region"] != cfg.region:
            raise ConfigError(
                "gpufabric:capacity.resourceGroupArn",
                group,
                f"must be a capacity reservation resource group in {cfg.region}: "
                f"arn:aws:resource-groups:{cfg.region}:<account>:group/<name>",
            )
    if (
        cap.type == "capacity-block"
        and rid is not None
        and cfg.nodes > CAPACITY_BLOCK_MAX_INSTANCES
    ):
        raise ConfigError(
            "gpufabric:nodes",
            cfg.nodes,
            f"one capacity block holds at most {CAPACITY_BLOCK_MAX_INSTANCES} instances; put "
            "several blocks in a capacity reservation resource group and set "
            "gpufabric:capacity.resourceGroupArn instead of reservationId",
        )
    if cap.type == "capacity-block" and cfg.nodes > CAPACITY_BLOCKS_MAX_INSTANCES:
        raise ConfigError(
            "gpufabric:nodes",
            cfg.nodes,
            f"an account holds at most {CAPACITY_BLOCKS_MAX_INSTANCES} instances across all "
            "its capacity blocks",
        )
    timeout_set = "wait_for_capacity_timeout" in cfg.aws.model_fields_set
    if timeout_set and cfg.node_group != "group":
        raise ConfigError(
            "gpufabric:aws.waitForCapacityTimeout",
            cfg.aws.wait_for_capacity_timeout,
            "only for nodeGroup group (the Auto Scaling group); instances are waited for one by one",
        )


def _check_fsx(fsx: FsxLustreConfig) -> None:
    key = "gpufabric:storage"
    if fsx.deployment_type == "PERSISTENT_2":
        tiers = service("fsx-lustre").tiers()
        if fsx.throughput_per_tib not in tiers:
            raise ConfigError(
                f"{key}.throughputPerTib",
                fsx.throughput_per_tib,
                f"PERSISTENT_2 allows {_words(tiers)} MB/s per TiB",
            )
    else:
        # S3 data repository associations work on every deployment type but SCRATCH_1
        # ([P] AWS::FSx::DataRepositoryAssociation: "supported on all FSx for Lustre 2.12 and
        # newer file systems, excluding scratch_1"), so SCRATCH_2 keeps gpufabric:storage.s3
        if fsx.efa:
            raise ConfigError(
                f"{key}.efa", fsx.efa, "EFA-enabled FSx needs deploymentType PERSISTENT_2"
            )
        if fsx.throughput_per_tib not in (None, 1000):
            raise ConfigError(
                f"{key}.throughputPerTib",
                fsx.throughput_per_tib,
                "SCRATCH_2 has a fixed throughput",
            )
    _check_fsx_capacity(fsx)


def _check_fsx_capacity(fsx: FsxLustreConfig) -> None:
    """Capacity steps from the one table (clouds/aws/storage_steps.yaml). SCRATCH_2 takes the
    same SSD steps as PERSISTENT_2's TCP variant ([P] FSx API StorageCapacity)."""
    key = "gpufabric:storage.capacityGib"
    svc = service("fsx-lustre")
    variant = "efa" if fsx.efa else "tcp"
    tier = fsx.throughput_per_tib if fsx.throughput_per_tib is not None else 1000
    if not svc.valid(tier, fsx.capacity_gib, variant):
        what = f"EFA-enabled FSx at {tier} MB/s/TiB" if fsx.efa else "FSx for Lustre SSD"
        raise ConfigError(key, fsx.capacity_gib, f"{what} takes {svc.allowed(tier, variant)}")


def _words(values: tuple[int, ...]) -> str:
    return ", ".join(map(str, values[:-1])) + f" or {values[-1]}"
