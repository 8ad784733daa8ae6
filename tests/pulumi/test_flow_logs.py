"""Flow logs are available on every cloud (`gpufabric:network.flowLogs`), with the
destination each cloud needs checked before anything is planned."""

from __future__ import annotations

import json

import pytest

from gpufabric.config.load import parse
from gpufabric.config.stack_reader import load_stack_file
from gpufabric.errors import ConfigError

from .plans import REPO, plan_for

S3 = json.dumps({"destination": "arn:aws:s3:::my-flow-logs/gpufabric"})
STORAGE = json.dumps({"destination": "/subscriptions/00000000-0000-0000-0000-000000000000"
                      "/resourceGroups/logs/providers/Microsoft.Storage/storageAccounts/flowlogs1"})  # fmt: skip


def test_aws_vpc_flow_log_to_s3() -> None:
    plan = plan_for("aws-h100", f"gpufabric:network.flowLogs={S3}")
    (log,) = plan.of_type("aws:ec2/flowLog:FlowLog")
    assert log.inputs["vpcId"] == "<aws-h100-vpc.id>"
    assert (log.inputs["trafficType"], log.inputs["logDestinationType"]) == ("ALL", "s3")
    assert log.inputs["logDestination"] == "arn:aws:s3:::my-flow-logs/gpufabric"
    assert not plan_for("aws-h100").of_type("aws:ec2/flowLog:FlowLog")  # off unless asked


def test_gcp_subnet_flow_logs_except_on_rdma_subnets() -> None:
    plan = plan_for("gcp-a3-ultra", "gpufabric:network.flowLogs={}")
    subnets = plan.of_type("gcp:compute/subnetwork:Subnetwork")
    logged = {s.name for s in subnets if "logConfig" in s.inputs}
    assert logged and all("rdma" not in name for name in logged)
    assert all("rdma" in s.name for s in subnets if s.name not in logged)
    sample = next(s for s in subnets if "logConfig" in s.inputs).inputs["logConfig"]
    assert sample["flowSampling"] == 1 and sample["metadata"] == "INCLUDE_ALL_METADATA"


def test_azure_vnet_flow_log_through_network_watcher() -> None:
    plan = plan_for("azure-ndv5", f"gpufabric:network.flowLogs={STORAGE}")
    (log,) = plan.of_type("azure-native:network:FlowLog")
    assert log.inputs["targetResourceId"] == "<azure-ndv5-vnet.id>"
    assert log.inputs["networkWatcherName"] == "NetworkWatcher_eastus"
    assert log.inputs["storageId"].endswith("/storageAccounts/flowlogs1")


@pytest.mark.parametrize(
    ("stack", "value", "expected"),
    [
        ("aws-h100", {}, "on AWS the S3 bucket's ARN"),
        ("aws-h100", {"destination": "s3://bucket"}, "on AWS the S3 bucket's ARN"),
        ("azure-ndv5", {"destination": "flowlogs1"}, "on Azure the storage account's resource id"),
        ("gcp-a3-mega", {"destination": "x"}, "leave it unset on GCP"),
    ],
)
def test_a_wrong_destination_names_the_key(
    stack: str, value: dict[str, str], expected: str
) -> None:
    raw = load_stack_file(REPO / "stacks" / f"Pulumi.{stack}.yaml", "gpufabric")
    raw["gpufabric:network"] = {**raw["gpufabric:network"], "flowLogs": value}
    with pytest.raises(ConfigError, match=expected) as exc:
        parse(raw, stack)
    assert str(exc.value).startswith("gpufabric:network.flowLogs.destination: ")
