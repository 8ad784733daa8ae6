"""The steps table and the pure sizing module (gpufabric.storage.sizing)."""

from __future__ import annotations

import pytest

from gpufabric.storage.sizing import Band, Goal, rated_gbps, service, services, size


def test_every_service_has_sources_and_consistent_bands() -> None:
    for svc in services().values():
        assert svc.sources, svc.name
        for tiers in svc.variants.values():
            for tier, bands in tiers.items():
                assert tier > 0
                for band in bands:
                    assert band.step > 0 and band.low > 0
                    if band.high is not None:
                        assert band.holds(band.high), (svc.name, tier, band)
                        assert band.high >= band.low


def test_band_membership_and_smallest() -> None:
    band = Band(9000, 1530000, 9000)
    assert band.holds(9000) and band.holds(1530000) and not band.holds(13500)
    assert not band.holds(1539000) and not band.holds(0)
    assert band.smallest_at_least(1) == 9000
    assert band.smallest_at_least(9001) == 18000
    assert band.smallest_at_least(1530001) is None


def test_gcp_reads_the_current_two_step_table() -> None:
    lustre = service("managed-lustre")
    assert lustre.valid(1000, 1530000) and lustre.valid(1000, 1584000)
    assert not lustre.valid(1000, 1539000)  # past the threshold only 72,000 steps
    assert lustre.valid(1000, 10008000) and not lustre.valid(1000, 10080000)
    assert lustre.largest(125) == 12240000


def test_rating_reads_mb_as_decimal_and_tib_as_binary() -> None:
    assert rated_gbps(1000, 1024) == pytest.approx(1.0)
    assert Goal(2048, 60).write_gbps == pytest.approx(36.65, abs=0.01)


def test_the_worked_example_of_the_docs() -> None:
    sized = size(service("managed-lustre"), Goal(2048, 60))
    assert sized is not None
    assert sized.text() == (
        "a 2,048 GiB checkpoint in 60 s needs 36.7 GB/s: 45,000 GiB at 1,000 MB/s/TiB "
        "(43.9 GB/s rated)"
    )


def test_capacity_holds_the_checkpoint_even_when_throughput_needs_less() -> None:
    sized = size(service("fsx-lustre"), Goal(50000, 86400))  # slow, but 50,000 GiB must fit
    assert sized is not None and sized.capacity_gib >= 50000
    assert sized.tier == 125  # the least capacity; on a tie the lower tier


def test_fixed_capacity_must_be_valid_and_enough() -> None:
    fsx = service("fsx-lustre")
    assert size(fsx, Goal(2048, 60), capacity=38400) is not None
    assert size(fsx, Goal(2048, 60), capacity=38000) is None  # off-step
    assert size(fsx, Goal(2048, 60), capacity=36000) is None  # short of 36.65 GB/s
