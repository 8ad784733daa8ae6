"""Gate nccl-tests results and NCCL logs against the instance type's fabric.

Fails on: transport fallback to sockets (or any transport that is not the fabric's), fewer
NICs used than present, no GPUDirect RDMA where the fabric has it, busbw under the threshold
at large sizes, #wrong > 0 / out-of-bounds values, a run cut short (no footer, or the sweep
stops before maxBytes), and fatal NCCL WARN lines. Each verdict is one line naming its cause.
Numbers come from the catalog (line rates) and thresholds.yaml (efficiencies), never from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from gpufabric.catalog import InstanceType, lookup
from gpufabric.errors import UserError
from gpufabric.nccl.ceilings import ceiling, infer_ranks
from gpufabric.nccl.model import Capture, DebugInfo, TestsResult
from gpufabric.nccl.thresholds import Thresholds, thresholds
from gpufabric.nccl.transport import transport

Status = Literal["pass", "warn", "fail"]
T = TypeVar("T")


@dataclass(frozen=True)
class Verdict:
    check: str  # complete | correctness | bandwidth | transport | nics | gdr | nccl-warn | debug
    status: Status
    subject: str  # the file (or "fabric" for what the merged NCCL logs say)
    message: str  # one line

    def line(self) -> str:
        return f"{self.status.upper():4} {self.check:11} {self.subject}: {self.message}"


@dataclass(frozen=True)
class GateReport:
    instance_type: str
    nodes: int | None
    transport: str | None
    verdicts: tuple[Verdict, ...]
    strict: bool = False
    peaks: dict[str, float] = field(default_factory=dict)  # collective -> peak large busbw

    @property
    def passed(self) -> bool:
        bad: tuple[str, ...] = ("fail", "warn") if self.strict else ("fail",)
        return not any(v.status in bad for v in self.verdicts)


def human_bytes(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def _first(values: list[T]) -> T | None:
    return next((v for v in values if v), None)


def _union(groups: list[tuple[T, ...]]) -> tuple[T, ...]:
    seen: dict[T, None] = {}
    for group in groups:
        for item in group:
            seen.setdefault(item, None)
    return tuple(seen)


def merge_debug(captures: list[Capture]) -> DebugInfo:
    """One DebugInfo for the whole run: first non-empty value of each field, unions of lists."""
    infos = [c.debug for c in captures if c.debug.seen]
    if not infos:
        return DebugInfo()
    env: dict[str, str] = {}
    for info in infos:
        env.update(info.env)
    gdrs = [i.gdr for i in infos if i.gdr is not None]
    nics = _union([i.net_nics_used for i in infos])
    return DebugInfo(
        nccl_version=_first([i.nccl_version for i in infos]),
        net_plugin=_first([i.net_plugin for i in infos]),
        network=_first([i.network for i in infos]),
        net_devices_kind=_first([i.net_devices_kind for i in infos]),
        net_devices=_first([i.net_devices for i in infos]) or (),
        ofi_provider=_first([i.ofi_provider for i in infos]),
        ofi_nics_found=_first([i.ofi_nics_found for i in infos]),
        channel_paths=_union([i.channel_paths for i in infos]),
        net_nics_used=tuple(sorted(nics, key=int)),
        gdr=any(gdrs) if gdrs else None,
        coll_channels=_first([i.coll_channels for i in infos]),
        ring_channels=_first([i.ring_channels for i in infos]),
        n_ranks=_first([i.n_ranks for i in infos]),
        n_nodes=_first([i.n_nodes for i in infos]),
        tuner=_first([i.tuner for i in infos]),
        env=env,
        bootstrap=_first([i.bootstrap for i in infos]),
        warnings=_union([i.warnings for i in infos]),
        info_lines=sum(i.info_lines for i in infos),
    )


def resolve_nodes(
    nodes: int | None, result: TestsResult | None, debug: DebugInfo, gpus: int
) -> tuple[int | None, str]:
    """Node count and where it came from: flag > rank hosts > NCCL nNodes > ranks / GPUs."""
    if nodes is not None:
        return nodes, "--nodes"
    if result is not None and result.hosts:
        return len(result.hosts), "rank lines"
    if debug.n_nodes:
        return debug.n_nodes, "NCCL nNodes"
    ranks = result.n_ranks if result is not None else None
    ranks = ranks or debug.n_ranks
    if ranks is None and result is not None:
        ranks = infer_ranks(result.collective, result.rows)
    if ranks is not None and ranks % gpus == 0:
        return ranks // gpus, f"{ranks} ranks / {gpus} GPUs"
    if ranks is not None and ranks < gpus:
        return 1, f"{ranks} ranks < {gpus} GPUs"
    return None, "unknown"


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
        and max_bytes.isdigit()
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


def _algorithm(debug: DebugInfo, collective: str) -> str | None:
    """'ring' / 'tree' when NCCL_ALGO forces one for this collective, else None (NCCL chooses)."""
    value = debug.env.get("NCCL_ALGO")
    if not value:
        return None
    names = value.lower()
    if ":" in names:  # per-collective form 'allreduce:tree;allgather:ring'
        wanted = collective.replace("_", "")
        parts = dict(p.split(":", 1) for p in names.split(";") if ":" in p)
        names = parts.get(wanted, "")
    algos = {a.strip() for a in names.split(",") if a.strip()}
    if algos == {"ring"}:
        return "ring"
    if algos and algos <= {"tree", "nvlstree"}:
        return "tree"
    return None


def _bandwidth(
    result: TestsResult,
    subject: str,
    facts: InstanceType,
    nodes: int | None,
    debug: DebugInfo,
    limits: Thresholds,
) -> tuple[list[Verdict], float | None]:
    coll = result.collective
    if coll is None:
        return [
            Verdict(
                "bandwidth",
                "warn",
                subject,
                "collective unknown (name the file <collective>_perf*.txt): not gated",
            )
        ], None
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
    algo = _algorithm(debug, coll) if nodes > 1 else None
    if nodes <= 1:
        bound, need, label = cap.ring, eff.intra_node, "intra-node ring bound"
    elif algo == "tree" and cap.hierarchical is not None:
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
    if ratio < need:
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


def _expected_devices(facts: InstanceType, limits: Thresholds) -> int:
    override = limits.instances.get(facts.name)
    if override is not None and override.net_devices is not None:
        return override.net_devices
    rule = limits.fabrics[facts.fabric]
    if rule.net_devices == "min_nics_gpus":
        return min(facts.fabric_nics, facts.gpu.count)
    return facts.fabric_nics


def _fabric(
    debug: DebugInfo, facts: InstanceType, nodes: int | None, limits: Thresholds
) -> list[Verdict]:
    subject = "fabric"
    if not debug.seen:
        return [
            Verdict(
                "debug",
                "warn",
                subject,
                "no NCCL_DEBUG=INFO lines: transport and NIC use not checked "
                "(run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET)",
            )
        ]
    out: list[Verdict] = []
    rule = limits.fabrics.get(facts.fabric)
    found = transport(debug)
    devices = ", ".join(d.name for d in debug.net_devices) or None
    where = f" on {devices}" if devices else ""
    if rule is None:
        out.append(
            Verdict(
                "transport",
                "warn",
                subject,
                f"no rule for fabric {facts.fabric!r} in thresholds.yaml",
            )
        )
    elif found in limits.socket_fallbacks:
        name = "libfabric tcp provider" if found == "ofi-tcp" else "NET/Socket"
        out.append(
            Verdict(
                "transport",
                "fail",
                subject,
                f"socket fallback: NCCL used TCP sockets ({name}{where}) on "
                f"{facts.name}, whose fabric is {facts.fabric}; expected {rule.expect}",
            )
        )
    elif found is None:
        if nodes == 1 and not any(p.startswith("NET/") for p in debug.channel_paths):
            out.append(
                Verdict("transport", "pass", subject, "single node: no inter-node transport needed")
            )
        else:
            out.append(
                Verdict(
                    "transport",
                    "warn",
                    subject,
                    "the log does not name the network NCCL used "
                    "(need the 'NET/...' / 'Using network' INFO lines)",
                )
            )
    elif found not in rule.transports:
        out.append(
            Verdict(
                "transport",
                "fail",
                subject,
                f"NCCL used {found}{where} but {facts.name}'s fabric is "
                f"{facts.fabric}; expected {rule.expect}",
            )
        )
    else:
        plugin = f", plugin {debug.net_plugin}" if debug.net_plugin else ""
        out.append(Verdict("transport", "pass", subject, f"NCCL used {found}{plugin}{where}"))
    if rule is not None and found in rule.transports:
        out.extend(_nics(debug, facts, limits))
        if rule.require_gdr and debug.gdr is False:
            out.append(
                Verdict(
                    "gdr",
                    "fail",
                    subject,
                    "NET channels without GDRDMA: GPUDirect RDMA is off "
                    "(check nvidia-peermem / dmabuf and NCCL_NET_GDR_LEVEL)",
                )
            )
        elif rule.require_gdr and debug.gdr:
            out.append(Verdict("gdr", "pass", subject, "GPUDirect RDMA (GDRDMA) on NET channels"))
    out.extend(_warnings(debug, limits))
    return out


def _nics(debug: DebugInfo, facts: InstanceType, limits: Thresholds) -> list[Verdict]:
    subject = "fabric"
    expected = _expected_devices(facts, limits)
    present = f"{facts.fabric_nics} x {facts.fabric_nic_gbps}G"
    if debug.net_nics_used:
        used = len(debug.net_nics_used)
        what = f"NET channels use NIC {', '.join(debug.net_nics_used)}"
    elif debug.net_devices:
        fabric_devices = [
            d for d in debug.net_devices if d.link in ("IB", "RoCE") or d.link is None
        ]
        used = len(fabric_devices)
        what = "NCCL lists " + ", ".join(d.name for d in fabric_devices)
    elif debug.ofi_nics_found is not None:
        used = debug.ofi_nics_found
        what = f"aws-ofi-nccl found {used} NICs"
    else:
        return [
            Verdict(
                "nics",
                "warn",
                subject,
                "the log lists no NET devices or NET channels: NIC use not checked",
            )
        ]
    out: list[Verdict] = []
    if used < expected:
        out.append(
            Verdict(
                "nics",
                "fail",
                subject,
                f"{what}: {used} of the {expected} NCCL net devices expected on "
                f"{facts.name} ({present})",
            )
        )
    else:
        out.append(Verdict("nics", "pass", subject, f"{what} ({used}/{expected} expected)"))
    links = {d.link for d in debug.net_devices if d.link}
    if facts.fabric == "infiniband" and links == {"IB", "RoCE"}:
        extra = ", ".join(d.name for d in debug.net_devices if d.link == "RoCE")
        out.append(
            Verdict(
                "nics",
                "warn",
                subject,
                f"RoCE device {extra} listed among the IB HCAs: exclude it with NCCL_IB_HCA",
            )
        )
    return out


def _warnings(debug: DebugInfo, limits: Thresholds) -> list[Verdict]:
    fatal = [re.compile(p, re.I) for p in limits.fatal_warnings]
    out: list[Verdict] = []
    for msg in debug.warnings:
        status: Status = "fail" if any(p.search(msg) for p in fatal) else "warn"
        out.append(Verdict("nccl-warn", status, "fabric", f"NCCL WARN {msg}"))
        if status == "fail":
            break
    return out


def gate(
    captures: list[Capture],
    instance_type: str,
    nodes: int | None = None,
    strict: bool = False,
    limits: Thresholds | None = None,
) -> GateReport:
    """All verdicts for `captures` on `instance_type`. UserError for unknown types / bad nodes."""
    if nodes is not None and nodes < 1:
        raise UserError(f"--nodes: {nodes} is not valid; must be 1 or more")
    facts = lookup(instance_type, key="--instance-type")
    limits = limits or thresholds()
    debug = merge_debug(captures)
    verdicts: list[Verdict] = []
    peaks: dict[str, float] = {}
    first_nodes: int | None = nodes
    for capture in captures:
        for result in capture.results:
            subject = capture.path.rsplit("/", 1)[-1]
            if len(capture.results) > 1:
                subject += f"[{capture.results.index(result)}]"
            k, _source = resolve_nodes(nodes, result, debug, facts.gpu.count)
            first_nodes = first_nodes or k
            verdicts += _complete(result, subject)
            verdicts += _correctness(result, subject)
            bw, peak = _bandwidth(result, subject, facts, k, debug, limits)
            verdicts += bw
            if peak is not None and result.collective:
                peaks[result.collective] = max(peak, peaks.get(result.collective, 0.0))
    if first_nodes is None:
        first_nodes, _ = resolve_nodes(None, None, debug, facts.gpu.count)
    verdicts += _fabric(debug, facts, first_nodes, limits)
    return GateReport(instance_type, first_nodes, transport(debug), tuple(verdicts), strict, peaks)
