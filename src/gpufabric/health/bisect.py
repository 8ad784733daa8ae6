"""Find the slow host among N with collective tests on groups, in about log2(N) rounds.

Plain data in, plain data out (the state is a JSON-able dict, so Ansible can carry it between
rounds and the same code runs under the playbook, the CLI, the tests and the benchmark):

    state = start(hosts, limits)
    while not state["done"]:
        tests = plan(state)                  # the groups to measure, all in parallel
        state = record(state, measure(tests))

Round 1 tests the two halves of the hosts in parallel. A group that passes proves its hosts
good. A failing group of 4 or more is split and both halves are tested in the next round; a
failing group of 2 or 3 makes its hosts suspects, and each suspect is tested against a
different known-good partner in the next round: the suspects whose pair fails are bad. When
every part of a failing group passes, the group is tested once more (noise is then cleared),
and if it fails again the fault lies in the links between its parts (e.g. a spine), reported
as a finding without blaming a host. One bad host among N costs ceil(log2 N) rounds of at
most two parallel tests each. A test whose measurement itself failed (the tool printed nothing
or an error, not a slow figure) is measured once more in the next round before it is judged:
one lost measurement must not blame the hosts of a whole group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpufabric.errors import UserError
from gpufabric.health.judge import DIRECTIONS, Limits, judge, value

Test = dict[str, Any]  # {"id", "kind": split|retest|confirm, "hosts": [...], "parent"?, "suspect"?,
#                         "again"?: True when re-measured after a failed measurement}
Result = dict[str, Any]  # {"fwd": [Gbit/s...], "rev": [...], "error": ""}
MAX_ROUNDS = 64


def start(hosts: list[str], limits: Limits) -> dict[str, Any]:
    """The initial state for `hosts` (inventory names, unique, in topology order)."""
    names = [str(h) for h in hosts]
    if len(set(names)) != len(names):
        dup = sorted({h for h in names if names.count(h) > 1})
        raise UserError(f"hosts: duplicated name(s) {', '.join(dup)}")
    state: dict[str, Any] = {
        "hosts": names,
        "limits": limits.to_dict(),
        "good": [],
        "bad": {},
        "findings": [],
        "queue": [],
        "rounds": [],
        "values": [],
        "pending": [],
        "parents": {},
        "done": False,
    }
    if len(names) < 2:
        state["findings"].append("fewer than 2 hosts: no traffic test possible")
        state["done"] = True
    elif len(names) < 4:
        state["queue"].append({"kind": "split", "hosts": names})
    else:
        state["queue"] += _halves(names, parent="")
    return state


def _halves(hosts: list[str], parent: str) -> list[Test]:
    mid = (len(hosts) + 1) // 2
    return [
        {"kind": "split", "hosts": hosts[:mid], "parent": parent},
        {"kind": "split", "hosts": hosts[mid:], "parent": parent},
    ]


def plan(state: dict[str, Any]) -> list[Test]:
    """The tests of the next round (empty when done). Assigns known-good confirm partners."""
    if state["done"]:
        return []
    rnd = len(state["rounds"]) + 1
    busy: set[str] = set()
    tests: list[Test] = []
    later: list[Test] = []
    for item in state["queue"]:
        if item["kind"] != "confirm":
            tests.append({**item})
            busy |= set(item["hosts"])
    partners = [h for h in state["good"] if h not in busy]
    for item in state["queue"]:
        if item["kind"] != "confirm":
            continue
        if partners:
            tests.append({**item, "hosts": [item["suspect"], partners.pop(0)]})
        else:
            later.append(item)
    for i, t in enumerate(tests, start=1):
        t["id"] = f"r{rnd}t{i}"
    state["pending"] = tests
    state["queue"] = later
    return tests


def _record_one(
    state: dict[str, Any], test: Test, ok: bool, reason: str, values: dict[str, float | None]
) -> None:
    kind, hosts = test["kind"], test["hosts"]
    if kind == "confirm":
        if ok:
            state["good"].append(test["suspect"])
        else:
            partner = hosts[1]
            state["bad"][test["suspect"]] = (
                f"slow link: {reason} (with known-good partner {partner})"
            )
        return
    if ok:
        state["good"] += [h for h in hosts if h not in state["good"]]
        if kind == "retest":
            state["findings"].append(f"{'+'.join(hosts)} failed once, passed on retest (noise)")
        return
    if kind == "retest":
        state["findings"].append(
            f"{'+'.join(hosts)} slow ({reason}) though every part of it passes: suspect the "
            "links between its parts (e.g. the spine)"
        )
        return
    if len(hosts) >= 4:
        state["parents"][test["id"]] = {
            "hosts": hosts,
            "reason": reason,
            "left": 2,
            "failed": False,
        }
        state["queue"] += _halves(hosts, parent=test["id"])
    else:
        state["parents"][test["id"]] = {
            "hosts": hosts,
            "reason": reason,
            "left": len(hosts),
            "failed": False,
        }
        state["queue"] += [{"kind": "confirm", "suspect": h, "parent": test["id"]} for h in hosts]


def record(state: dict[str, Any], results: list[Result]) -> dict[str, Any]:
    """Judge the pending round's results (same order as plan's tests) and plan the next steps."""
    tests = state["pending"]
    if len(results) != len(tests):
        raise UserError(
            f"round {len(state['rounds']) + 1}: {len(results)} result(s) for {len(tests)} test(s)"
        )
    limits = Limits.from_dict(state["limits"])
    for res in results:  # every value of the round is a peer of every group in it
        for d in DIRECTIONS:
            v = value(list(res.get(d, [])), limits)
            if v is not None and not res.get("error"):
                state["values"].append(v)
    rows = []
    for test, res in zip(tests, results, strict=True):
        samples = {d: list(res.get(d, [])) for d in DIRECTIONS}
        verdict = judge(samples, state["values"], limits, str(res.get("error") or ""))
        again = bool(res.get("error")) and not test.get("again")
        rows.append(
            {
                **test,
                "ok": verdict.ok,
                "reason": verdict.reason + ("; measured again next round" if again else ""),
                "gbps": verdict.values,
                "samples": samples,
            }
        )
        if again:  # the measurement failed, not the fabric: measure this test once more
            state["queue"].append(_again(test))
            continue
        _record_one(state, test, verdict.ok, verdict.reason, verdict.values)
        info = state["parents"].get(test.get("parent") or "")
        if info is not None:
            info["left"] -= 1
            info["failed"] = info["failed"] or not verdict.ok
            if info["left"] == 0 and not info["failed"]:
                # every part of a failing group passed: test the whole group once more
                state["queue"].append({"kind": "retest", "hosts": info["hosts"]})
    state["rounds"].append({"round": len(state["rounds"]) + 1, "tests": rows})
    state["pending"] = []
    _finish_if_stuck(state)
    return state


def _again(test: Test) -> Test:
    """The same test for the next round (a confirm gets its known-good partner anew)."""
    item = {k: v for k, v in test.items() if k != "id"}
    if item["kind"] == "confirm":
        item.pop("hosts", None)
    return {**item, "again": True}


def _finish_if_stuck(state: dict[str, Any]) -> None:
    queue = state["queue"]
    if not queue:
        state["done"] = True
        return
    confirms = [q for q in queue if q["kind"] == "confirm"]
    if confirms and len(confirms) == len(queue) and not state["good"]:
        for q in confirms:  # nobody is known good: cannot tell which member is slow
            parent = state["parents"].get(q.get("parent", ""), {})
            state["bad"][q["suspect"]] = (
                f"slow link: {parent.get('reason', 'group failed')} in group "
                f"{'+'.join(parent.get('hosts', []))}; no known-good partner to confirm which"
            )
        state["queue"] = []
        state["done"] = True
    elif len(state["rounds"]) >= MAX_ROUNDS:
        state["findings"].append(f"stopped after {MAX_ROUNDS} rounds")
        state["done"] = True


def run(
    hosts: list[str], measure: Callable[[list[Test]], list[Result]], limits: Limits
) -> dict[str, Any]:
    """Drive start/plan/record with a measuring function (synthetic, iperf3, nccl-tests)."""
    state = start(hosts, limits)
    while not state["done"]:
        state = record(state, measure(plan(state)))
    return state
