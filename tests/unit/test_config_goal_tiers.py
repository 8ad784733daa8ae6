"""A checkpoint goal beside a tier the service does not have (GCP 300 MB/s/TiB, a misspelt OCI
tier name, ...) is refused by the cloud's own line naming the tier key (was a KeyError
traceback from the sizing table); a goal that cannot size the deployment type names it.
In-process, no Pulumi."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit import test_config_aws as aws
from tests.unit import test_config_azure as azure
from tests.unit import test_config_gcp as gcp
from tests.unit import test_config_oci as oci

from gpufabric.config import parse
from gpufabric.errors import UserError

GOAL = {"sizeGiB": 2048, "writeSeconds": 600}
OCI_TIERS = "one of MBPS_PER_TB_125, MBPS_PER_TB_250, MBPS_PER_TB_500, MBPS_PER_TB_1000"


def _line(base: dict[str, Any], storage: dict[str, Any]) -> str:
    try:
        cfg = parse({**base, "gpufabric:storage": {**storage, "checkpoint": GOAL}}, "goal")
    except UserError as exc:
        return str(exc)
    return f"ok {cfg.storage.model_dump(exclude={'checkpoint', 'type'})}"


def _oci(tier: str) -> str:
    return _line(oci.BASE, {"type": "oci-lustre", "performanceTier": tier})


@pytest.mark.parametrize(
    ("base", "storage", "line"),
    [
        (
            gcp.BASE,
            {**gcp.LUSTRE, "perUnitStorageThroughput": 300},
            "gpufabric:storage.perUnitStorageThroughput: 300 is not valid; allowed: 125, 250, 500 "
            "or 1000 MB/s per TiB",
        ),
        (
            azure.BASE,
            {**azure.AMLFS, "throughputPerTib": 1000},
            "gpufabric:storage.throughputPerTib: 1000 is not valid; Azure Managed Lustre SKUs give "
            "40, 125, 250 or 500 MB/s per TiB",
        ),
        (
            aws.BASE,
            {"type": "fsx-lustre", "throughputPerTib": 300, "efa": True},
            "gpufabric:storage.throughputPerTib: 300 is not valid; PERSISTENT_2 allows 125, 250, "
            "500 or 1000 MB/s per TiB",
        ),
    ],
    ids=["gcp", "azure", "aws"],
)
def test_goal_beside_a_tier_the_service_lacks(
    base: dict[str, Any], storage: dict[str, Any], line: str
) -> None:
    assert _line(base, storage) == line


@pytest.mark.parametrize("tier", ["FAST", "MBPS_PER_GB_250", "MBPS_PER_TB_x", "250"])
def test_goal_beside_a_misspelt_oci_tier(tier: str) -> None:
    assert _oci(tier) == f"gpufabric:storage.performanceTier: {tier!r} is not valid; {OCI_TIERS}"


def test_goal_beside_a_real_oci_tier_sizes_at_that_tier() -> None:
    picked = _line(oci.BASE, {"type": "oci-lustre"})
    given = _oci("MBPS_PER_TB_500")
    assert "'performance_tier': 'MBPS_PER_TB_250'" in picked, picked  # the goal's own pick
    assert "'performance_tier': 'MBPS_PER_TB_500'" in given, given
    assert "'capacity_gb': 31200" in given, given


def test_goal_on_scratch_fsx_names_the_deployment_type() -> None:
    assert _line(aws.BASE, {"type": "fsx-lustre", "deploymentType": "SCRATCH_2"}) == (
        "gpufabric:storage.deploymentType: 'SCRATCH_2' is not valid; a checkpoint goal sizes "
        "PERSISTENT_2 (the steps table has no SCRATCH_2 throughput); use PERSISTENT_2, or drop "
        "the goal"
    )


def test_goal_on_persistent_fsx_is_sized() -> None:
    """2 GiB x 1024 in 600 s on 16 p5 nodes: 4,800 GiB at 1000 MB/s/TiB (2,400 GiB rates
    2.3 GB/s, short of the 3.6 GB/s the goal needs)."""
    line = _line(aws.BASE, {"type": "fsx-lustre", "deploymentType": "PERSISTENT_2"})
    assert "'capacity_gib': 4800" in line and "'throughput_per_tib': 1000" in line, line
