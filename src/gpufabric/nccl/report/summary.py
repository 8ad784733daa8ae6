"""What the report says first: the verdict, the headline number and what it means, and where the
data came from (when, which hosts, which command)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from gpufabric.nccl.gate.ceilings import ceiling
from gpufabric.nccl.gate.verdict import GateReport
from gpufabric.nccl.model import Capture

_PREFERRED = ("all_reduce", "all_gather", "reduce_scatter")
NOT_MEASURED = (
    "no bandwidth figure: no large-message table with a known node count "
    "(pass --nodes, run up to 1 GiB or more)"
)


@dataclass(frozen=True)
class Headline:
    collective: str
    busbw: float  # GB/s, peak over the large messages
    line_rate: float  # GB/s, the ring line rate of these nodes
    basis: str

    @property
    def ratio(self) -> float:
        return self.busbw / self.line_rate

    def text(self) -> str:
        return (
            f"{self.busbw:.1f} GB/s = {self.ratio:.2f} of line rate "
            f"({self.collective} bus bandwidth, largest messages; line rate "
            f"{self.line_rate:.1f} GB/s: {self.basis})"
        )


@dataclass(frozen=True)
class Banner:
    passed: bool
    fails: int
    warns: int
    first_problem: str | None  # the first failing (else warning) check, one line


@dataclass(frozen=True)
class Source:
    file: str
    modified: str  # UTC, from the file
    hosts: tuple[str, ...]
    command: str  # the nccl-tests binary and its parameters, as its header printed them


def verdict(report: GateReport) -> Banner:
    """The banner: PASS only when every check passed and a bandwidth figure was measured (a
    report never shows PASS over "no bandwidth figure")."""
    fails = [v for v in report.verdicts if v.status == "fail"]
    warns = [v for v in report.verdicts if v.status == "warn"]
    first = (fails or warns or [None])[0]
    problem = f"{first.subject}: {first.message}" if first else None
    measured = headline(report) is not None
    if report.passed and not measured:
        problem = NOT_MEASURED
    return Banner(report.passed and measured, len(fails), len(warns), problem)


def headline(report: GateReport) -> Headline | None:
    """The peak large-message bus bandwidth against the nodes' ring line rate, for the most
    telling collective measured (all_reduce first)."""
    if not report.peaks or not report.nodes:
        return None
    ordered = [c for c in _PREFERRED if c in report.peaks] + sorted(
        c for c in report.peaks if c not in _PREFERRED
    )
    collective = ordered[0]
    facts = report.instance
    cap = ceiling(
        collective,
        report.nodes,
        facts.gpu.count,
        facts.fabric_gbps,
        facts.fabric_nics,
        facts.nvlink_gbytes_per_gpu,
    )
    return Headline(collective, report.peaks[collective], cap.ring, cap.basis)


def sources(captures: list[Capture]) -> list[Source]:
    out = []
    for cap in captures:
        path = Path(cap.path)
        try:
            stamp = datetime.fromtimestamp(path.stat().st_mtime, UTC)
            modified = stamp.strftime("%Y-%m-%d %H:%M UTC")
        except OSError:  # standard input
            modified = "-"
        hosts: dict[str, None] = {}
        commands = []
        for res in cap.results:
            hosts.update(dict.fromkeys(res.hosts))
            params = " ".join(f"{k} {v}" for k, v in res.params.items())
            name = f"{res.collective}_perf" if res.collective else "nccl-tests"
            commands.append(f"{name} ({params})" if params else name)
        out.append(Source(path.name, modified, tuple(hosts), "; ".join(commands) or "-"))
    return out


def generated(argv: list[str] | None = None) -> str:
    """When and by which command this report was written."""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    words = argv if argv is not None else ["gpufabric", *sys.argv[1:]]
    return f"{now}, by `{' '.join(words)}`"
