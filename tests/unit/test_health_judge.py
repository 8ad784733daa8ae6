"""Step 2's verdict on one group: its limits (as typed, and as carried between rounds), the
samples it keeps, the floors it applies and the reason it prints."""

from __future__ import annotations

import math

import pytest

from gpufabric.errors import UserError
from gpufabric.health import bisect
from gpufabric.health.judge import Limits, clean, judge, median, value

LIMITS = Limits(expected_gbps=100.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"expected_gbps": 0.0}, "expected rate: 0.0 Gbit/s is not a positive number"),
        ({"expected_gbps": -5.0}, "expected rate: -5.0 Gbit/s is not a positive number"),
        ({"expected_gbps": math.inf}, "expected rate: inf Gbit/s is not a positive number"),
        ({"fraction": 0.0}, "fraction: 0.0 is not in (0, 1]"),
        ({"fraction": 1.5}, "fraction: 1.5 is not in (0, 1]"),
        ({"fraction": math.nan}, "fraction: nan is not in (0, 1]"),
        ({"min_samples": 0}, "min_samples: 0 is not >= 1"),
    ],
)
def test_impossible_limits_are_refused_in_one_line(kwargs: dict, message: str) -> None:
    with pytest.raises(UserError) as exc:
        Limits(**kwargs)
    assert str(exc.value) == message


def test_the_edges_of_the_limits_are_accepted() -> None:
    assert Limits(expected_gbps=1e-3, fraction=1.0, min_samples=1).fraction == 1.0


def test_limits_survive_the_trip_between_rounds() -> None:
    """The playbook carries the state (and its limits) as JSON from one round to the next."""
    limits = Limits(expected_gbps=50.0, fraction=0.9, min_samples=3)
    assert Limits.from_dict(limits.to_dict()) == limits
    assert Limits.from_dict({}) == Limits(expected_gbps=None, fraction=0.7, min_samples=1)
    for unset in (None, "", 0):
        assert Limits.from_dict({"expected_gbps": unset}).expected_gbps is None
    assert Limits.from_dict({"expected_gbps": 1}).expected_gbps == 1.0


def test_a_stricter_fraction_and_more_samples_hold_in_every_round() -> None:
    def measure(tests: list[dict]) -> list[dict]:
        return [{"fwd": [80.0, 80.0], "rev": [80.0, 80.0]} for _ in tests]

    hosts = [f"n{i}" for i in range(1, 5)]
    assert bisect.run(hosts, measure, LIMITS)["bad"] == {}  # 80 >= 70% of 100
    strict = bisect.run(hosts, measure, Limits(expected_gbps=100.0, fraction=0.9))
    assert sorted(strict["bad"]) == hosts
    assert "fwd 80 Gbit/s < 90% of expected 100" in strict["bad"]["n1"]
    three = bisect.run(hosts, measure, Limits(expected_gbps=100.0, min_samples=3))
    assert "fwd: no usable measurement" in three["bad"]["n1"]


def test_clean_keeps_finite_non_negative_numbers_only() -> None:
    assert clean(["x", 5, True, None, -1.0, math.inf, math.nan, 0, 2.5]) == [5.0, 0.0, 2.5]
    assert value([1.0, 2.0], Limits(min_samples=3)) is None
    assert value([1.0, 2.0, 9.0], Limits(min_samples=3)) == 2.0


def test_median_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"^median of nothing$"):
        median([])


def test_a_direction_that_moved_nothing_fails_even_against_peers_that_moved_nothing() -> None:
    """Judged against the peers only (no expected rate) with every group at 0 Gbit/s, the
    peers' floor is 0: the group must still fail, not pass on nothing."""
    nothing = judge({"fwd": [0.0, 0.0], "rev": [0, 0]}, [0.0, 0.0], Limits(expected_gbps=None))
    assert not nothing.ok
    assert nothing.reason == "fwd: moved nothing (0 Gbit/s); rev: moved nothing (0 Gbit/s)"
    assert judge({"fwd": [0.5], "rev": [0.5]}, [], Limits(expected_gbps=None)).ok

    def measure(tests: list[dict]) -> list[dict]:
        return [{"fwd": [0.0] * 3, "rev": [0.0] * 3} for _ in tests]

    hosts = [f"n{i}" for i in range(1, 5)]
    state = bisect.run(hosts, measure, Limits(expected_gbps=None))
    assert sorted(state["bad"]) == hosts and state["good"] == []


def test_the_floor_itself_passes_and_just_below_it_fails() -> None:
    at = judge({"fwd": [70.0], "rev": [70.0]}, [], LIMITS)
    assert at.ok and at.values == {"fwd": 70.0, "rev": 70.0} and at.reason == ""
    below = judge({"fwd": [69.9], "rev": [100.0]}, [], LIMITS)
    assert below.reason == "fwd 69.9 Gbit/s < 70% of expected 100"


def test_each_direction_is_named_once_with_the_first_floor_it_misses() -> None:
    both = judge({"fwd": [10.0], "rev": [20.0]}, [100.0], LIMITS)
    assert both.ok is False
    assert both.reason == (
        "fwd 10 Gbit/s < 70% of expected 100; rev 20 Gbit/s < 70% of expected 100"
    )
    peers = judge({"fwd": [80.0], "rev": [200.0]}, [150.0, 200.0, 250.0], LIMITS)
    assert peers.reason == "fwd 80 Gbit/s < 70% of peers' median 200"


def test_a_missing_direction_is_no_measurement_and_both_are_named() -> None:
    one = judge({"fwd": [100.0]}, [], LIMITS)
    assert one.reason == "rev: no usable measurement"
    assert one.values == {"fwd": 100.0, "rev": None}
    none = judge({}, [], LIMITS)
    assert none.reason == "fwd: no usable measurement; rev: no usable measurement"


def test_a_failed_test_keeps_what_it_measured() -> None:
    failed = judge({"fwd": [5.0], "rev": [6.0]}, [], LIMITS, error="iperf3: timeout")
    assert failed.ok is False
    assert failed.reason == "traffic test failed: iperf3: timeout"
    assert failed.values == {"fwd": 5.0, "rev": 6.0}
