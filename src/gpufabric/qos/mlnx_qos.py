"""Parser for the text that `mlnx_qos -i <if>` prints (MLNX_OFED / DOCA host tools).

Real sample: real capture mlnx_qos/mlnx_qos_cx5_dcbx_fw_dscp_pfc3.txt (ConnectX-5).
The parser is strict about what it needs (trust, PFC rows, traffic classes) and ignores lines it
does not know, so newer tool versions with extra lines still parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpufabric.errors import UserError
from gpufabric.inputs.types import digits

_TC_RE = re.compile(
    r"^tc:\s*(?P<tc>\d+)\s+ratelimit:\s*(?P<rate>[^,]+),\s*tsa:\s*(?P<tsa>\w+)"
    r"(?:,\s*bw:\s*(?P<bw>\d+)%)?"
)
_DSCP_RE = re.compile(r"^prio:\s*(?P<prio>\d)\s+dscp:(?P<dscps>[\d,\s]*)$")


@dataclass(frozen=True)
class TrafficClass:
    tc: int
    tsa: str  # ets | strict | vendor
    bw_percent: int | None
    priorities: tuple[int, ...]


@dataclass(frozen=True)
class QosState:
    dcbx_mode: str | None
    trust: str  # dscp | pcp
    dscp2prio: dict[int, int]  # dscp -> priority
    pfc_enabled: tuple[int, ...]  # 8 flags, index = priority
    tcs: tuple[TrafficClass, ...] = field(default_factory=tuple)

    def pfc_priorities(self) -> list[int]:
        return [prio for prio, on in enumerate(self.pfc_enabled) if on]

    def tc_of(self, priority: int) -> TrafficClass | None:
        for tc in self.tcs:
            if priority in tc.priorities:
                return tc
        return None


def _flags(line: str) -> tuple[int, ...]:
    words = line.split()[1:]
    if len(words) != 8 or any(w not in ("0", "1") for w in words):
        raise UserError(f"mlnx_qos output: expected 8 PFC flags, got {line.strip()!r}")
    return tuple(int(w) for w in words)


def _priority(line: str) -> int:
    value = line.split(":", 1)[1].strip()
    if not digits(value) or int(value) > 7:  # 802.1p priorities are 0 to 7
        raise UserError(f"mlnx_qos output: expected a priority number 0-7, got {line!r}")
    return int(value)


def parse_mlnx_qos(text: str) -> QosState:
    """Parse `mlnx_qos -i <if>` output; UserError with one line if it is not that output."""
    dcbx: str | None = None
    trust: str | None = None
    dscp2prio: dict[int, int] = {}
    pfc: tuple[int, ...] | None = None
    tcs: list[TrafficClass] = []
    cur: dict[str, object] | None = None

    def close_tc() -> None:
        if cur is not None:
            tcs.append(TrafficClass(**cur))  # type: ignore[arg-type]

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("DCBX mode:"):
            dcbx = line.split(":", 1)[1].strip()
        elif line.startswith("Priority trust state:"):
            trust = line.split(":", 1)[1].strip().lower()
        elif match := _DSCP_RE.match(line):
            for dscp in filter(None, (d.strip() for d in match["dscps"].split(","))):
                dscp2prio[int(dscp)] = int(match["prio"])
        elif line.startswith("enabled") and pfc is None:
            pfc = _flags(line)
        elif match := _TC_RE.match(line):
            close_tc()
            bw = match["bw"]
            cur = {
                "tc": int(match["tc"]),
                "tsa": match["tsa"].lower(),
                "bw_percent": int(bw) if bw is not None else None,
                "priorities": (),
            }
        elif line.startswith("priority:") and cur is not None:
            cur["priorities"] = (*cur["priorities"], _priority(line))  # type: ignore[misc]
    close_tc()
    if trust is None or pfc is None:
        raise UserError(
            "not mlnx_qos output: no 'Priority trust state' or PFC 'enabled' row "
            "(is the NIC a ConnectX with the mlx5 driver?)"
        )
    return QosState(
        dcbx_mode=dcbx, trust=trust, dscp2prio=dscp2prio, pfc_enabled=pfc, tcs=tuple(tcs)
    )
