"""AWS id formats: resource ids are a prefix, '-' and 8 or 17 hexadecimal digits
([P] docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html: "i-" then 8 characters for
older ids, 17 for ids made since 2016)."""

from __future__ import annotations

from gpufabric.inputs import types


def resource_id(prefix: str) -> object:
    """The id type of one EC2 resource kind ('i' instances, 'vpc', 'subnet', 'sg')."""
    return types.matching(
        rf"{prefix}-(?:[0-9a-f]{{8}}|[0-9a-f]{{17}})",
        f"an AWS id {prefix}- and 8 or 17 hexadecimal digits, e.g. {prefix}-0abc1234def567890",
    )


InstanceId = resource_id("i")
VpcId = resource_id("vpc")
SubnetId = resource_id("subnet")
