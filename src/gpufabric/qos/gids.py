"""Parser for `show_gids` (MLNX_OFED / DOCA) and the RoCE v2 GID index NCCL should use.

Real sample: real capture mlnx_qos/show_gids_cx5_roce_v1_v2.txt. Columns: DEV PORT INDEX
GID IPv4 VER DEV(netdev); the IPv4 and netdev columns may be empty.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from gpufabric.inputs.types import digits


@dataclass(frozen=True)
class Gid:
    hca: str
    port: int
    index: int
    gid: str
    ipv4: str | None
    version: str  # v1 | v2
    netdev: str | None


def parse_show_gids(text: str) -> list[Gid]:
    gids: list[Gid] = []
    for line in text.splitlines():
        cols = line.split()
        if len(cols) < 5 or not digits(cols[1]) or not digits(cols[2]):
            continue
        rest = cols[4:]
        ipv4 = None
        if rest and _is_ipv4(rest[0]):
            ipv4, rest = rest[0], rest[1:]
        if not rest or rest[0] not in ("v1", "v2"):
            continue
        netdev = rest[1] if len(rest) > 1 else None
        gids.append(Gid(cols[0], int(cols[1]), int(cols[2]), cols[3], ipv4, rest[0], netdev))
    return gids


def _is_ipv4(value: str) -> bool:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def roce_v2_gid_index(gids: list[Gid], netdev: str) -> int | None:
    """Index of the RoCE v2 GID with an IPv4 address on `netdev` (what NCCL_IB_GID_INDEX needs)."""
    for gid in gids:
        if gid.netdev == netdev and gid.version == "v2" and gid.ipv4:
            return gid.index
    return None
