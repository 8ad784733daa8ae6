"""Rounds to find one bad host among N: the fabric doctor's bisection vs the peers' pairwise rounds.

    .venv/bin/python benchmarks/health_rounds.py                       # simulated, N = 8, 16, 32, 64
    sudo flock /tmp/gpufabric-lab.lock .venv/bin/python benchmarks/health_rounds.py --lab 8 --runs 3
    sudo flock /tmp/gpufabric-lab.lock .venv/bin/python benchmarks/health_rounds.py --lab 16 --runs 1

Simulated: the same code that chooses and judges groups (gpufabric.health.bisect) drives a
synthetic fabric (gpufabric.health.sim: ring traffic, per-host egress/ingress rates, 10 % noise)
with each host in turn slowed to 10 % both ways; it prints the rounds and group tests used (the
worst and the mean over the bad host's position) and whether exactly the bad host was named,
next to the peers' pairwise schemes run on the same synthetic fabric where they are algorithms
(random disjoint pairs + a second pass with known-good partners, as GoogleCloudPlatform's
cluster-health-scanner does) and their published round counts otherwise (disjoint pairs in one
round, as facebookresearch/gcm --pairwise-quick, which names a pair, not a host; all pairs,
gcm --pairwise, N-1 rounds of N/2 tests; imbue-ai's 15 rotating random pairings).

Lab (--lab N): `lab up` N hosts on 2 leaves; per run one random host's link is slowed both ways
(`lab fault HOST slow-link`) and another random host's MTU changed (`lab fault HOST mtu`),
`gpufabric health run` must name exactly those two with the right reasons; then `lab restart`
heals both; then the same number of runs without a fault must find every host ok. Prints each
run's verdict, rounds and wall time. Lab hosts share this machine's CPUs: wall times are noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gpufabric.health import bisect
from gpufabric.health.judge import Limits
from gpufabric.health.sim import SyntheticFabric

LIMITS = Limits(expected_gbps=100.0)


def hosts(n: int) -> list[str]:
    return [f"n{i:03d}" for i in range(1, n + 1)]


def two_pass_pairs(names: list[str], fab: SyntheticFabric, seed: int) -> tuple[int, int, list[str]]:
    """Random disjoint pairs, then every failed host paired with a passed one (CHS nccl_runner)."""
    rng = random.Random(seed)
    order = names[:]
    rng.shuffle(order)
    pairs = [order[i : i + 2] for i in range(0, len(order) - 1, 2)]
    if len(order) % 2:
        pairs.append([order[-1], rng.choice(order[:-1])])
    tests = [{"hosts": p} for p in pairs]
    res = fab.measure(tests)
    passed: set[str] = set()
    failed: set[str] = set()
    for t, r in zip(tests, res, strict=True):
        ok = min(statistics.median(r["fwd"]), statistics.median(r["rev"])) >= 70.0
        (passed if ok else failed).update(t["hosts"])
    failed -= passed  # a pass in pass 1 is never downgraded
    good = sorted(passed)
    rng.shuffle(good)
    tests2 = [{"hosts": [h, good[i % len(good)]]} for i, h in enumerate(sorted(failed))]
    res2 = fab.measure(tests2) if tests2 else []
    bad = [
        t["hosts"][0]
        for t, r in zip(tests2, res2, strict=True)
        if min(statistics.median(r["fwd"]), statistics.median(r["rev"])) < 70.0
    ]
    return 2 if tests2 else 1, len(tests) + len(tests2), sorted(bad)


def simulate(sizes: list[int]) -> None:
    print("Simulated: one host slowed to 10 % both ways, every position, 10 % noise per sample")
    head = (
        f"{'N':>4} | {'bisect rounds max/mean':>22} {'tests':>6} {'exact':>6} | "
        f"{'log2 N':>6} | {'2-pass pairs rnds':>17} {'tests':>6} {'exact':>6} | "
        f"{'pairs-quick':>11} | {'all pairs rnds/tests':>20} | {'rotating':>8}"
    )
    print(head)
    print("-" * len(head))
    for n in sizes:
        names = hosts(n)
        rounds: list[int] = []
        tests: list[int] = []
        exact = 0
        p_rounds: list[int] = []
        p_tests: list[int] = []
        p_exact = 0
        for i, bad in enumerate(names):
            fab = SyntheticFabric(egress={bad: 0.1}, ingress={bad: 0.1}, noise=0.1, seed=i)
            state = bisect.run(names, fab.measure, LIMITS)
            rounds.append(len(state["rounds"]))
            tests.append(fab.tests)
            exact += list(state["bad"]) == [bad]
            fab2 = SyntheticFabric(egress={bad: 0.1}, ingress={bad: 0.1}, noise=0.1, seed=i)
            r, t, found = two_pass_pairs(names, fab2, seed=i)
            p_rounds.append(r)
            p_tests.append(t)
            p_exact += found == [bad]
        print(
            f"{n:>4} | {max(rounds):>13}/{statistics.mean(rounds):<8.2f} "
            f"{statistics.mean(tests):>6.1f} {exact:>3}/{n:<2} | {math.log2(n):>6.1f} | "
            f"{max(p_rounds):>17} {statistics.mean(p_tests):>6.1f} {p_exact:>3}/{n:<2} | "
            f"{'1 (a pair)':>11} | {n - 1:>9}/{n * (n - 1) // 2:<10} | {15:>8}"
        )
    print(
        "bisect: tests are group tests (at most 2 in parallel per round); 2-pass pairs: N/2 "
        "pair tests in round 1. Rounds are what a wall clock pays for; tests what the "
        "fabric carries."
    )


def health_run(inventory: Path, out: Path) -> tuple[int, dict, float]:
    t0 = time.monotonic()
    proc = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "gpufabric"),
            "health",
            "run",
            "-i",
            str(inventory),
            "--json",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"health run failed: {proc.stderr.strip()}")
    return proc.returncode, json.loads(proc.stdout), time.monotonic() - t0


def lab_proof(n: int, runs: int) -> None:
    from gpufabric.lab.handle import LabHandle, process_lab_name

    name = process_lab_name("gfbench")
    t0 = time.monotonic()
    lab = LabHandle.start(name, nodes=n, leaves=2)
    print(f"\nLab: {n} hosts on 2 leaves up in {time.monotonic() - t0:.0f} s ({name})")
    ok_runs = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(1, runs + 1):
                slow, mtu = random.sample(lab.hosts, 2)
                lab.fault(slow, "slow-link")
                lab.fault(mtu, "mtu")
                code, rep, secs = health_run(lab.inventory, Path(tmp) / f"fault{run}")
                right = (
                    code == 1
                    and rep["bad"] == sorted([slow, mtu])
                    and rep["hosts"][slow]["reasons"][0].startswith("slow link: ")
                    and rep["hosts"][mtu]["reasons"] == ["mtu: eth0 mtu 9000, the peers' 1500"]
                )
                ok_runs += right
                print(
                    f"  fault run {run}: slow-link {slow}, mtu {mtu} -> bad {rep['bad']} "
                    f"exit {code}, {rep['rounds']} rounds, {secs:.0f} s: "
                    f"{'RIGHT' if right else 'WRONG'}"
                )
                for h in rep["bad"]:
                    print(f"      {h}: {'; '.join(rep['hosts'][h]['reasons'])}")
                lab.restart(slow)
                lab.restart(mtu)
            for run in range(1, runs + 1):
                code, rep, secs = health_run(lab.inventory, Path(tmp) / f"clean{run}")
                right = code == 0 and rep["bad"] == []
                ok_runs += right
                print(
                    f"  no-fault run {run}: bad {rep['bad']} exit {code}, {rep['rounds']} "
                    f"rounds, {secs:.0f} s: {'RIGHT' if right else 'WRONG'}"
                )
    finally:
        lab.stop()
    print(
        f"  {ok_runs}/{2 * runs} runs right; bisection rounds for one slow host among "
        f"{n}: ceil(log2 {n}) = {math.ceil(math.log2(n))}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description="Rounds to find one bad host among N (simulated and in the lab)."
    )
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 32, 64])
    ap.add_argument("--lab", type=int, nargs="*", default=[], help="lab sizes to measure (root)")
    ap.add_argument(
        "--runs", type=int, default=3, help="lab runs with faults (and as many without)"
    )
    args = ap.parse_args()
    simulate(args.sizes)
    for n in args.lab:
        lab_proof(n, args.runs)


if __name__ == "__main__":
    main()
