"""A storage benchmark's results directory -> figures per phase, across all nodes at once.

Layout (written by playbooks/storage-benchmark.yml, role storage_bench):
    <dir>/<host>/<phase>.json   fio JSON per node and phase
    <dir>/ior.txt|ior.json      IOR summary (optional: only where IOR is installed)
    <dir>/mdtest.txt            mdtest summary (optional)
Phases: write (checkpoint shards, sequential, fsync at the end), read (the shards another node
wrote), mdcreate / mdstat / mddelete (small files: metadata operations).

Aggregate rate over the union window: the total moved by all nodes divided by the time from
the first node's start (its report time minus its runtime) to the last node's report time. It
never exceeds the sum of the per-node rates, and equals it only when the nodes ran fully
together: a conservative "all nodes at once" figure.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path
from typing import Any

from gpufabric.errors import Arg, UserError
from gpufabric.inputs import packaged
from gpufabric.inputs.files import read_text
from gpufabric.storage.fio import FioRun, read_fio
from gpufabric.storage.ior import IorResult, parse_ior, parse_mdtest

PHASES = ("write", "read", "mdcreate", "mdstat", "mddelete")
BYTE_PHASES = ("write", "read")


@dataclass(frozen=True)
class NodeFigure:
    host: str
    amount: int  # bytes (write / read) or operations (metadata phases)
    runtime_s: float
    start_ms: float
    end_ms: float
    error: int

    @property
    def rate(self) -> float:
        return self.amount / self.runtime_s if self.runtime_s > 0 else 0.0


@dataclass(frozen=True)
class PhaseFigure:
    phase: str
    nodes: tuple[NodeFigure, ...]

    @property
    def amount(self) -> int:
        return sum(n.amount for n in self.nodes)

    @property
    def window_s(self) -> float:
        return (max(n.end_ms for n in self.nodes) - min(n.start_ms for n in self.nodes)) / 1000

    @property
    def aggregate(self) -> float:
        """Per second over the union window (bytes/s or operations/s)."""
        return self.amount / self.window_s if self.window_s > 0 else 0.0

    @property
    def sum_of_nodes(self) -> float:
        return sum(n.rate for n in self.nodes)

    @property
    def median_node(self) -> float:
        return statistics.median(n.rate for n in self.nodes)

    @property
    def slowest(self) -> NodeFigure:
        return min(self.nodes, key=lambda n: n.rate)


@dataclass(frozen=True)
class Results:
    directory: str
    hosts: tuple[str, ...]
    phases: dict[str, PhaseFigure]
    missing: tuple[tuple[str, str], ...]  # (host, phase) without a report
    ior: IorResult | None
    mdtest: dict[str, float] | None


@cache
def _impossible() -> dict[str, Any]:
    return packaged.load_yaml("gpufabric.storage", "thresholds.yaml")["impossible"]


def _node(host: str, phase: str, run: FioRun) -> NodeFigure:
    """Every job of the report together: what they moved, the longest runtime, the first error.
    fio counts runtime in whole milliseconds: a phase reported as 0 ms is counted as 1 ms (a
    rate, never a division by nothing), as _check_possible does."""
    parts = [job.write if phase == "write" else job.read for job in run.jobs]
    amount = sum(p.io_bytes if phase in BYTE_PHASES else p.ios for p in parts)
    runtime_ms = max(p.runtime_ms for p in parts)
    error = next((job.error for job in run.jobs if job.error), 0)
    _check_possible(run, phase, amount, runtime_ms)
    counted = max(runtime_ms, 1)
    return NodeFigure(host, amount, counted / 1000, run.end_ms - counted, run.end_ms, error)


def _check_possible(run: FioRun, phase: str, amount: int, runtime_ms: int) -> None:
    """A report no real run can write (gigabytes in 0 ms, a clock in 1970) is refused."""
    limits = _impossible()
    earliest = date.fromisoformat(str(limits["earliest_report"]))
    when = datetime.fromtimestamp(run.end_ms / 1000, UTC)
    if when.date() < earliest:
        raise UserError(
            f"{run.source}: report time {when:%Y-%m-%d %H:%M} UTC is before {earliest} "
            "(a clock that was never set): not a real run"
        )
    rate = amount / (max(runtime_ms, 1) / 1000)
    if phase in BYTE_PHASES and rate > float(limits["node_bytes_per_s"]):
        raise UserError(
            f"{run.source}: {phase} of {amount / 2**30:.2f} GiB in {runtime_ms} ms "
            f"({rate / 1e9:,.0f} GB/s) is beyond any node: a broken report"
        )
    if phase not in BYTE_PHASES and rate > float(limits["node_ops_per_s"]):
        raise UserError(
            f"{run.source}: {phase} of {amount:,} files in {runtime_ms} ms "
            f"({rate:,.0f}/s) is beyond any node: a broken report"
        )


def _read_ior(directory: Path) -> IorResult | None:
    """ior.txt and / or ior.json; both present must tell the same figures (within 1%)."""
    found = [
        parse_ior(_text(directory / name), str(directory / name))
        for name in ("ior.txt", "ior.json")
        if (directory / name).exists()
    ]
    if len(found) == 2:
        text, js = found
        for op in sorted(set(text.mean_gbps) | set(js.mean_gbps)):
            a, b = text.mean_gbps.get(op), js.mean_gbps.get(op)
            if a is None or b is None or abs(a - b) > 0.01 * max(a, b):
                raise UserError(
                    f"{directory}: ior.txt and ior.json disagree on the {op} mean "
                    f"({_mibs(a)} vs {_mibs(b)}): two reports of one run must agree; "
                    "keep the one of this run"
                )
    return found[-1] if found else None


def _mibs(gbps: float | None) -> str:
    return "none" if gbps is None else f"{gbps * 1e9 / 2**20:,.1f} MiB/s"


def load_results(directory: Path, hosts: list[str] | None = None) -> Results:
    """The figures of `directory`; with `hosts`, the hosts the benchmark was asked to run on:
    a report from another host is refused, an asked host without reports fails the gate."""
    if not directory.is_dir():
        raise UserError(f"{directory}: not a directory of storage benchmark results")
    found = sorted(
        d.name
        for d in directory.iterdir()
        if d.is_dir() and any((d / f"{phase}.json").exists() for phase in PHASES)
    )
    if hosts is not None:
        extra = sorted(set(found) - set(hosts))
        if extra:
            raise UserError(
                f"{directory}: reports from {', '.join(extra)}, not among ",
                Arg("hosts"),
                f" ({', '.join(hosts)}): an earlier run's? remove them",
            )
        found = sorted(set(hosts))
    elif not found:
        raise UserError(f"{directory}: no <host>/<phase>.json fio reports in it")
    per_phase: dict[str, list[NodeFigure]] = {}
    missing: list[tuple[str, str]] = []
    for host in found:
        for phase in PHASES:
            path = directory / host / f"{phase}.json"
            if not path.exists():
                missing.append((host, phase))
                continue
            per_phase.setdefault(phase, []).append(_node(host, phase, read_fio(path)))
    phases = {p: PhaseFigure(p, tuple(nodes)) for p, nodes in per_phase.items()}
    ior = _read_ior(directory)
    mdtest = None
    if (directory / "mdtest.txt").exists():
        mdtest = parse_mdtest(_text(directory / "mdtest.txt"), str(directory / "mdtest.txt"))
    return Results(str(directory), tuple(found), phases, tuple(missing), ior, mdtest)


def _text(path: Path) -> str:
    return read_text(path, what="an IOR or mdtest summary")
