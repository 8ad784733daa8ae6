"""Is a group's measured rate good enough? Median-based, both directions, with repeats.

A measurement of a group is a list of samples per direction (Gbit/s; one per repeat or per
interval). Its value is the median of the finite, non-negative samples, so one noisy repeat
neither fails nor passes a group. A direction fails when its value is below `fraction` of the
expected rate (the instance type's, or the lab traffic tool's pacing rate) or below `fraction`
of the median of every value measured so far in the run (its peers); a direction that moved
nothing (0 Gbit/s) fails whatever the floors. Both directions must pass: a link can be slow
one way only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpufabric.errors import UserError

DIRECTIONS = ("fwd", "rev")


@dataclass(frozen=True)
class Limits:
    expected_gbps: float | None = None  # None: judge against peers only
    fraction: float = 0.7  # of expected and of the peers' median
    min_samples: int = 1  # fewer finite samples than this: the measurement failed

    def __post_init__(self) -> None:
        if self.expected_gbps is not None and not (
            math.isfinite(self.expected_gbps) and self.expected_gbps > 0
        ):
            raise UserError(
                f"expected rate: {self.expected_gbps!r} Gbit/s is not a positive number"
            )
        if not (math.isfinite(self.fraction) and 0 < self.fraction <= 1):
            raise UserError(f"fraction: {self.fraction!r} is not in (0, 1]")
        if self.min_samples < 1:
            raise UserError(f"min_samples: {self.min_samples!r} is not >= 1")

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "expected_gbps": self.expected_gbps,
            "fraction": self.fraction,
            "min_samples": self.min_samples,
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> Limits:
        exp = doc.get("expected_gbps")
        return cls(
            expected_gbps=None if exp in (None, "", 0) else float(exp),
            fraction=float(doc.get("fraction", 0.7)),
            min_samples=int(doc.get("min_samples", 1)),
        )


def clean(samples: list[object]) -> list[float]:
    """The usable samples: finite numbers >= 0 (NaN, inf, negatives, text dropped)."""
    out: list[float] = []
    for s in samples:
        if isinstance(s, bool) or not isinstance(s, (int, float)):
            continue
        if math.isfinite(s) and s >= 0:
            out.append(float(s))
    return out


def median(values: list[float]) -> float:
    if not values:
        raise ValueError("median of nothing")
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def value(samples: list[object], limits: Limits) -> float | None:
    """The median of the usable samples, or None when there are too few."""
    ok = clean(samples)
    return median(ok) if len(ok) >= limits.min_samples else None


@dataclass(frozen=True)
class Verdict:
    ok: bool
    values: dict[str, float | None]  # direction -> Gbit/s
    reason: str  # empty when ok


def judge(
    samples: dict[str, list[object]], peers: list[float], limits: Limits, error: str = ""
) -> Verdict:
    """Judge one group's measurement against the expected rate and its peers' median."""
    values = {d: value(samples.get(d, []), limits) for d in DIRECTIONS}
    if error:
        return Verdict(False, values, f"traffic test failed: {error}")
    floors: list[tuple[float, str]] = []
    if limits.expected_gbps is not None:
        floors.append(
            (limits.fraction * limits.expected_gbps, f"expected {limits.expected_gbps:g}")
        )
    usable = clean(list(peers))
    if usable:
        floors.append((limits.fraction * median(usable), f"peers' median {median(usable):.3g}"))
    problems: list[str] = []
    for d in DIRECTIONS:
        v = values[d]
        if v is None:
            problems.append(f"{d}: no usable measurement")
            continue
        if v == 0:  # nothing moved: no floor (peers' median 0, none expected) may pass it
            problems.append(f"{d}: moved nothing (0 Gbit/s)")
            continue
        for floor, what in floors:
            if v < floor:
                problems.append(f"{d} {v:.3g} Gbit/s < {limits.fraction:.0%} of {what}")
                break
    return Verdict(not problems, values, "; ".join(problems))
