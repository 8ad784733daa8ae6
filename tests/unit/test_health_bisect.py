"""Step 2: the bisection (groups chosen, judged, rounds) driven by a synthetic fabric."""

from __future__ import annotations

import math
import random

import pytest

from gpufabric.errors import UserError
from gpufabric.health import bisect
from gpufabric.health.judge import Limits, judge, median
from gpufabric.health.sim import SyntheticFabric

LIMITS = Limits(expected_gbps=100.0)


def hosts(n: int) -> list[str]:
    return [f"n{i:02d}" for i in range(1, n + 1)]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8, 13, 16, 32, 64])
def test_every_single_slow_host_is_found_in_log2_rounds(n: int) -> None:
    for bad in hosts(n):
        fab = SyntheticFabric(egress={bad: 0.1}, ingress={bad: 0.1}, seed=n)
        state = bisect.run(hosts(n), fab.measure, LIMITS)
        if n < 4:  # no known-good host to confirm against: the whole group is named
            assert set(state["bad"]) == set(hosts(n))
            assert "no known-good partner" in state["bad"][bad]
            continue
        assert list(state["bad"]) == [bad], (n, bad, state["bad"], state["findings"])
        assert "slow link" in state["bad"][bad]
        assert len(state["rounds"]) <= max(2, math.ceil(math.log2(n))), (n, bad)
        assert set(state["good"]) == set(hosts(n)) - {bad}


@pytest.mark.parametrize("direction", ["egress", "ingress"])
def test_a_link_slow_one_way_only_is_found(direction: str) -> None:
    fab = SyntheticFabric(**{direction: {"n05": 0.2}})  # type: ignore[arg-type]
    state = bisect.run(hosts(8), fab.measure, LIMITS)
    assert list(state["bad"]) == ["n05"]


def test_no_fault_is_one_round_and_all_good() -> None:
    fab = SyntheticFabric(noise=0.2)
    state = bisect.run(hosts(16), fab.measure, LIMITS)
    assert state["bad"] == {} and len(state["rounds"]) == 1
    assert sorted(state["good"]) == hosts(16)


def test_two_bad_hosts_in_different_halves_are_both_found() -> None:
    fab = SyntheticFabric(egress={"n02": 0.1, "n07": 0.3})
    state = bisect.run(hosts(8), fab.measure, LIMITS)
    assert sorted(state["bad"]) == ["n02", "n07"]


def test_one_noisy_repeat_does_not_fail_a_group() -> None:
    def measure(tests: list[dict]) -> list[dict]:
        return [{"fwd": [100, 2, 100], "rev": [100, 100, float("nan")]} for _ in tests]

    state = bisect.run(hosts(8), measure, LIMITS)
    assert state["bad"] == {} and len(state["rounds"]) == 1


def test_slow_links_between_halves_blame_no_host() -> None:
    # n1..n4 and n5..n8 are fine alone, any group spanning both is slow (a slow spine)
    def measure(tests: list[dict]) -> list[dict]:
        out = []
        for t in tests:
            span = {h <= "n04" for h in t["hosts"]}
            v = 10.0 if len(span) == 2 else 100.0
            out.append({"fwd": [v] * 3, "rev": [v] * 3})
        return out

    state = bisect.start(hosts(8), LIMITS)
    state["queue"] = [{"kind": "split", "hosts": hosts(8), "parent": ""}]  # test the whole first
    while not state["done"]:
        state = bisect.record(state, measure(bisect.plan(state)))
    assert state["bad"] == {}
    assert any("links between its parts" in f for f in state["findings"])


def test_failed_measurement_fails_the_group_with_its_error() -> None:
    def measure(tests: list[dict]) -> list[dict]:
        return [
            {"fwd": [], "rev": [], "error": "iperf3: unable to connect"}
            if "n03" in t["hosts"]
            else {"fwd": [100.0], "rev": [100.0]}
            for t in tests
        ]

    state = bisect.run(hosts(8), measure, LIMITS)
    assert list(state["bad"]) == ["n03"]
    assert "unable to connect" in state["bad"]["n03"]


@pytest.mark.parametrize(("n", "lost"), [(4, 0), (8, 0), (8, 1), (8, 2)])
def test_one_lost_measurement_is_measured_again_not_blamed(n: int, lost: int) -> None:
    """The tool printing nothing once (lost-th test of round 1) costs a round, blames nobody."""
    slow = hosts(n)[-1]
    fabric = SyntheticFabric(egress={slow: 0.1}, ingress={slow: 0.1})
    calls = {"n": 0}

    def measure(tests: list[dict]) -> list[dict]:
        out = fabric.measure(tests)
        calls["n"] += 1
        if calls["n"] == 1 and lost < len(out):
            out[lost] = {"fwd": [], "rev": [], "error": "iperf3 printed no JSON"}
        return out

    state = bisect.run(hosts(n), measure, LIMITS)
    assert list(state["bad"]) == [slow], state["bad"]
    first = state["rounds"][0]["tests"]
    if lost < len(first):
        assert first[lost]["reason"].endswith("measured again next round")
        again = [t for r in state["rounds"][1:] for t in r["tests"] if t.get("again")]
        assert [t["hosts"] for t in again] == [first[lost]["hosts"]]


def test_a_confirm_whose_measurement_fails_twice_blames_the_suspect() -> None:
    def measure(tests: list[dict]) -> list[dict]:
        return [
            {"fwd": [], "rev": [], "error": "iperf3: unable to connect"}
            if t["kind"] == "confirm" and t["suspect"] == "n03"
            else {"fwd": [100.0 if "n03" not in t["hosts"] else 5.0], "rev": [100.0]}
            for t in tests
        ]

    state = bisect.run(hosts(8), measure, LIMITS)
    assert list(state["bad"]) == ["n03"]
    assert "unable to connect" in state["bad"]["n03"]


def test_peers_median_judges_when_the_expected_rate_is_unknown() -> None:
    fab = SyntheticFabric(egress={"n06": 0.3})
    state = bisect.run(hosts(8), fab.measure, Limits(expected_gbps=None))
    assert list(state["bad"]) == ["n06"]


def test_bad_input_is_refused_in_one_line() -> None:
    with pytest.raises(UserError, match="duplicated name"):
        bisect.start(["a", "b", "a"], LIMITS)
    with pytest.raises(UserError, match="expected rate"):
        Limits(expected_gbps=float("nan"))
    with pytest.raises(UserError, match="fraction"):
        Limits(fraction=0.0)
    state = bisect.start(hosts(4), LIMITS)
    bisect.plan(state)
    with pytest.raises(UserError, match="1 result"):
        bisect.record(state, [{"fwd": [1.0], "rev": [1.0]}])


def test_one_host_needs_no_traffic() -> None:
    state = bisect.start(["only"], LIMITS)
    assert state["done"] and bisect.plan(state) == []


def test_judge_is_median_based_and_checks_both_directions() -> None:
    ok = judge({"fwd": [100, 100], "rev": [100, 100]}, [100.0], LIMITS)
    assert ok.ok and ok.reason == ""
    slow_rev = judge({"fwd": [100], "rev": [20, 30, 25]}, [100.0], LIMITS)
    assert not slow_rev.ok and slow_rev.reason.startswith("rev 25 Gbit/s")
    assert judge({"fwd": ["x", None], "rev": [1e9]}, [], LIMITS).reason.startswith("fwd: no usable")
    assert median([3.0, 1.0, 2.0]) == 2.0 and median([1.0, 2.0]) == 1.5


def test_random_sizes_and_faults_agree_with_the_truth() -> None:
    rng = random.Random(7)
    for trial in range(40):
        n = rng.randint(4, 40)
        bad = rng.choice(hosts(n))
        fab = SyntheticFabric(egress={bad: rng.uniform(0.05, 0.5)}, noise=0.1, seed=trial)
        state = bisect.run(hosts(n), fab.measure, LIMITS)
        assert list(state["bad"]) == [bad], (n, bad, state)


def test_the_peer_floor_is_the_median_not_the_fastest_group() -> None:
    """One very fast group (a pair on one leaf) must not fail the typical ones: the floor is
    the fraction of the peers' median."""
    limits = Limits(expected_gbps=None)
    peers = [100.0, 100.0, 400.0]  # median 100, fastest 400
    typical = judge({"fwd": [90], "rev": [90]}, peers, limits)
    assert typical.ok, typical.reason
    slow = judge({"fwd": [60], "rev": [90]}, peers, limits)
    assert slow.reason == f"fwd 60 Gbit/s < {limits.fraction:.0%} of peers' median 100"
