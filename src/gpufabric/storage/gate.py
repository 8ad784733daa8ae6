"""Gate a storage benchmark against the checkpoint goal and the file system's rated throughput.

One line per verdict, as the NCCL gate prints them: 'PASS write  4 nodes: ...'. Fails on: a
node or phase without a report, fio errors, aggregate write (read) under the goal, measurement
under thresholds.yaml's share of the rated throughput; warns on a straggler node (in any phase,
bandwidth or metadata) and on a measurement between the warn and fail shares. Numbers come from
the results, the goal, the rating and thresholds.yaml, never from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from gpufabric.inputs import packaged
from gpufabric.storage.results import BYTE_PHASES, PhaseFigure, Results
from gpufabric.storage.sizing import Goal

Status = Literal["pass", "warn", "fail"]
METADATA = {"mdcreate": "creates", "mdstat": "stats", "mddelete": "deletes"}


@dataclass(frozen=True)
class Verdict:
    check: str
    status: Status
    subject: str
    message: str

    def line(self) -> str:
        return f"{self.status.upper():4} {self.check:11} {self.subject}: {self.message}"


@dataclass(frozen=True)
class StorageGate:
    verdicts: tuple[Verdict, ...]
    figures: dict[str, float]  # name -> value, for the report

    @property
    def passed(self) -> bool:
        return not any(v.status == "fail" for v in self.verdicts)


@cache
def thresholds() -> dict[str, dict[str, float]]:
    return packaged.load_yaml("gpufabric.storage", "thresholds.yaml")


def _gbps(rate: float) -> str:
    return f"{rate / 1e9:.3f} GB/s"


def _per_s(rate: float) -> str:
    """File operations per second: whole numbers, two decimals under 10/s (a hung mount)."""
    return f"{rate:,.0f}/s" if rate >= 10 else f"{rate:.2f}/s"


def _bandwidth(
    phase: PhaseFigure, goal_gbps: float | None, goal_text: str, rated_gbps: float | None
) -> list[Verdict]:
    subject = f"{len(phase.nodes)} nodes"
    measured = phase.aggregate / 1e9
    out: list[Verdict] = []
    detail = (
        f"{measured:.3f} GB/s aggregate ({phase.amount / 2**30:.2f} GiB in {phase.window_s:.2f} s; "
        f"sum of nodes {_gbps(phase.sum_of_nodes)})"
    )
    if goal_gbps is None:
        out.append(Verdict(phase.phase, "pass", subject, f"{detail}; no {phase.phase} goal set"))
    elif measured >= goal_gbps:
        out.append(
            Verdict(
                phase.phase, "pass", subject, f"{detail} >= goal {goal_gbps:.3f} GB/s ({goal_text})"
            )
        )
    else:
        out.append(
            Verdict(
                phase.phase, "fail", subject, f"{detail} < goal {goal_gbps:.3f} GB/s ({goal_text})"
            )
        )
    if rated_gbps is not None and rated_gbps > 0:
        share = measured / rated_gbps
        limits = thresholds()["rated"]
        status: Status = (
            "fail"
            if share < limits["fail_below"]
            else "warn"
            if share < limits["warn_below"]
            else "pass"
        )
        out.append(
            Verdict(
                "rated",
                status,
                subject,
                f"{phase.phase} {measured:.3f} GB/s = {share:.0%} of the rated {rated_gbps:.3f} GB/s"
                + (f" (below {limits['fail_below']:.0%})" if status == "fail" else "")
                + (f" (below {limits['warn_below']:.0%})" if status == "warn" else ""),
            )
        )
    return out


def _balance(phase: PhaseFigure) -> Verdict | None:
    if len(phase.nodes) < 2:
        return None
    slow = phase.slowest
    median = phase.median_node
    floor = thresholds()["balance"]["warn_below_median"]
    if median > 0 and slow.rate < floor * median:
        unit = _gbps if phase.phase in BYTE_PHASES else _per_s
        return Verdict(
            "balance",
            "warn",
            slow.host,
            f"{phase.phase} {unit(slow.rate)} is under {floor:.0%} of the median node's {unit(median)}",
        )
    return None


def gate(results: Results, goal: Goal | None, rated_gbps: float | None = None) -> StorageGate:
    verdicts: list[Verdict] = []
    figures: dict[str, float] = {}
    for host, phase in results.missing:
        verdicts.append(
            Verdict(
                "complete",
                "fail",
                host,
                f"no {phase} report (run cut short or fio failed to start)",
            )
        )
    for phase in results.phases.values():
        for node in phase.nodes:
            if node.error:
                verdicts.append(
                    Verdict(
                        "complete",
                        "fail",
                        node.host,
                        f"fio {phase.phase} reported error {node.error}",
                    )
                )
            elif node.amount == 0:
                verdicts.append(
                    Verdict("complete", "fail", node.host, f"fio {phase.phase} moved nothing")
                )
    spread_limit = float(thresholds()["together"]["max_start_spread_s"])
    for phase in results.phases.values():
        starts = [n.start_ms / 1000 for n in phase.nodes]
        if len(starts) > 1 and max(starts) - min(starts) > spread_limit:
            first = min(phase.nodes, key=lambda n: n.start_ms)
            last = max(phase.nodes, key=lambda n: n.start_ms)
            verdicts.append(
                Verdict(
                    "complete",
                    "fail",
                    f"{len(phase.nodes)} nodes",
                    f"{phase.phase} started {max(starts) - min(starts):,.0f} s apart on "
                    f"{first.host} and {last.host} (more than {spread_limit:.0f} s): not one run "
                    "(a clock off, or an earlier run's report)",
                )
            )
    if not any(v.check == "complete" for v in verdicts):
        verdicts.append(
            Verdict(
                "complete",
                "pass",
                f"{len(results.hosts)} nodes",
                f"{len(results.phases)} phases on every node",
            )
        )
    goal_text = goal.text() if goal else ""
    for name in BYTE_PHASES:
        phase = results.phases.get(name)
        if phase is None:
            continue
        want = None if goal is None else goal.write_gbps if name == "write" else goal.read_gbps
        verdicts += _bandwidth(phase, want, goal_text, rated_gbps)
        figures[f"{name}_gbps"] = phase.aggregate / 1e9
        figures[f"{name}_sum_of_nodes_gbps"] = phase.sum_of_nodes / 1e9
        if (balance := _balance(phase)) is not None:
            verdicts.append(balance)
    if goal is not None and "write_gbps" in figures and figures["write_gbps"] > 0:
        figures["checkpoint_write_s"] = goal.size_gib * 2**30 / (figures["write_gbps"] * 1e9)
    for name, what in METADATA.items():
        phase = results.phases.get(name)
        if phase is None:
            continue
        figures[f"{what}_per_s"] = phase.aggregate
        verdicts.append(
            Verdict(
                "metadata",
                "pass",
                f"{len(phase.nodes)} nodes",
                f"{phase.aggregate:,.0f} file {what}/s aggregate ({phase.amount:,} files in {phase.window_s:.2f} s)",
            )
        )
        if (balance := _balance(phase)) is not None:
            verdicts.append(balance)
    if results.ior is not None:
        for op, rate in results.ior.mean_gbps.items():
            figures[f"ior_{op}_gbps"] = rate
            want = None if goal is None else goal.write_gbps if op == "write" else goal.read_gbps
            ok = want is None or rate >= want
            verdicts.append(
                Verdict(
                    "ior",
                    "pass" if ok else "fail",
                    op,
                    f"{rate:.3f} GB/s mean"
                    + ("" if want is None else f" {'>=' if ok else '<'} goal {want:.3f} GB/s"),
                )
            )
    if results.mdtest is not None:
        for op, rate in results.mdtest.items():
            figures[f"mdtest_{op.lower().replace(' ', '_')}_per_s"] = rate
        verdicts.append(
            Verdict(
                "mdtest",
                "pass",
                "summary",
                ", ".join(f"{op} {rate:,.0f}/s" for op, rate in results.mdtest.items()),
            )
        )
    return StorageGate(tuple(verdicts), figures)
