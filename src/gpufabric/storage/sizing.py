"""A checkpoint goal -> the smallest file system on a cloud's own steps (pure; no Pulumi).

The steps are data: each cloud package's `storage_steps.yaml` (found through the registry)
lists the file systems that cloud sells, by storage `type` name: `label`, `unit` (capacity in
the service's own unit: GiB, TiB or decimal GB), and per variant (tcp; a fabric variant such as
efa) per throughput tier (MB/s per TiB as the cloud rates it) the capacity `bands` it accepts:
from `min` to `max` (null = no maximum the API states) in steps of `step` counted from `min`.
A capacity is valid when it lies in one band. Each service lists its `sources`. Nothing else
hard-codes these numbers.

Units, chosen so that a sized file system never falls short of its goal:
- a goal's size is GiB (2**30 bytes); its rates are GB/s (10**9 bytes per second);
- the clouds rate throughput in "MB/s per TiB": read as 10**6 bytes per second per TiB of
  capacity (the smaller reading of "MB"), so rated = tier x capacity_TiB x 10**6 B/s;
- a service sold in decimal GB and rated per decimal TB is read per TiB as well: 1 TiB holds
  more than 1 TB, so the rating read that way is the lower one.
"Smallest" means the least capacity; on a tie, the lower tier. The capacity also holds at
least one checkpoint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from gpufabric.clouds import registry
from gpufabric.inputs import packaged

STEPS = "storage_steps.yaml"

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


def services() -> dict[str, Service]:
    """Every service of every cloud's storage_steps.yaml, by its storage `type` name."""
    return _services(tuple(registry.packages().items()))


@cache
def _services(packages: tuple[tuple[str, str], ...]) -> dict[str, Service]:
    out: dict[str, Service] = {}
    for cloud, package in packages:
        file = resources.files(package).joinpath(STEPS)
        if not file.is_file():
            continue
        for name, raw in packaged.load_resource(file)["services"].items():
            if name in out:
                raise RuntimeError(f"{file}: storage type {name} is already in {out[name].cloud}'s")
            variants = {
                variant: {int(tier): _bands(bands) for tier, bands in tiers.items()}
                for variant, tiers in raw["variants"].items()
            }
            out[name] = Service(
                name, raw["label"], cloud, raw["unit"], variants, tuple(raw["sources"])
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
