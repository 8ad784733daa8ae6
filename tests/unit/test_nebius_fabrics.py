"""Which InfiniBand fabric a Nebius stack's GPU cluster goes on (gpufabric.clouds.nebius.fabrics),
word for word: the fabric named and checked against the table (its region, its platform, the
choices where there are some), a fabric the table does not know taken as named, and the one
fabric picked when none is named. In-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpufabric.clouds.nebius.fabrics import fabric_for, fabrics
from gpufabric.config.load import parse
from gpufabric.errors import ConfigError
from gpufabric.plan.project import read_stack

REPO = Path(__file__).resolve().parents[2]
H100 = "gpu-h100-sxm/8gpu-128vcpu-1600gb"
H200 = "gpu-h200-sxm/8gpu-128vcpu-1600gb"
B200 = "gpu-b200-sxm/8gpu-160vcpu-1792gb"
KEY = "gpufabric:nebius.infinibandFabric"


def nebius(fabric: str | None, zone: str = "eu-north1", itype: str = H100) -> dict[str, Any]:
    raw = read_stack(REPO, "nebius-h100")
    section = {k: v for k, v in raw["gpufabric:nebius"].items() if k != "infinibandFabric"}
    if fabric is not None:
        section["infinibandFabric"] = fabric
    return {
        **raw,
        "gpufabric:nebius": section,
        "gpufabric:zone": zone,
        "gpufabric:instanceType": itype,
    }


def refusal(raw: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as err:
        parse(raw, "s")
    return str(err.value)


@pytest.mark.parametrize(
    ("zone", "itype", "platform", "fabric"),
    [
        ("eu-west1", H200, "gpu-h200-sxm", "fabric-5"),
        ("us-central1", B200, "gpu-b200-sxm", "us-central1-b"),
        ("eu-north2", H200, "gpu-h200-sxm", "eu-north2-a"),
        ("eu-north1", H200, "gpu-h200-sxm", "fabric-7"),
    ],
)
def test_the_one_fabric_of_a_platform_in_a_region_is_picked(
    zone: str, itype: str, platform: str, fabric: str
) -> None:
    cfg = parse(nebius(None, zone, itype), "s")
    assert fabric_for(cfg, platform) == fabric  # type: ignore[arg-type]


@pytest.mark.parametrize("fabric", ["fabric-3", "fabric-99"])
def test_a_named_fabric_is_taken_when_the_table_agrees_or_does_not_know_it(fabric: str) -> None:
    cfg = parse(nebius(fabric), "s")
    assert fabric_for(cfg, "gpu-h100-sxm") == fabric  # type: ignore[arg-type]


def test_a_named_fabric_of_another_region_is_refused() -> None:
    assert refusal(nebius("fabric-5")) == (
        f"{KEY}: 'fabric-5' is not valid; this fabric is in eu-west1, not in the stack's region "
        "eu-north1"
    )


def test_a_named_fabric_of_another_platform_names_the_right_ones() -> None:
    assert refusal(nebius("fabric-7")) == (
        f"{KEY}: 'fabric-7' is not valid; this fabric holds gpu-h200-sxm VMs, not gpu-h100-sxm; "
        "gpu-h100-sxm in eu-north1: fabric-2, fabric-3, fabric-4, fabric-6"
    )
    # no fabric of that platform in the region: nothing to suggest
    assert refusal(nebius("us-central1-a", "us-central1")) == (
        f"{KEY}: 'us-central1-a' is not valid; this fabric holds gpu-h200-sxm VMs, not gpu-h100-sxm"
    )


def test_no_fabric_named_where_the_table_has_none_or_several() -> None:
    assert refusal(nebius(None, "eu-west1")) == (
        f"{KEY}: None is not valid; no published fabric holds gpu-h100-sxm in eu-west1: name "
        "the one Nebius gave you for your capacity"
    )
    assert refusal(nebius(None)) == (
        f"{KEY}: None is not valid; gpu-h100-sxm in eu-north1 is on several fabrics (fabric-2, "
        "fabric-3, fabric-4, fabric-6): name the one that holds your capacity"
    )


def test_every_fabric_of_the_table_has_a_source() -> None:
    table = fabrics()
    assert "fabric-3" in table and table["fabric-3"].platform == "gpu-h100-sxm"
    assert all(f.sources and f.region and f.platform for f in table.values())
