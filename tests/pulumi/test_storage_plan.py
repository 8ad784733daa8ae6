"""The storage goal through the real program: derived sizes reach the resources, and the
summary says what the goal costs and where the bottleneck is."""

from __future__ import annotations

import json

from tests.pulumi.plans import plan_for

from gpufabric.plan.summary import fabric_summary

GOAL = {"sizeGiB": 2048, "writeSeconds": 60}


def _storage(kind: str, **extra: object) -> str:
    return "gpufabric:storage=" + json.dumps({"type": kind, "checkpoint": GOAL, **extra})


def test_aws_goal_sizes_the_fsx_resource_and_the_summary_names_the_bottleneck() -> None:
    plan = plan_for("aws-h100", _storage("fsx-lustre"))
    (fsx,) = plan.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    assert fsx.inputs["storageCapacity"] == 38400
    assert fsx.inputs["perUnitStorageThroughput"] == 1000
    assert "efaEnabled" not in fsx.inputs or not fsx.inputs["efaEnabled"]
    facts = dict(fabric_summary(plan))
    assert facts["Storage goal"] == (
        "a 2,048 GiB checkpoint in 60 s needs 36.7 GB/s: 38,400 GiB at 1,000 MB/s/TiB "
        "(37.5 GB/s rated)"
    )
    assert facts["Storage bottleneck"].startswith("the file system (file system 37.5 GB/s")
    assert "16 x 1 ENA on network card 0, 100 Gbps = 200.0 GB/s" in facts["Storage bottleneck"]


def test_aws_goal_on_two_nodes_turns_on_efa_in_the_resource() -> None:
    plan = plan_for("aws-h100", "gpufabric:nodes=2", _storage("fsx-lustre"))
    (fsx,) = plan.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    assert fsx.inputs["efaEnabled"] is True
    assert fsx.inputs["storageCapacity"] == 38400
    assert "metadataConfiguration" in fsx.inputs  # EFA needs PERSISTENT_2 + metadata config


def test_azure_goal_picks_the_sku_and_size() -> None:
    plan = plan_for("azure-ndv5", _storage("azure-managed-lustre"))
    (amlfs,) = plan.of_type("azure-native:storagecache:AmlFilesystem")
    assert amlfs.inputs["sku"] == {"name": "AMLFS-Durable-Premium-500"}
    assert amlfs.inputs["storageCapacityTiB"] == 76
    facts = dict(fabric_summary(plan))
    assert "76 TiB at 500 MB/s/TiB (38.0 GB/s rated)" in facts["Storage goal"]
    assert facts["Storage bottleneck"].startswith("the file system")


def test_gcp_goal_sizes_managed_lustre() -> None:
    plan = plan_for("gcp-a3-mega", _storage("managed-lustre"))
    (lustre,) = plan.of_type("gcp:lustre/instance:Instance")
    assert lustre.inputs["capacityGib"] == "45000"
    assert lustre.inputs["perUnitStorageThroughput"] == "1000"
    facts = dict(fabric_summary(plan))
    assert "45,000 GiB at 1,000 MB/s/TiB" in facts["Storage goal"]


def test_without_a_goal_the_summary_still_rates_the_file_system() -> None:
    facts = dict(fabric_summary(plan_for("gcp-a3-mega")))
    assert facts["Storage throughput"].startswith("36,000 GiB at 1,000 MB/s/TiB = 35.2 GB/s rated")
    assert facts["Storage bottleneck"].startswith("the file system")
