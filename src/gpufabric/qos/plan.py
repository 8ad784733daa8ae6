"""Decide what a ConnectX port needs for lossless RoCE, from its current QoS state.

Target (docs/sources.md E.1): trust DSCP; PFC on exactly one priority (RoCE data, default 3);
DSCP 26 -> that priority, DSCP 48 (CNP) -> the CNP priority (default 6); ETS with the RoCE
priority in its own traffic class at `roce_bw_percent`, all other traffic in TC 0, and the CNP
priority in its own strict-priority class. mlx5 reports its highest-priority group as tsa
"vendor"; that counts as strict here (a real mlnx_qos capture shows tc 6 "vendor").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from gpufabric.errors import UserError
from gpufabric.qos.mlnx_qos import QosState

STRICT_TSAS = ("strict", "vendor")
Status = Literal["configured", "change", "unsupported"]


@dataclass(frozen=True)
class QosSpec:
    pfc_priority: int = 3
    roce_dscp: int = 26
    cnp_dscp: int = 48
    cnp_priority: int = 6
    roce_bw_percent: int = 50

    def __post_init__(self) -> None:
        for name in ("pfc_priority", "cnp_priority"):
            if not 0 <= getattr(self, name) <= 7:
                raise UserError(f"roce_qos_{name}: {getattr(self, name)} is not valid; use 0..7")
        for name in ("roce_dscp", "cnp_dscp"):
            if not 0 <= getattr(self, name) <= 63:
                raise UserError(f"roce_qos_{name}: {getattr(self, name)} is not valid; use 0..63")
        if self.pfc_priority in (0, self.cnp_priority):
            raise UserError(
                f"roce_qos_pfc_priority: {self.pfc_priority} is not valid; it must differ from 0 "
                f"(default traffic) and from roce_qos_cnp_priority ({self.cnp_priority})"
            )
        if self.cnp_priority == 0 or self.roce_dscp == self.cnp_dscp:
            raise UserError("roce_qos_cnp_priority/cnp_dscp: CNP needs its own priority and DSCP")
        if not 1 <= self.roce_bw_percent <= 99:
            raise UserError(
                f"roce_qos_roce_bw_percent: {self.roce_bw_percent} is not valid; use 1..99"
            )

    @property
    def traffic_class_byte(self) -> int:
        """GRH traffic class for NCCL_IB_TC: DSCP << 2 plus ECT(0) (docs/sources.md E.1)."""
        return (self.roce_dscp << 2) | 2

    def prio_tc(self) -> list[int]:
        return [p if p in (self.pfc_priority, self.cnp_priority) else 0 for p in range(8)]

    def tsa(self) -> list[str]:
        return ["strict" if tc == self.cnp_priority else "ets" for tc in range(8)]

    def tc_bw(self) -> list[int]:
        bw = [0] * 8
        bw[0] = 100 - self.roce_bw_percent
        bw[self.pfc_priority] = self.roce_bw_percent
        return bw


@dataclass(frozen=True)
class QosPlan:
    status: Status
    reasons: list[str] = field(default_factory=list)
    mlnx_qos_args: list[str] = field(default_factory=list)
    dcb_commands: list[list[str]] = field(default_factory=list)


def _differences(state: QosState, spec: QosSpec) -> list[str]:
    out: list[str] = []
    if state.trust != "dscp":
        out.append(f"trust is {state.trust}, want dscp")
    if state.pfc_priorities() != [spec.pfc_priority]:
        out.append(f"PFC on priorities {state.pfc_priorities()}, want [{spec.pfc_priority}]")
    for dscp, prio in ((spec.roce_dscp, spec.pfc_priority), (spec.cnp_dscp, spec.cnp_priority)):
        if state.dscp2prio.get(dscp) != prio:
            out.append(f"DSCP {dscp} maps to priority {state.dscp2prio.get(dscp)}, want {prio}")
    roce_tc = state.tc_of(spec.pfc_priority)
    if roce_tc is None or roce_tc.priorities != (spec.pfc_priority,):
        out.append(f"priority {spec.pfc_priority} is not alone in its own traffic class")
    elif roce_tc.tsa != "ets" or roce_tc.bw_percent != spec.roce_bw_percent:
        out.append(
            f"RoCE tc {roce_tc.tc} is {roce_tc.tsa} {roce_tc.bw_percent}%, "
            f"want ets {spec.roce_bw_percent}%"
        )
    cnp_tc = state.tc_of(spec.cnp_priority)
    if cnp_tc is None or cnp_tc.tsa not in STRICT_TSAS:
        out.append(f"CNP priority {spec.cnp_priority} is not in a strict-priority class")
    return out


def dcb_commands(dev: str, spec: QosSpec) -> list[list[str]]:
    prio_tc = [f"{p}:{tc}" for p, tc in enumerate(spec.prio_tc())]
    tsa = [f"{tc}:{t}" for tc, t in enumerate(spec.tsa())]
    bw = [f"{tc}:{b}" for tc, b in enumerate(spec.tc_bw())]
    return [
        [
            "dcb",
            "app",
            "replace",
            "dev",
            dev,
            "dscp-prio",
            f"{spec.roce_dscp}:{spec.pfc_priority}",
            f"{spec.cnp_dscp}:{spec.cnp_priority}",
        ],
        ["dcb", "pfc", "set", "dev", dev, "prio-pfc", "all:off", f"{spec.pfc_priority}:on"],
        ["dcb", "ets", "set", "dev", dev, "prio-tc", *prio_tc, "tc-tsa", *tsa, "tc-bw", *bw],
    ]


def mlnx_qos_args(dev: str, spec: QosSpec) -> list[str]:
    pfc = ",".join("1" if p == spec.pfc_priority else "0" for p in range(8))
    return [
        "mlnx_qos",
        "-i",
        dev,
        "--trust",
        "dscp",
        "--pfc",
        pfc,
        "--dscp2prio",
        f"set,{spec.roce_dscp},{spec.pfc_priority}",
        "--dscp2prio",
        f"set,{spec.cnp_dscp},{spec.cnp_priority}",
        "--prio_tc",
        ",".join(map(str, spec.prio_tc())),
        "--tsa",
        ",".join(spec.tsa()),
        "--tc_bw",
        ",".join(map(str, spec.tc_bw())),
    ]


def plan_qos(dev: str, driver: str | None, state: QosState | None, spec: QosSpec) -> QosPlan:
    """What to do on `dev`: nothing, a change (with the commands), or skip (unsupported NIC).

    `driver` is the `driver:` line of `ethtool -i <dev>`; `state` the parsed `mlnx_qos` output
    (None when the tool could not read the port).
    """
    if driver != "mlx5_core":
        return QosPlan(
            "unsupported", [f"{dev}: driver {driver or 'unknown'} is not mlx5_core (ConnectX)"]
        )
    if state is None:
        return QosPlan("unsupported", [f"{dev}: mlnx_qos could not read the port's QoS state"])
    reasons = _differences(state, spec)
    if not reasons:
        return QosPlan("configured")
    return QosPlan("change", reasons, mlnx_qos_args(dev, spec), dcb_commands(dev, spec))
