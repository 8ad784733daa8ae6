"""gpufabric:storage.checkpoint: the smallest valid file system per cloud, or one refusing line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufabric.config import parse
from gpufabric.config.storage_goal import current
from gpufabric.errors import ConfigError

STACKS = Path(__file__).resolve().parents[2] / "stacks"
GOAL = {"sizeGiB": 2048, "writeSeconds": 60}  # needs 36.65 GB/s


def stack(name: str, **overrides: Any) -> dict[str, Any]:
    raw: dict[str, Any] = yaml.safe_load((STACKS / f"Pulumi.{name}.yaml").read_text())["config"]
    raw.update({f"gpufabric:{k}": v for k, v in overrides.items()})
    return raw


def storage(name: str, raw: dict[str, Any]) -> Any:
    return parse(raw, name).storage


def refused(raw: dict[str, Any], name: str) -> str:
    with pytest.raises(ConfigError) as err:
        parse(raw, name)
    message = str(err.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------- AWS: FSx for Lustre PERSISTENT_2
FSX = {"type": "fsx-lustre", "checkpoint": GOAL}


def test_aws_goal_gives_the_smallest_tcp_size() -> None:
    fsx = storage("aws-h100", stack("aws-h100", storage=FSX))
    # 36.65 GB/s at 1000 MB/s/TiB = 36.65 TiB = 37,530 GiB -> next 2,400 step; 36,000 is short
    assert (fsx.capacity_gib, fsx.throughput_per_tib, fsx.efa) == (38400, 1000, False)
    assert current(fsx).rated_gbps >= 36.65 > 36000 / 1024 * 1000 * 1e6 / 1e9


def test_aws_goal_at_a_fixed_tier_sizes_capacity_on_that_tier() -> None:
    fsx = storage("aws-h100", stack("aws-h100", storage={**FSX, "throughputPerTib": 250}))
    assert (fsx.capacity_gib, fsx.throughput_per_tib) == (151200, 250)  # 150,120 GiB -> 63 x 2400


def test_aws_efa_is_chosen_where_tcp_clients_cannot_carry_the_goal() -> None:
    # 2 x p5: one 100 Gbps ENA each = 25 GB/s over TCP; 8 EFA x 100 Gbps each = 200 GB/s
    fsx = storage("aws-h100", stack("aws-h100", nodes=2, storage=FSX))
    assert (fsx.capacity_gib, fsx.throughput_per_tib, fsx.efa) == (38400, 1000, True)


def test_aws_efa_false_on_purpose_is_refused_naming_efa() -> None:
    message = refused(stack("aws-h100", nodes=2, storage={**FSX, "efa": False}), "aws-h100")
    assert message.startswith("gpufabric:storage.efa: False is not valid;")
    assert "25.0 GB/s" in message and "set efa true" in message


def test_aws_goal_beyond_the_nodes_network_is_refused_naming_the_goal() -> None:
    goal = {"sizeGiB": 2048, "writeSeconds": 5}  # 439.8 GB/s; 2 x 8 EFA x 100 Gbps = 200 GB/s
    message = refused(stack("aws-h100", nodes=2, storage={**FSX, "checkpoint": goal}), "aws-h100")
    assert message.startswith(
        "gpufabric:storage.checkpoint: {'sizeGiB': 2048, 'writeSeconds': 5.0}"
    )
    assert "needs 439.8 GB/s" in message and "storage network is the limit" in message


def test_aws_given_capacity_too_small_for_the_goal_is_refused_naming_it() -> None:
    message = refused(stack("aws-h100", storage={**FSX, "capacityGib": 9600}), "aws-h100")
    assert message.startswith("gpufabric:storage.capacityGib: 9600 is not valid;")
    assert "but 9,600 GiB rates at most 9.4 GB/s; 38,400 GiB would do" in message


def test_aws_given_capacity_off_the_steps_says_which_sizes_exist() -> None:
    message = refused(stack("aws-h100", storage={**FSX, "capacityGib": 5000}), "aws-h100")
    assert message.startswith("gpufabric:storage.capacityGib: 5000 is not valid; not a FSx")
    assert "2,400 GiB or more in steps of 2,400; 38,400 GiB would do" in message


def test_aws_given_sizes_that_meet_the_goal_are_kept() -> None:
    given = {**FSX, "capacityGib": 48000, "throughputPerTib": 1000}
    fsx = storage("aws-h100", stack("aws-h100", storage=given))
    assert (fsx.capacity_gib, fsx.throughput_per_tib) == (48000, 1000)


def test_aws_scratch_with_a_goal_is_refused() -> None:
    scratch = {**FSX, "deploymentType": "SCRATCH_2", "throughputPerTib": None}
    message = refused(stack("aws-h100", storage=scratch), "aws-h100")
    assert message.startswith("gpufabric:storage.deploymentType: 'SCRATCH_2'")


def test_aws_read_rate_can_be_the_larger_need() -> None:
    goal = {**GOAL, "readGBps": 100}
    fsx = storage("aws-h100", stack("aws-h100", storage={**FSX, "checkpoint": goal}))
    assert current(fsx).rated_gbps >= 100
    assert fsx.capacity_gib == 103200  # 100 GB/s at 1000 MB/s/TiB = 100 TiB = 102,400 -> 43 x 2400


# ---------------------------------------------------------------- Azure Managed Lustre
AMLFS = {"type": "azure-managed-lustre", "checkpoint": GOAL}


def test_azure_goal_gives_the_smallest_sku_size() -> None:
    amlfs = storage("azure-ndv5", stack("azure-ndv5", storage=AMLFS))
    # 250 MB/s/TiB would need 146.6 TiB > 128: only the 500 SKU fits, 73.3 -> 76 TiB
    assert (amlfs.capacity_tib, amlfs.throughput_per_tib) == (76, 500)
    assert amlfs.sku == "AMLFS-Durable-Premium-500"


def test_azure_goal_above_the_largest_size_is_refused() -> None:
    goal = {"sizeGiB": 2048, "writeSeconds": 20}  # 110 GB/s > 500 x 128 TiB = 64 GB/s
    message = refused(stack("azure-ndv5", storage={**AMLFS, "checkpoint": goal}), "azure-ndv5")
    assert message.startswith("gpufabric:storage.checkpoint:")
    assert "reaches at most 64.0 GB/s" in message


def test_azure_fixed_sku_that_cannot_reach_the_goal_names_the_tier() -> None:
    message = refused(stack("azure-ndv5", storage={**AMLFS, "throughputPerTib": 125}), "azure-ndv5")
    assert message.startswith("gpufabric:storage.throughputPerTib: 125 is not valid;")


def test_azure_nodes_ethernet_is_the_limit() -> None:
    # 2 VMs x 80 Gbps Ethernet = 20 GB/s < 36.65 GB/s
    message = refused(stack("azure-ndv5", nodes=2, storage=AMLFS), "azure-ndv5")
    assert "Ethernet NIC 80 Gbps" in message and "storage network is the limit" in message


# ---------------------------------------------------------------- GCP Managed Lustre
LUSTRE = {"type": "managed-lustre", "checkpoint": GOAL}


def test_gcp_goal_gives_the_smallest_tier_size() -> None:
    lustre = storage("gcp-a3-mega", stack("gcp-a3-mega", storage=LUSTRE))
    assert (lustre.capacity_gib, lustre.per_unit_storage_throughput) == (45000, 1000)


def test_gcp_large_goal_lands_on_the_coarse_step_above_the_threshold() -> None:
    # 1,718 GB/s at 1000 MB/s/TiB = 1,759,219 GiB: above 1,530,000 the step is 72,000 -> 25 x 72,000
    goal = {"sizeGiB": 1_600_000, "writeSeconds": 1000}
    lustre = storage(
        "gcp-a3-mega", stack("gcp-a3-mega", nodes=128, storage={**LUSTRE, "checkpoint": goal})
    )
    assert (lustre.capacity_gib, lustre.per_unit_storage_throughput) == (1800000, 1000)


def test_gcp_goal_no_size_meets_is_refused() -> None:
    goal = {"sizeGiB": 10_000_000, "writeSeconds": 1000}  # 10.7 TB/s; every tier tops out at 9.77
    raw = stack("gcp-a3-mega", nodes=4096, storage={**LUSTRE, "checkpoint": goal})
    message = refused(raw, "gcp-a3-mega")
    assert message.startswith("gpufabric:storage.checkpoint:")
    assert "Google Cloud Managed Lustre reaches at most 9773.4 GB/s" in message


def test_gcp_parallelstore_with_a_goal_is_refused() -> None:
    store = {"type": "parallelstore", "capacityGib": 12000, "checkpoint": GOAL}
    raw = stack("gcp-a3-mega", storage=store, network={"storageSubnet": "10.0.32.0/24"})
    assert refused(raw, "gcp-a3-mega").startswith("gpufabric:storage.checkpoint:")


# ---------------------------------------------------------------- OCI: File Storage with Lustre
OCI_LUSTRE = {"type": "oci-lustre", "checkpoint": GOAL}


def test_oci_goal_gives_the_smallest_size_on_oracles_steps() -> None:
    lustre = storage("oci-h100", stack("oci-h100", storage=OCI_LUSTRE))
    # 36.65 GB/s at 1000 MB/s per TB read per TiB: 37,530 GiB = 40,298 GB -> 41,600 (31,200
    # + 10,400); 31,200 GB at 1000 rates 28.4 GB/s, short
    assert (lustre.capacity_gb, lustre.performance_tier) == (41600, "MBPS_PER_TB_1000")
    assert current(lustre).rated_gbps >= 36.65


def test_oci_goal_at_a_fixed_tier_lands_on_the_large_steps() -> None:
    given = {**OCI_LUSTRE, "performanceTier": "MBPS_PER_TB_250"}
    lustre = storage("oci-h100", stack("oci-h100", storage=given))
    # 161,190 GB at 250 -> past 124,800: 124,800 + 41,600 = 166,400
    assert (lustre.capacity_gb, lustre.performance_tier) == (166400, "MBPS_PER_TB_250")


def test_oci_given_capacity_too_small_for_the_goal_is_refused_naming_it() -> None:
    given = {**OCI_LUSTRE, "capacityGb": 31200, "performanceTier": "MBPS_PER_TB_1000"}
    message = refused(stack("oci-h100", storage=given), "oci-h100")
    assert message.startswith("gpufabric:storage.capacityGb: 31200 is not valid;"), message
    assert "41,600 GB would do" in message


# ---------------------------------------------------------------- hostile goals
@pytest.mark.parametrize(
    ("goal", "key"),
    [
        ({"sizeGiB": -1, "writeSeconds": 60}, "gpufabric:storage.checkpoint.sizeGiB"),
        ({"sizeGiB": 2048.5, "writeSeconds": 60}, "gpufabric:storage.checkpoint.sizeGiB"),
        ({"sizeGiB": True, "writeSeconds": 60}, "gpufabric:storage.checkpoint.sizeGiB"),
        ({"sizeGiB": "2TiB", "writeSeconds": 60}, "gpufabric:storage.checkpoint.sizeGiB"),
        ({"sizeGiB": 2048, "writeSeconds": 0}, "gpufabric:storage.checkpoint.writeSeconds"),
        (
            {"sizeGiB": 2048, "writeSeconds": float("nan")},
            "gpufabric:storage.checkpoint.writeSeconds",
        ),
        (
            {"sizeGiB": 2048, "writeSeconds": float("inf")},
            "gpufabric:storage.checkpoint.writeSeconds",
        ),
        (
            {"sizeGiB": 2048, "writeSeconds": 60, "readGBps": -5},
            "gpufabric:storage.checkpoint.readGBps",
        ),
        ({"sizeGiB": 2048}, "gpufabric:storage.checkpoint.writeSeconds"),
        ({"sizeGib": 2048, "writeSeconds": 60}, "gpufabric:storage.checkpoint"),
        ("2048 GiB in 60 s", "gpufabric:storage.checkpoint"),
    ],
)
def test_bad_goal_values_name_the_key(goal: Any, key: str) -> None:
    message = refused(stack("aws-h100", storage={**FSX, "checkpoint": goal}), "aws-h100")
    assert message.startswith(f"{key}"), message
