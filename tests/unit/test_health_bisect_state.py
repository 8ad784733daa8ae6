"""The bisection's state as the playbook carries it and the report shows it: rounds and test
ids, the rows of each round, the findings and reasons word for word, partners that are never
busy twice in one round, and when it stops."""

from __future__ import annotations

import pytest

from gpufabric.errors import UserError
from gpufabric.health import bisect
from gpufabric.health.judge import Limits

LIMITS = Limits(expected_gbps=100.0)


def hosts(n: int) -> list[str]:
    return [f"n{i:02d}" for i in range(1, n + 1)]


def rate(v: float) -> dict:
    return {"fwd": [v], "rev": [v], "error": ""}


def test_duplicated_names_are_named_once_each() -> None:
    with pytest.raises(UserError) as exc:
        bisect.start(["a", "b", "a", "c", "c", "c"], LIMITS)
    assert str(exc.value) == "hosts: duplicated name(s) a, c"


def test_the_initial_state() -> None:
    state = bisect.start(hosts(5), LIMITS)
    assert state["hosts"] == hosts(5) and state["pending"] == [] and not state["done"]
    assert state["queue"] == [
        {"kind": "split", "hosts": hosts(3), "parent": ""},
        {"kind": "split", "hosts": ["n04", "n05"], "parent": ""},
    ]
    alone = bisect.start(["only"], LIMITS)
    assert alone["findings"] == ["fewer than 2 hosts: no traffic test possible"]


def test_rounds_rows_and_ids_as_the_report_shows_them() -> None:
    state = bisect.run(hosts(4), lambda tests: [rate(100.0) for _ in tests], LIMITS)
    assert state["rounds"] == [
        {
            "round": 1,
            "tests": [
                {
                    "kind": "split",
                    "hosts": ["n01", "n02"],
                    "parent": "",
                    "id": "r1t1",
                    "ok": True,
                    "reason": "",
                    "gbps": {"fwd": 100.0, "rev": 100.0},
                    "samples": {"fwd": [100.0], "rev": [100.0]},
                },
                {
                    "kind": "split",
                    "hosts": ["n03", "n04"],
                    "parent": "",
                    "id": "r1t2",
                    "ok": True,
                    "reason": "",
                    "gbps": {"fwd": 100.0, "rev": 100.0},
                    "samples": {"fwd": [100.0], "rev": [100.0]},
                },
            ],
        }
    ]
    assert state["pending"] == [] and state["queue"] == []


def test_three_hosts_and_no_known_good_one_stop_after_one_round() -> None:
    state = bisect.run(hosts(3), lambda tests: [rate(10.0) for _ in tests], LIMITS)
    assert len(state["rounds"]) == 1 and state["queue"] == [] and state["done"] is True
    assert [t["kind"] for t in state["rounds"][0]["tests"]] == ["split"]
    assert state["bad"]["n02"] == (
        "slow link: fwd 10 Gbit/s < 70% of expected 100; rev 10 Gbit/s < 70% of expected 100 "
        "in group n01+n02+n03; no known-good partner to confirm which"
    )


def spine_and_n08(tests: list[dict]) -> list[dict]:
    """n01-n02 and n03-n04 are fine alone but slow together (their links); n08 is slow."""
    out = []
    for t in tests:
        hs = set(t["hosts"])
        spans = bool(hs & {"n01", "n02"}) and bool(hs & {"n03", "n04"})
        out.append(rate(10.0 if spans or "n08" in hs else 100.0))
    return out


def test_a_host_is_in_one_test_per_round_and_reasons_name_the_partner() -> None:
    state = bisect.run(hosts(8), spine_and_n08, LIMITS)
    for rnd in state["rounds"]:
        busy = [h for t in rnd["tests"] for h in t["hosts"]]
        assert len(busy) == len(set(busy)), rnd
    assert [[t["id"] for t in r["tests"]] for r in state["rounds"]][:2] == [
        ["r1t1", "r1t2"],
        ["r2t1", "r2t2", "r2t3", "r2t4"],
    ]
    assert list(state["bad"]) == ["n08"]
    partner = next(
        t["hosts"][1]
        for r in state["rounds"]
        for t in r["tests"]
        if t["kind"] == "confirm" and t["suspect"] == "n08"
    )
    assert state["bad"]["n08"] == (
        "slow link: fwd 10 Gbit/s < 70% of expected 100; rev 10 Gbit/s < 70% of expected 100 "
        f"(with known-good partner {partner})"
    )
    assert state["findings"] == [
        "n01+n02+n03+n04 slow (fwd 10 Gbit/s < 70% of expected 100; rev 10 Gbit/s < 70% of "
        "expected 100) though every part of it passes: suspect the links between its parts "
        "(e.g. the spine)"
    ]


def test_a_group_that_passes_its_retest_is_noise() -> None:
    calls = {"n": 0}

    def once_slow(tests: list[dict]) -> list[dict]:
        calls["n"] += 1
        return [rate(10.0 if calls["n"] == 1 and "n01" in t["hosts"] else 100.0) for t in tests]

    state = bisect.run(hosts(8), once_slow, LIMITS)
    assert state["bad"] == {} and sorted(state["good"]) == hosts(8)
    assert state["findings"] == ["n01+n02+n03+n04 failed once, passed on retest (noise)"]


def test_a_small_group_whose_members_all_pass_with_good_partners_is_tested_again() -> None:
    """A failing group of 2-3 is confirmed member by member; when every member passes with a
    known-good partner, the group itself is measured once more (noise or the links between)."""
    calls = {"n": 0}

    def once_slow(tests: list[dict]) -> list[dict]:
        calls["n"] += 1
        return [rate(10.0 if calls["n"] == 1 and "n01" in t["hosts"] else 100.0) for t in tests]

    state = bisect.run(hosts(5), once_slow, LIMITS)
    assert state["bad"] == {} and sorted(state["good"]) == hosts(5)
    assert [t["kind"] for t in state["rounds"][-1]["tests"]] == ["retest"]
    assert state["findings"] == ["n01+n02+n03 failed once, passed on retest (noise)"]


def test_a_confirm_partner_is_never_a_good_host_busy_in_another_test_of_the_round() -> None:
    """Good hosts can be busy in the same round (a retest of a group whose parts passed): each
    confirm takes a good host that no other test of the round uses."""
    state = {
        "done": False,
        "rounds": [],
        "good": ["g1", "g2", "g3", "g4", "g5"],
        "queue": [
            {"kind": "retest", "hosts": ["g1", "g2"]},
            {"kind": "confirm", "suspect": "s1", "parent": "r1t1"},
            {"kind": "retest", "hosts": ["g3", "g4"]},
            {"kind": "confirm", "suspect": "s2", "parent": "r1t1"},
        ],
    }
    tests = bisect.plan(state)
    assert [t["hosts"] for t in tests] == [["g1", "g2"], ["g3", "g4"], ["s1", "g5"]]
    assert [t["id"] for t in tests] == ["r1t1", "r1t2", "r1t3"]
    assert state["queue"] == [{"kind": "confirm", "suspect": "s2", "parent": "r1t1"}]


def test_failed_measurements_are_not_peers() -> None:
    """A result that failed (an error) does not lift the peers' median, even with figures."""

    def measure(tests: list[dict]) -> list[dict]:
        return [
            {"fwd": [1000.0], "rev": [1000.0], "error": "iperf3: interrupted"}
            if "n01" in t["hosts"]
            else rate(100.0)
            for t in tests
        ]

    state = bisect.start(hosts(4), Limits(expected_gbps=None))
    bisect.plan(state)
    state = bisect.record(state, measure(state["pending"]))
    assert state["values"] == [100.0, 100.0]
    assert state["rounds"][0]["tests"][1]["ok"] is True


def test_a_missing_direction_is_judged_as_no_measurement() -> None:
    state = bisect.start(hosts(2), LIMITS)
    bisect.plan(state)
    state = bisect.record(state, [{"fwd": [100.0]}])
    row = state["rounds"][0]["tests"][0]
    assert row["reason"] == "rev: no usable measurement" and row["samples"]["rev"] == []


def test_results_are_judged_once_per_plan() -> None:
    state = bisect.start(hosts(4), LIMITS)
    bisect.plan(state)
    with pytest.raises(UserError) as exc:
        bisect.record(state, [rate(100.0)])
    assert str(exc.value) == "round 1: 1 result(s) for 2 test(s)"
    state = bisect.record(state, [rate(100.0), rate(100.0)])
    with pytest.raises(UserError) as exc:
        bisect.record(state, [rate(100.0), rate(100.0)])
    assert str(exc.value) == "round 2: 2 result(s) for 0 test(s)"


def test_it_stops_after_the_most_rounds() -> None:
    state = bisect.start(hosts(8), LIMITS)
    state["rounds"] = [{"round": i, "tests": []} for i in range(1, bisect.MAX_ROUNDS)]
    bisect.plan(state)
    state = bisect.record(state, [rate(10.0), rate(100.0)])
    assert state["done"] is True
    assert state["findings"] == [f"stopped after {bisect.MAX_ROUNDS} rounds"]
    early = bisect.start(hosts(8), LIMITS)
    early["rounds"] = [{"round": i, "tests": []} for i in range(1, bisect.MAX_ROUNDS - 1)]
    bisect.plan(early)
    assert not bisect.record(early, [rate(10.0), rate(100.0)])["done"]
