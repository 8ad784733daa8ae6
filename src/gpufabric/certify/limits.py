"""Certify's thresholds (thresholds.yaml) and the collectives judge: a nccl-tests run with its
NCCL_DEBUG=INFO log -> efficiency against the algorithm-aware bound, the absolute floor and the
transport NCCL proved. Fails closed: a run whose log does not name its transport fails."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from gpufabric.catalog import lookup
from gpufabric.inputs import packaged
from gpufabric.nccl.gate.ceilings import ceiling
from gpufabric.nccl.gate.thresholds import thresholds as gate_thresholds
from gpufabric.nccl.gate.verdict import resolve_nodes
from gpufabric.nccl.model import DebugInfo
from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.parse.transport import transport


@cache
def table() -> dict[str, Any]:
    return dict(packaged.load_yaml("gpufabric.certify", "thresholds.yaml"))


def advice(reason: str) -> str:
    """What to do about a reason (by its first word, as the checks name themselves)."""
    word = reason.split(":", 1)[0].split(" ", 1)[0].strip().lower()
    return table()["advice"].get(word, "see docs/certify.md")


@dataclass(frozen=True)
class Collective:
    name: str  # what ran: "all_reduce leaf1" ...
    collective: str
    nodes: int
    peak_gbytes: float | None  # busbw at the largest size, GB/s
    size: int | None
    algorithm: str  # ring | tree | intra_node
    bound_gbytes: float | None
    efficiency: float | None
    transport: str | None
    ok: bool
    reason: str  # empty when ok

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def algorithm(debug: DebugInfo, collective: str, nodes: int) -> str:
    """The algorithm whose bound applies: NCCL_ALGO from the log, else the default table."""
    if nodes <= 1:
        return "intra_node"
    forced = (debug.env.get("NCCL_ALGO") or "").lower()
    if forced:
        names = {a.strip() for a in forced.replace(";", ",").split(",") if a.strip()}
        if names == {"ring"}:
            return "ring"
        if names and names <= {"tree", "nvlstree"}:
            return "tree"
    default = table()["default_algorithm"]
    if collective == "all_reduce" and nodes == 2:
        return str(default["all_reduce_2_nodes"])
    return str(default["otherwise"])


def judge(
    text: str,
    name: str,
    fabric: str,
    instance_type: str,
    nodes: int | None = None,
    collective: str | None = None,
) -> list[Collective]:
    """Every nccl-tests table in `text` judged on `instance_type` (catalog line rates);
    `collective` when the name does not tell (nccl-tests prints no collective name)."""
    cap = parse_text(text, name, collective)
    facts = lookup(instance_type, key="gpufabric_instance_type")
    t = table()
    out: list[Collective] = []
    proto = transport(cap.debug)
    allowed = gate_thresholds().fabrics.get(fabric)
    fallbacks = set(gate_thresholds().socket_fallbacks)
    for res in cap.results:
        coll = res.collective or "?"
        k = resolve_nodes(nodes, res, cap.debug, facts.gpu.count) or 0
        rows = [r for r in res.rows if r.best_busbw() > 0]
        problems: list[str] = list(res.problems)
        peak = size = bound = eff = None
        algo = algorithm(cap.debug, coll, k)
        if not rows or k < 1:
            problems.append("no measured row" if not rows else "node count unknown")
        else:
            top = max(rows, key=lambda r: r.size)
            peak, size = top.best_busbw(), top.size
            c = ceiling(
                coll,
                k,
                facts.gpu.count,
                facts.fabric_gbps,
                facts.fabric_nics,
                facts.nvlink_gbytes_per_gpu,
            )
            bound = c.hierarchical if algo == "tree" and c.hierarchical else c.ring
            eff = peak / bound if bound else None
            need = float(t["efficiency"][algo]["min"])
            if eff is not None and eff < need:
                problems.append(
                    f"efficiency {eff:.2f} < {need:.2f} of the {algo} bound {bound:.1f} GB/s"
                )
            floor = float(t["floor_gbytes"]["value"])
            if k > 1 and peak < floor:
                problems.append(f"busbw {peak:.1f} GB/s under the {floor:g} GB/s floor (TCP-class)")
        if k > 1:
            if proto is None:
                problems.append("transport not proven: the log names none (NCCL_DEBUG=INFO)")
            elif proto in fallbacks:
                problems.append(f"transport {proto}: fell back to kernel TCP")
            elif allowed is not None and proto not in allowed.transports:
                problems.append(f"transport {proto}, the {fabric} fabric uses {allowed.expect}")
        out.append(
            Collective(
                name,
                coll,
                k,
                peak,
                size,
                algo,
                bound,
                eff,
                proto,
                not problems,
                "; ".join(problems),
            )
        )
    if not out:
        out.append(
            Collective(
                name, "?", nodes or 0, None, None, "?", None, None, proto, False, "no result table"
            )
        )
    return out
