"""The steps table and the pure sizing module (gpufabric.storage.sizing)."""

from __future__ import annotations

import pytest

from gpufabric.storage import sizing
from gpufabric.storage.sizing import (
    Band,
    Goal,
    Service,
    best_possible_gbps,
    rated_gbps,
    service,
    services,
    size,
)


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


def test_the_steps_are_read_from_each_clouds_table() -> None:
    """Read afresh (the tables are cached once per process), bands as the YAML states them."""
    sizing._services.cache_clear()
    fsx, lustre = service("fsx-lustre"), service("managed-lustre")
    assert fsx.variants["tcp"][125] == (Band(1200, 1200, 1200), Band(2400, None, 2400))
    assert fsx.variants["efa"][1000] == (Band(4800, None, 4800),)
    assert lustre.variants["tcp"][1000] == (
        Band(9000, 1530000, 9000),
        Band(1584000, 10008000, 72000),
    )
    assert (fsx.unit, lustre.unit, service("azure-managed-lustre").unit) == ("GiB", "GiB", "TiB")


def test_steps_count_from_the_bands_minimum() -> None:
    band = Band(100, 1000, 300)
    assert [c for c in range(0, 1300, 100) if band.holds(c)] == [100, 400, 700, 1000]
    assert band.smallest_at_least(100) == 100 and band.smallest_at_least(101) == 400
    assert band.smallest_at_least(1000) == 1000  # the maximum itself is a valid size
    oci = Band(31200, 124800, 10400)  # a step smaller than the minimum
    assert oci.smallest_at_least(1) == 31200 and oci.smallest_at_least(31201) == 41600


def test_a_services_tiers_in_words_and_limits() -> None:
    fsx = service("fsx-lustre")
    assert fsx.allowed(125) == "1,200 GiB; or 2,400 GiB or more in steps of 2,400"
    assert fsx.allowed(125, "efa") == "38,400 GiB or more in steps of 38,400"
    assert fsx.smallest(1000, 1300) == 2400 and fsx.smallest(1000, 1300, "efa") == 4800
    assert fsx.largest(125) is None  # the API states no maximum
    assert not fsx.valid(200, 2400)  # a tier FSx does not sell
    assert not fsx.valid(1000, 2400, "efa") and fsx.valid(1000, 4800, "efa")


GOAL_2400 = Goal(1, 10**6, read_gbps=2.34375)  # exactly what 2,400 GiB rate at 1,000 MB/s/TiB


def test_a_goal_met_exactly_takes_that_size_and_one_just_above_the_next_step() -> None:
    fsx = service("fsx-lustre")
    exact = size(fsx, GOAL_2400)
    assert exact is not None and (exact.capacity, exact.tier) == (2400, 1000)
    assert exact.rated_gbps == GOAL_2400.needed_gbps
    assert size(fsx, GOAL_2400, capacity=2400) is not None  # a fixed size meeting it exactly
    above = Goal(1, 10**6, read_gbps=2.34375 * (1 + 2e-7))
    sized = size(fsx, above)
    assert sized is not None and (sized.capacity, sized.tier) == (4800, 1000)
    assert sized.rated_gbps >= above.needed_gbps
    assert size(fsx, above, capacity=2400) is None


def test_an_efa_sizing_uses_the_efa_steps_and_says_so() -> None:
    fsx = service("fsx-lustre")
    sized = size(fsx, GOAL_2400, variant="efa")
    assert sized is not None and (sized.capacity, sized.tier) == (4800, 1000)
    assert sized.text().endswith("4,800 GiB at 1,000 MB/s/TiB, EFA (4.7 GB/s rated)")
    assert size(fsx, GOAL_2400, variant="efa", capacity=2400) is None  # a TCP-only size
    assert ", EFA" not in (size(fsx, GOAL_2400) or sized).text()


def test_rating_is_exact_on_round_figures() -> None:
    assert rated_gbps(1000, 1024) == 1.0 and rated_gbps(125, 2048) == 0.25


def test_the_best_a_service_can_rate() -> None:
    lustre = service("managed-lustre")
    assert best_possible_gbps(lustre) == pytest.approx(10008000 / 1024)  # 1,000 MB/s/TiB, top
    assert best_possible_gbps(lustre, tier=125) == pytest.approx(12240000 / 1024 * 0.125)
    assert best_possible_gbps(lustre, tier=500) == pytest.approx(20016000 / 1024 * 0.5)
    assert best_possible_gbps(service("fsx-lustre")) is None  # no maximum stated
    small = Service(
        "small", "Small", "test", "GiB",
        {"tcp": {100: (Band(1024, 1024, 1024),)}, "rdma": {100: (Band(1024, 2048, 1024),)}},
        (),
    )  # fmt: skip
    assert best_possible_gbps(small) == pytest.approx(0.1)
    assert best_possible_gbps(small, "rdma") == pytest.approx(0.2)
