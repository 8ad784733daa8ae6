"""Small-message latency: the time of each size 8 B-64 KiB against the time expected at that
size on the fabric and node count, and its consistency (the same size, out-of-place vs
in-place and across runs).

Figures and limits are data (thresholds.yaml `latency`, each with its published source).
"""

from __future__ import annotations

from collections import defaultdict

from gpufabric.catalog import InstanceType
from gpufabric.nccl.gate.fabric import Verdict
from gpufabric.nccl.gate.thresholds import Thresholds
from gpufabric.nccl.model import Row, TestsResult
from gpufabric.nccl.units import human_bytes


def _times(row: Row) -> list[float]:
    return [m.time_us for m in (row.out_of_place, row.in_place) if m is not None]


def _small(result: TestsResult, limits: Thresholds) -> list[Row]:
    lat = limits.latency
    return [r for r in result.rows if lat.min_bytes <= r.size <= lat.max_bytes and _times(r)]


def latency_verdicts(
    result: TestsResult, subject: str, facts: InstanceType, nodes: int | None, limits: Thresholds
) -> list[Verdict]:
    """One verdict for the small sizes of one table, each size against its own expected time
    (none when not judged); the line names the size furthest over its figure."""
    lat = limits.latency
    rows = _small(result, limits)
    if not rows or result.collective not in lat.collectives or nodes is None:
        return []
    judged: list[tuple[float, Row, float, float]] = []  # (ratio, row, took, expected)
    for row in rows:
        expected = lat.expected_us(facts.fabric, facts.name, nodes, row.size)
        if expected is None:
            return []
        took = min(_times(row))
        judged.append((took / expected, row, took, expected))
    ratio, worst, took, expected = max(judged, key=lambda j: j[0])
    where = f"{nodes} node{'s' if nodes > 1 else ''}"
    head = (
        f"{result.collective}: {human_bytes(worst.size)} took {took:.1f} us = {ratio:.2f} x the "
        f"{expected:.1f} us expected at that size on {facts.fabric} x {where}"
    )
    if ratio > lat.tolerance:
        over = sum(1 for j in judged if j[0] > lat.tolerance)
        return [
            Verdict(
                "latency",
                "fail",
                subject,
                f"{head}; allowed up to {lat.tolerance:.1f} x ({over} of {len(judged)} small "
                "sizes over)",
            )
        ]
    return [
        Verdict(
            "latency",
            "pass",
            subject,
            f"{head}, the furthest of 8 B-64 KiB ({len(rows)} sizes, each within "
            f"{lat.tolerance:.1f} x)",
        )
    ]


def consistency_verdicts(
    results: list[tuple[str, TestsResult]], limits: Thresholds
) -> list[Verdict]:
    """Per collective: the widest spread of one small size's times (both halves, every file)."""
    lat = limits.latency
    times: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for _subject, result in results:
        if result.collective is None:
            continue
        for row in _small(result, limits):
            times[result.collective][row.size] += _times(row)
    out: list[Verdict] = []
    for coll, by_size in sorted(times.items()):
        size, values = max(by_size.items(), key=lambda kv: max(kv[1]) / max(min(kv[1]), 1e-9))
        spread = max(values) / max(min(values), 1e-9)
        subject = "runs" if len(results) > 1 else results[0][0]
        line = (
            f"{coll}: {human_bytes(size)} took {min(values):.1f}-{max(values):.1f} us over "
            f"{len(values)} measurements = {spread:.1f} x spread"
        )
        if spread > lat.spread_max:
            out.append(
                Verdict(
                    "latency", "warn", subject, f"{line}; over {lat.spread_max:.1f} x: inconsistent"
                )
            )
        else:
            out.append(Verdict("latency", "pass", subject, f"{line} (consistent)"))
    return out
