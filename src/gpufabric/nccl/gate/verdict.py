"""Gate nccl-tests results and NCCL logs against the instance type's fabric.

Fails on: transport fallback to sockets (or any transport that is not the fabric's), fewer
NICs used than present, no GPUDirect RDMA where the fabric has it, busbw under the threshold
at large sizes, #wrong > 0 / out-of-bounds values, a run cut short (no footer, or the sweep
stops before maxBytes), and fatal NCCL WARN lines. Each verdict is one line naming its cause.
Numbers come from the catalog (line rates) and thresholds.yaml (efficiencies), never from here.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from gpufabric.catalog import InstanceType
from gpufabric.errors import ArgumentError
from gpufabric.inputs.types import digits
from gpufabric.nccl.gate.ceilings import ceiling, infer_ranks
from gpufabric.nccl.gate.fabric import Verdict, fabric_verdicts, merge_debug
from gpufabric.nccl.gate.latency import consistency_verdicts, latency_verdicts
from gpufabric.nccl.gate.thresholds import Thresholds, thresholds
from gpufabric.nccl.model import Capture, DebugInfo, TestsResult
from gpufabric.nccl.parse.transport import transport
from gpufabric.nccl.units import human_bytes


@dataclass(frozen=True)
class GateReport:
    instance: InstanceType
    nodes: int | None
    transport: str | None
    verdicts: tuple[Verdict, ...]
    strict: bool = False
    peaks: dict[str, float] = field(default_factory=dict)  # collective -> peak large busbw

    @property
    def instance_type(self) -> str:
        return self.instance.name

    @property
    def passed(self) -> bool:
        bad: tuple[str, ...] = ("fail", "warn") if self.strict else ("fail",)
        return not any(v.status in bad for v in self.verdicts)


def resolve_nodes(
    nodes: int | None, result: TestsResult | None, debug: DebugInfo, gpus: int
) -> int | None:
    """Node count: flag > rank hosts > NCCL nNodes > ranks / GPUs; None when unknown."""
    if nodes is not None:
        return nodes
    if result is not None and result.hosts:
        return len(result.hosts)
    if debug.n_nodes:
        return debug.n_nodes
    ranks = debug.n_ranks  # a result's own rank lines gave its hosts above
    if ranks is None and result is not None:
        ranks = infer_ranks(result.collective, result.rows)
    if ranks is not None and ranks % gpus == 0:
        return ranks // gpus
    if ranks is not None and ranks < gpus:
        return 1
    return None


def _complete(result: TestsResult, subject: str) -> list[Verdict]:
    out: list[Verdict] = []
    last = result.max_size
    max_bytes = result.params.get("maxBytes")
    if not result.complete:
        where = f"after {human_bytes(last)}" if last is not None else "before any row"
        out.append(
            Verdict(
                "complete",
                "fail",
                subject,
                f"output ends {where} without the 'Avg bus bandwidth' footer: "
                "run cut short (timeout, crash) or a truncated capture",
            )
        )
    elif (
        max_bytes
        and digits(max_bytes)
        and last is not None
        and last < int(max_bytes)
        and not result.elided
    ):
        out.append(
            Verdict(
                "complete",
                "fail",
                subject,
                f"sweep stopped at {human_bytes(last)} of maxBytes {human_bytes(int(max_bytes))}",
            )
        )
    if result.elided:
        out.append(
            Verdict(
                "complete",
                "warn",
                subject,
                f"rows elided ('...'): only the {len(result.rows)} printed sizes were checked",
            )
        )
    if not out:
        out.append(
            Verdict(
                "complete",
                "pass",
                subject,
                f"{len(result.rows)} sizes up to {human_bytes(last or 0)}, footer present",
            )
        )
    return out


def _correctness(result: TestsResult, subject: str) -> list[Verdict]:
    for row in result.rows:
        for side, m in (("out-of-place", row.out_of_place), ("in-place", row.in_place)):
            if m is not None and m.wrong:
                return [
                    Verdict(
                        "correctness",
                        "fail",
                        subject,
                        f"#wrong = {m.wrong} at {human_bytes(row.size)} ({side}): "
                        "NCCL returned corrupt data",
                    )
                ]
    if result.out_of_bounds_ok is False:
        return [
            Verdict(
                "correctness",
                "fail",
                subject,
                f"{result.out_of_bounds} out-of-bounds values reported by nccl-tests",
            )
        ]
    if result.errors:
        return [Verdict("correctness", "fail", subject, f"nccl-tests error: {result.errors[0]}")]
    if result.avg_busbw_status == "FAILED":
        return [
            Verdict(
                "correctness",
                "fail",
                subject,
                f"nccl-tests' own NCCL_TESTS_MIN_BW check failed (avg {result.avg_busbw})",
            )
        ]
    checked = any(
        m is not None and m.wrong is not None
        for r in result.rows
        for m in (r.out_of_place, r.in_place)
    )
    if not checked:
        return [
            Verdict(
                "correctness",
                "warn",
                subject,
                "data not checked (#wrong N/A or legacy 'error' column): run with -c 1",
            )
        ]
    return [Verdict("correctness", "pass", subject, "#wrong = 0 at every size")]


def _tree_forced(debug: DebugInfo, collective: str) -> bool:
    """NCCL_ALGO forces tree / NVLS-tree for this collective (else NCCL chooses, or a ring:
    the ring line rate applies either way)."""
    names = debug.env.get("NCCL_ALGO", "").lower()
    if ":" in names:  # per-collective form 'allreduce:tree;allgather:ring'
        wanted = collective.replace("_", "")
        parts = dict(p.split(":", 1) for p in names.split(";") if ":" in p)
        names = parts.get(wanted, "")
    algos = {a.strip() for a in names.split(",") if a.strip()}
    return bool(algos) and algos <= {"tree", "nvlstree"}


def _bandwidth(
    result: TestsResult,
    subject: str,
    facts: InstanceType,
    nodes: int | None,
    debug: DebugInfo,
    limits: Thresholds,
) -> tuple[list[Verdict], float | None]:
    coll = result.collective
    assert coll is not None  # a table without one is an input problem, never judged here
    if nodes is None:
        return [
            Verdict(
                "bandwidth",
                "warn",
                subject,
                "node count unknown (no rank lines, no NCCL nNodes): pass --nodes",
            )
        ], None
    large = [r for r in result.rows if r.size >= limits.large_message_bytes]
    if not large:
        top = human_bytes(result.max_size or 0)
        return [
            Verdict(
                "bandwidth",
                "warn",
                subject,
                f"largest size {top} < {human_bytes(limits.large_message_bytes)}: "
                "bandwidth not gated (run with -e 1G or more)",
            )
        ], None
    peak_row = max(large, key=lambda r: r.best_busbw())
    peak = peak_row.best_busbw()
    gpus = facts.gpu.count
    cap = ceiling(
        coll, nodes, gpus, facts.fabric_gbps, facts.fabric_nics, facts.nvlink_gbytes_per_gpu
    )
    eff = limits.efficiency_for(facts.name)
    if nodes <= 1:
        bound, need, label = cap.ring, eff.intra_node, "intra-node ring bound"
    elif cap.hierarchical is not None and _tree_forced(debug, coll):
        bound, need, label = cap.hierarchical, eff.tree, "tree bound"
    else:
        bound, need, label = cap.ring, eff.ring, "ring line rate"
    ratio = peak / bound
    at = human_bytes(peak_row.size)
    head = (
        f"{coll}: peak busbw {peak:.1f} GB/s at {at} = {ratio:.2f} of the {bound:.1f} GB/s "
        f"{label} ({cap.basis})"
    )
    out: list[Verdict] = []
    if ratio < need and coll in limits.advisory_collectives:
        out.append(
            Verdict(
                "bandwidth",
                "warn",
                subject,
                f"{head}; under {need:.2f} (advisory: derived bound, no baseline yet)",
            )
        )
    elif ratio < need:
        out.append(Verdict("bandwidth", "fail", subject, f"{head}; needs >= {need:.2f}"))
    else:
        out.append(Verdict("bandwidth", "pass", subject, f"{head}; threshold {need:.2f}"))
    if peak > cap.best * limits.ceiling_tolerance:
        out.append(
            Verdict(
                "bandwidth",
                "warn",
                subject,
                f"{coll}: {peak:.1f} GB/s exceeds the best-case ceiling "
                f"{cap.best:.1f} GB/s: wrong --nodes or --instance-type?",
            )
        )
    return out, peak


def _check_nodes(
    nodes: int | None, captures: list[Capture], facts: InstanceType, limits: Thresholds
) -> None:
    """--nodes that no run on this instance type can have is a usage error (exit 2)."""
    if nodes is None:
        return
    if nodes < 1 or nodes > limits.max_nodes:
        raise ArgumentError("nodes", f"{nodes} is not valid; must be 1 to {limits.max_nodes}")
    for capture in captures:
        for result in capture.results:
            ranks = result.n_ranks
            if ranks is not None and nodes > ranks:
                raise ArgumentError(
                    "nodes",
                    f"{nodes} is not valid for {capture.path}: its {ranks} ranks "
                    f"fit on at most {ranks} nodes",
                )
            if ranks is not None and ranks > nodes * facts.gpu.count:
                raise ArgumentError(
                    "nodes",
                    f"{nodes} is not valid for {capture.path}: {ranks} ranks need "
                    f"at least {-(-ranks // facts.gpu.count)} nodes of {facts.gpu.count} GPUs "
                    f"({facts.name})",
                )


def gate(
    captures: list[Capture],
    facts: InstanceType,
    nodes: int | None = None,
    strict: bool = False,
    limits: Thresholds | None = None,
) -> GateReport:
    """All verdicts for `captures` on the instance type `facts` (the caller looks it up).
    ArgumentError for a node count no run of this type can have."""
    limits = limits or thresholds()
    _check_nodes(nodes, captures, facts, limits)
    debug = merge_debug(captures)
    verdicts: list[Verdict] = []
    peaks: dict[str, float] = {}
    first_nodes: int | None = nodes
    judged: list[tuple[str, TestsResult]] = []
    for capture in captures:
        for result in capture.results:
            subject = posixpath.basename(capture.path)
            if len(capture.results) > 1:
                subject += f"[{capture.results.index(result)}]"
            k = resolve_nodes(nodes, result, debug, facts.gpu.count)
            if nodes is not None and result.hosts and len(result.hosts) != nodes:
                verdicts.append(
                    Verdict(
                        "nodes",
                        "fail",
                        subject,
                        f"--nodes {nodes} but the rank lines name {len(result.hosts)} hosts: "
                        "not the run asked for (pass the node count the run had)",
                    )
                )
            first_nodes = first_nodes or k
            verdicts += [Verdict("input", "fail", subject, p) for p in result.problems]
            verdicts += _complete(result, subject)
            verdicts += _correctness(result, subject)
            if result.problems:
                continue
            bw, peak = _bandwidth(result, subject, facts, k, debug, limits)
            verdicts += bw
            verdicts += latency_verdicts(result, subject, facts, k, limits)
            judged.append((subject, result))
            if peak is not None and result.collective:
                peaks[result.collective] = max(peak, peaks.get(result.collective, 0.0))
    if judged:
        verdicts += consistency_verdicts(judged, limits)
    if first_nodes is None:
        first_nodes = resolve_nodes(None, None, debug, facts.gpu.count)
    verdicts += fabric_verdicts(debug, facts, first_nodes, limits)
    if not any(capture.results for capture in captures):
        names = ", ".join(posixpath.basename(c.path) for c in captures) or "no input"
        verdicts.append(
            Verdict(
                "input",
                "fail",
                names,
                "no nccl-tests results table: nothing measured, so no bandwidth, latency or "
                "correctness to pass on",
            )
        )
    return GateReport(facts, first_nodes, transport(debug), tuple(verdicts), strict, peaks)
