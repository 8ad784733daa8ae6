"""A checkpoint goal -> the smallest file system on a cloud's own steps (pure; no Pulumi).

Units, chosen so that a sized file system never falls short of its goal:
- a goal's size is GiB (2**30 bytes); its rates are GB/s (10**9 bytes per second);
- the clouds rate throughput in "MB/s per TiB": read as 10**6 bytes per second per TiB of
  capacity (the smaller reading of "MB"), so rated = tier x capacity_TiB x 10**6 B/s.
"Smallest" means the least capacity; on a tie, the lower tier. The capacity also holds at
least one checkpoint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from gpufabric.inputs import packaged

GIB = 1 << 30
UNIT_GIB: dict[str, float] = {"GiB": 1, "TiB": 1024, "GB": 10**9 / GIB}


@dataclass(frozen=True)
class Band:
    low: int
    high: int | None  # None: no maximum stated by the cloud
    step: int

    def holds(self, capacity: int) -> bool:
        return (
            capacity >= self.low
            and (self.high is None or capacity <= self.high)
            and (capacity - self.low) % self.step == 0
        )

    def smallest_at_least(self, need: int) -> int | None:
        """The least capacity of this band that is >= need, or None."""
        value = (
            self.low
            if need <= self.low
            else self.low + math.ceil((need - self.low) / self.step) * self.step
        )
        return value if self.high is None or value <= self.high else None

    def text(self, unit: str) -> str:
        if self.high == self.low:
            return f"{self.low:,} {unit}"
        if self.high is None:
            return f"{self.low:,} {unit} or more in steps of {self.step:,}"
        return f"{self.low:,} to {self.high:,} {unit} in steps of {self.step:,}"


@dataclass(frozen=True)
class Service:
    """One file-system service: its capacity unit and, per variant, tier -> bands."""

    name: str
    label: str
    cloud: str
    unit: str
    variants: dict[str, dict[int, tuple[Band, ...]]]
    sources: tuple[str, ...]

    def tiers(self, variant: str = "tcp") -> tuple[int, ...]:
        return tuple(sorted(self.variants[variant]))

    def valid(self, tier: int, capacity: int, variant: str = "tcp") -> bool:
        bands = self.variants[variant].get(tier, ())
        return any(band.holds(capacity) for band in bands)

    def allowed(self, tier: int, variant: str = "tcp") -> str:
        """The capacities a tier takes, in words: '1,200 GiB, or 2,400 to up GiB in steps ...'."""
        return "; or ".join(band.text(self.unit) for band in self.variants[variant][tier])

    def smallest(self, tier: int, need: int, variant: str = "tcp") -> int | None:
        fits = [
            c
            for band in self.variants[variant][tier]
            if (c := band.smallest_at_least(need)) is not None
        ]
        return min(fits) if fits else None

    def largest(self, tier: int, variant: str = "tcp") -> int | None:
        highs = [band.high for band in self.variants[variant][tier]]
        return None if any(h is None for h in highs) else max(h for h in highs if h is not None)

    def gib(self, capacity: int) -> float:
        return capacity * UNIT_GIB[self.unit]


def rated_gbps(tier: int, capacity_gib: float) -> float:
    """Rated throughput in GB/s of `capacity_gib` at `tier` MB/s per TiB."""
    return tier * (capacity_gib / 1024) * 1e6 / 1e9


@dataclass(frozen=True)
class Goal:
    size_gib: int
    write_seconds: float
    read_gbps: float | None = None

    @property
    def write_gbps(self) -> float:
        return self.size_gib * GIB / self.write_seconds / 1e9

    @property
    def needed_gbps(self) -> float:
        return max(self.write_gbps, self.read_gbps or 0.0)

    def text(self) -> str:
        read = f" and {self.read_gbps:g} GB/s of reads" if self.read_gbps else ""
        return f"a {self.size_gib:,} GiB checkpoint in {self.write_seconds:g} s{read}"


@dataclass(frozen=True)
class Sizing:
    service: Service
    variant: str
    tier: int
    capacity: int  # in service.unit
    goal: Goal

    @property
    def capacity_gib(self) -> float:
        return self.service.gib(self.capacity)

    @property
    def rated_gbps(self) -> float:
        return rated_gbps(self.tier, self.capacity_gib)

    def text(self) -> str:
        """'a 2,048 GiB checkpoint in 60 s needs 36.7 GB/s: 45,000 GiB at 1,000 MB/s/TiB (43.9 GB/s)'"""
        efa = ", EFA" if self.variant == "efa" else ""
        return (
            f"{self.goal.text()} needs {self.goal.needed_gbps:.1f} GB/s: "
            f"{self.capacity:,} {self.service.unit} at {self.tier:,} MB/s/TiB{efa} "
            f"({self.rated_gbps:.1f} GB/s rated)"
        )


def _bands(raw: list[dict[str, Any]]) -> tuple[Band, ...]:
    return tuple(
        Band(int(b["min"]), None if b["max"] is None else int(b["max"]), int(b["step"]))
        for b in raw
    )


@cache
def services() -> dict[str, Service]:
    """Every service of steps.yaml, by its storage `type` name."""
    out: dict[str, Service] = {}
    for name, raw in packaged.load_yaml("gpufabric.storage", "steps.yaml")["services"].items():
        variants = {
            variant: {int(tier): _bands(bands) for tier, bands in tiers.items()}
            for variant, tiers in raw["variants"].items()
        }
        out[name] = Service(
            name, raw["label"], raw["cloud"], raw["unit"], variants, tuple(raw["sources"])
        )
    return out


def service(name: str) -> Service:
    return services()[name]


def size(
    svc: Service,
    goal: Goal,
    variant: str = "tcp",
    tier: int | None = None,
    capacity: int | None = None,
) -> Sizing | None:
    """The smallest valid (tier, capacity) of `variant` that meets `goal`; None if none does.

    `tier` / `capacity` given: only that tier / exactly that capacity is considered.
    """
    candidates: list[Sizing] = []
    for t in svc.tiers(variant):
        if tier is not None and t != tier:
            continue
        need_gib = max(goal.size_gib, goal.needed_gbps * 1e9 / (t * 1e6) * 1024)
        need = math.ceil(need_gib / UNIT_GIB[svc.unit] - 1e-9)
        if capacity is not None:
            ok = capacity >= need and svc.valid(t, capacity, variant)
            found = capacity if ok else None
        else:
            found = svc.smallest(t, need, variant)
        if found is not None:
            candidates.append(Sizing(svc, variant, t, found, goal))
    if not candidates:
        return None
    return min(candidates, key=lambda s: (s.capacity_gib, s.tier))


def best_possible_gbps(svc: Service, variant: str = "tcp", tier: int | None = None) -> float | None:
    """The highest rated throughput any valid size reaches; None when no maximum is stated."""
    best = 0.0
    for t in svc.tiers(variant):
        if tier is not None and t != tier:
            continue
        top = svc.largest(t, variant)
        if top is None:
            return None
        best = max(best, rated_gbps(t, svc.gib(top)))
    return best
