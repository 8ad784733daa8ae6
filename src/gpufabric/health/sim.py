"""A synthetic measuring function: ring traffic over hosts with per-host egress/ingress rates.

Used by the unit tests and benchmarks/health_rounds.py to drive the same bisection code that
runs against the lab and GPU nodes. A group's forward direction is the ring h0 -> h1 -> ... ->
h0, its reverse the opposite ring; each direction runs at the slowest hop, and a hop a -> b at
min(egress of a, ingress of b) times the base rate, with seeded multiplicative noise per sample.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from gpufabric.health.bisect import Result, Test


@dataclass
class SyntheticFabric:
    base_gbps: float = 100.0
    egress: dict[str, float] = field(default_factory=dict)  # host -> factor (default 1.0)
    ingress: dict[str, float] = field(default_factory=dict)
    noise: float = 0.05  # samples vary by up to +-noise
    repeats: int = 3
    seed: int = 0
    calls: int = 0  # rounds measured
    tests: int = 0  # group tests measured

    def _hop(self, a: str, b: str) -> float:
        return self.base_gbps * min(self.egress.get(a, 1.0), self.ingress.get(b, 1.0))

    def _ring(self, hosts: list[str]) -> float:
        if len(hosts) == 2:
            return self._hop(hosts[0], hosts[1])
        return min(self._hop(a, b) for a, b in zip(hosts, hosts[1:] + hosts[:1], strict=True))

    def measure(self, tests: list[Test]) -> list[Result]:
        rng = random.Random(f"{self.seed}:{self.calls}")
        self.calls += 1
        self.tests += len(tests)
        out: list[Result] = []
        for t in tests:
            hosts = list(t["hosts"])
            fwd, rev = self._ring(hosts), self._ring(hosts[::-1])
            out.append(
                {
                    d: [v * (1 + rng.uniform(-self.noise, self.noise)) for _ in range(self.repeats)]
                    for d, v in (("fwd", fwd), ("rev", rev))
                }
            )
        return out

    def as_function(self) -> Callable[[list[Test]], list[Result]]:
        return self.measure
