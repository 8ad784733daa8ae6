"""The synthetic fabric the bisection tests and benchmarks/health_rounds.py measure with: its
rates per hop and per ring, its noise, and the rounds and tests it counts."""

from __future__ import annotations

from gpufabric.health import bisect
from gpufabric.health.judge import Limits
from gpufabric.health.sim import SyntheticFabric


def one(fab: SyntheticFabric, hosts: list[str]) -> dict:
    return fab.measure([{"hosts": hosts}])[0]


def test_a_pair_runs_at_its_hop_each_way() -> None:
    fab = SyntheticFabric(ingress={"n2": 0.5}, noise=0.0, repeats=2)
    assert one(fab, ["n1", "n2"]) == {"fwd": [50.0, 50.0], "rev": [100.0, 100.0]}
    slow_out = SyntheticFabric(egress={"n1": 0.5}, noise=0.0, repeats=1)
    assert one(slow_out, ["n1", "n2"]) == {"fwd": [50.0], "rev": [100.0]}


def test_a_ring_runs_at_its_slowest_hop_in_both_directions() -> None:
    fab = SyntheticFabric(egress={"n3": 0.3}, ingress={"n1": 0.6}, noise=0.0, repeats=1)
    # forward n1->n2->n3->n1: n3->n1 is min(0.3, 0.6); reverse n3->n2->n1->n3: n2->n1 is 0.6
    assert one(fab, ["n1", "n2", "n3"]) == {"fwd": [30.0], "rev": [30.0]}
    assert one(fab, ["n2", "n4", "n5"]) == {"fwd": [100.0], "rev": [100.0]}
    slow_in = SyntheticFabric(ingress={"n1": 0.6}, noise=0.0, repeats=1)
    assert one(slow_in, ["n1", "n2", "n3"]) == {"fwd": [60.0], "rev": [60.0]}


def test_a_fast_side_does_not_lift_a_hop_above_the_other_side() -> None:
    fast_out = SyntheticFabric(egress={"n1": 2.0}, noise=0.0, repeats=1, base_gbps=10.0)
    assert one(fast_out, ["n1", "n2"])["fwd"] == [10.0]
    fast_in = SyntheticFabric(ingress={"n2": 2.0}, noise=0.0, repeats=1, base_gbps=10.0)
    assert one(fast_in, ["n1", "n2"])["fwd"] == [10.0]


def test_noise_stays_in_its_bounds_and_differs_per_round_but_repeats_per_seed() -> None:
    fab = SyntheticFabric(noise=0.1, repeats=50, seed=3)
    rounds = [one(fab, ["a", "b"])["fwd"] for _ in range(3)]
    assert all(90.0 <= v <= 110.0 for r in rounds for v in r)
    assert len({tuple(r) for r in rounds}) == 3
    again = SyntheticFabric(noise=0.1, repeats=50, seed=3)
    assert [one(again, ["a", "b"])["fwd"] for _ in range(3)] == rounds
    other = SyntheticFabric(noise=0.1, repeats=50, seed=4)
    assert one(other, ["a", "b"])["fwd"] != rounds[0]


def test_it_counts_the_rounds_and_group_tests_it_measured() -> None:
    fab = SyntheticFabric(egress={"n05": 0.1})
    state = bisect.run([f"n{i:02d}" for i in range(1, 9)], fab.as_function(), Limits(100.0))
    assert list(state["bad"]) == ["n05"]
    assert fab.calls == len(state["rounds"])
    assert fab.tests == sum(len(r["tests"]) for r in state["rounds"])
