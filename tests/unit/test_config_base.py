"""The value types every config section shares (gpufabric.config.base), at their edges and
word for word: CIDR networks, Lustre client NIDs (octets, ranges, LNet networks), clients that
keep root only where root is squashed, the checkpoint goal's bounds, and a storage model's
sizing defaults. In-process, through the shipped stacks with `-c` overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufabric.config.base import CheckpointGoal, StorageSizing, no_squash_needs_squash
from gpufabric.config.load import parse
from gpufabric.errors import ConfigError
from gpufabric.plan.project import apply_overrides, read_stack

REPO = Path(__file__).resolve().parents[2]
NID = (
    "must be a Lustre client NID: an IPv4 address (octets 0-255 or [low-high] ranges) and its "
    "LNet network, e.g. 10.0.1.6@tcp or 10.0.[2-10].[1-255]@tcp"
)


def refusal(stack: str, *overrides: str) -> str:
    with pytest.raises(ConfigError) as err:
        parse(apply_overrides(read_stack(REPO, stack), list(overrides)), stack)
    return str(err.value)


def fsx(**fields: object) -> str:
    return "gpufabric:storage=" + json.dumps({"type": "fsx-lustre", **fields})


@pytest.mark.parametrize(
    "nid",
    [
        "10.0.1.6@tcp",
        "0.0.0.0@tcp",
        "255.255.255.255@o2ib",
        "10.0.1.6@efa",
        "10.0.1.6@tcp999",
        "10.0.[2-10].[1-255]@tcp",
        "10.0.[3-3].1@o2ib1",
        "[0-255].0.0.1@tcp",
    ],
)
def test_lustre_client_nids_are_taken(nid: str) -> None:
    cfg = parse(apply_overrides(read_stack(REPO, "aws-h100"), [fsx(noSquashNids=[nid])]), "s")
    assert cfg.storage.no_squash_nids == [nid]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "nid",
    [
        "10.0.1.256@tcp",  # an octet past 255
        "256.0.1.6@tcp",
        "10.0.[2-256].1@tcp",  # a range's end past 255
        "10.0.[10-2].1@tcp",  # a range that runs backwards
        "10.0.[4-3].1@tcp",
        "10.0.1.6@tcp1000",  # network number of 4 digits
        "10.0.1.6@udp",
        "10.0.1@tcp",
        "10.0.1.6",
        "1000.0.1.6@tcp",
        "10.0.1.6@tcp;reboot",
        " 10.0.1.6@tcp",
    ],
)
def test_lustre_client_nids_past_their_limits_are_refused(nid: str) -> None:
    assert refusal("aws-h100", fsx(noSquashNids=[nid])) == (
        f"gpufabric:storage.noSquashNids.0: {nid!r} is not valid; {NID}"
    )


def test_clients_that_keep_root_need_root_squashed() -> None:
    assert refusal("aws-h100", fsx(rootSquash=False, noSquashNids=["10.0.1.6@tcp"])) == (
        "gpufabric:storage.noSquashNids: ['10.0.1.6@tcp'] is not valid; lists clients that "
        "keep root, but rootSquash is false (none is squashed)"
    )
    assert no_squash_needs_squash([], False) == []
    assert no_squash_needs_squash(["10.0.1.6@tcp"], True) == ["10.0.1.6@tcp"]
    assert no_squash_needs_squash(["10.0.1.6@tcp"], None) == ["10.0.1.6@tcp"]


@pytest.mark.parametrize(
    ("cidr", "why"),
    [
        ("10.0.0.1/16", "10.0.0.1/16 has host bits set"),
        ("10.0.0.0/33", "'33' is not a valid netmask"),
        ("x", "Expected 4 octets in 'x'"),
        ("10.0.0.256/24", "Octet 256 (> 255) not permitted in '10.0.0.256'"),
    ],
)
def test_a_network_that_is_not_one_is_refused_with_the_reason(cidr: str, why: str) -> None:
    assert refusal("aws-h100", f"gpufabric:network.cidr={cidr}") == (
        f"gpufabric:network.cidr: {cidr!r} is not valid; must be an IPv4 network in CIDR form, "
        f"e.g. 10.0.0.0/16 ({why})"
    )


@pytest.mark.parametrize(
    ("goal", "ok"),
    [
        ({"sizeGiB": 1, "writeSeconds": 1}, True),
        ({"sizeGiB": 100_000_000, "writeSeconds": 86400, "readGBps": 1e6}, True),
        ({"sizeGiB": 0, "writeSeconds": 60}, False),
        ({"sizeGiB": 100_000_001, "writeSeconds": 60}, False),
        ({"sizeGiB": 1.5, "writeSeconds": 60}, False),
        ({"sizeGiB": "2048", "writeSeconds": 60}, False),
        ({"sizeGiB": 2048, "writeSeconds": 0}, False),
        ({"sizeGiB": 2048, "writeSeconds": 86400.5}, False),
        ({"sizeGiB": 2048, "writeSeconds": float("inf")}, False),
        ({"sizeGiB": 2048, "writeSeconds": float("nan")}, False),
        ({"sizeGiB": 2048, "writeSeconds": "60"}, False),
        ({"sizeGiB": 2048, "writeSeconds": 60, "readGBps": 0}, False),
        ({"sizeGiB": 2048, "writeSeconds": 60, "readGBps": 1e6 + 1}, False),
        ({"sizeGiB": 2048, "writeSeconds": 60, "sizeGib": 1}, False),  # unknown key
    ],
)
def test_the_checkpoint_goal_within_its_bounds(goal: dict[str, object], ok: bool) -> None:
    from pydantic import ValidationError

    if ok:
        assert CheckpointGoal.model_validate(goal).goal().size_gib == goal["sizeGiB"]
        return
    with pytest.raises(ValidationError):
        CheckpointGoal.model_validate(goal)


def test_a_storage_model_sized_by_default_keeps_its_tier_and_checks_nothing() -> None:
    sizing = StorageSizing(tier=("tier", "tier"), capacity=("capacity_gib", "capacityGib"))
    assert sizing.tier_number("250") == 250
    assert sizing.tier_value(250) == 250
    assert sizing.check(object()) is None
    assert (sizing.variant_flag, sizing.variant_label) == ("", "")
