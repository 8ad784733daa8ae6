"""Stack config naming several reservations or a GCP sub-block: accepted, or refused naming
the key (the shapes `gpufabric capacity plan` writes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.config.load import parse
from gpufabric.errors import ConfigError
from gpufabric.plan.project import apply_overrides, read_stack

REPO = Path(__file__).resolve().parents[2]
SUB = "projects/my-gpu-project/reservations/a3u/reservationBlocks/b1/reservationSubBlocks/s1"


def config(stack: str, *overrides: str):
    return parse(apply_overrides(read_stack(REPO, stack), list(overrides)), stack)


def test_gcp_sub_block_path_is_a_reservation():
    cfg = config("gcp-a3-ultra", f"gpufabric:capacity.reservationId={SUB}")
    assert cfg.capacity.target_ids() == [SUB]


def test_several_reservations_with_shares():
    cfg = config(
        "aws-h100",
        "gpufabric:nodeGroup=instances",
        "gpufabric:capacity.type=reservation",
        'gpufabric:capacity.reservations=[{"id":"cr-0a0000000000000aa","nodes":10},'
        '{"id":"cr-0b0000000000000bb","nodes":6}]',
    )
    assert cfg.capacity.target_ids() == ["cr-0a0000000000000aa", "cr-0b0000000000000bb"]


AWS_TWO = (
    'gpufabric:capacity.reservations=[{"id":"cr-0a0000000000000aa","nodes":10},'
    '{"id":"cr-0b0000000000000bb","nodes":5}]'
)


@pytest.mark.parametrize(
    ("stack", "overrides", "key", "words"),
    [
        (
            "aws-h100",
            ["gpufabric:nodeGroup=instances", "gpufabric:capacity.type=reservation", AWS_TWO],
            "gpufabric:capacity.reservations",
            "add up to 15, but gpufabric:nodes is 16",
        ),
        (
            "aws-h100",
            ["gpufabric:nodes=15", "gpufabric:capacity.type=reservation", AWS_TWO],
            "gpufabric:nodeGroup",
            "use nodeGroup instances",
        ),
        (
            "aws-h100",
            [
                "gpufabric:nodes=1",
                "gpufabric:nodeGroup=instances",
                "gpufabric:capacity.type=reservation",
                'gpufabric:capacity.reservations=[{"id":"res-a","nodes":1}]',
            ],
            "gpufabric:capacity.reservations",
            "cr-0123456789abcdef0",
        ),
        (
            "aws-h100",
            [
                "gpufabric:nodes=70",
                "gpufabric:nodeGroup=instances",
                "gpufabric:capacity.type=capacity-block",
                'gpufabric:capacity.reservations=[{"id":"cr-0a0000000000000aa","nodes":65},'
                '{"id":"cr-0b0000000000000bb","nodes":5}]',
            ],
            "gpufabric:capacity.reservations",
            "one capacity block holds at most 64",
        ),
        (
            "aws-h100",
            [
                "gpufabric:capacity.type=reservation",
                'gpufabric:capacity.reservations=[{"id":"cr-0a0000000000000aa","nodes":8},'
                '{"id":"cr-0a0000000000000aa","nodes":8}]',
            ],
            "gpufabric:capacity",
            "names one reservation twice",
        ),
        (
            "aws-h100",
            ["gpufabric:capacity.type=reservation", "gpufabric:capacity.reservations=[]"],
            "gpufabric:capacity",
            "reservations is empty",
        ),
        (
            "oci-h100",
            [
                "gpufabric:capacity.type=reservation",
                'gpufabric:capacity.reservations=[{"id":"ocid1.capacityreservation.oc1..a","nodes":16}]',
            ],
            "gpufabric:capacity.reservations",
            "AWS/GCP-only",
        ),
        (
            "gcp-a3-ultra",
            ["gpufabric:capacity.reservationId=a3u/reservationSubBlocks/s1"],
            "gpufabric:capacity.reservationId",
            "[/reservationSubBlocks/SUBBLOCK]",
        ),
    ],
)
def test_refused_naming_the_key(stack: str, overrides: list[str], key: str, words: str):
    with pytest.raises(ConfigError) as err:
        config(stack, *overrides)
    assert err.value.key == key, str(err.value)
    assert words in str(err.value)
