"""Which transport carried inter-node traffic, from a parsed NCCL_DEBUG=INFO log.

Names are normalised to: efa, ofi-tcp, ib, roce, socket, fastsocket, tcpx, tcpxo, gib,
or None when the log does not say. The table is data; first match wins.
"""

from __future__ import annotations

import re
from functools import cache

from gpufabric.catalog.networks import networks
from gpufabric.nccl.model import DebugInfo


@cache
def network_names() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(pattern on the 'Using network X' name or the 'via NET/X' path, transport), in the
    catalog's order: the names NCCL prints are data (catalog/nccl_networks.yaml, with sources)."""
    return tuple(
        (re.compile(rf"^(NET/)?{re.escape(row.name)}", re.I), row.transport) for row in networks()
    )


# libfabric providers that are not a fabric: plain TCP or UDP through the kernel.
OFI_SOCKET_PROVIDERS = frozenset({"tcp", "tcp;ofi_rxm", "sockets", "udp", "udp;ofi_rxd"})


def _by_name(name: str) -> str | None:
    for pattern, transport in network_names():
        if pattern.match(name):
            return transport
    return None


def _ib_link(info: DebugInfo) -> str:
    """NET/IB covers InfiniBand and RoCE: the device list's link layer decides."""
    links = {d.link for d in info.net_devices if d.link}
    return "roce" if links == {"RoCE"} else "ib"


def transport(info: DebugInfo) -> str | None:
    """The inter-node transport NCCL used (or would use), or None when the log is silent."""
    candidates = [info.network or ""]
    candidates += [p for p in info.channel_paths if p.startswith("NET/")]
    candidates.append(f"NET/{info.net_devices_kind}" if info.net_devices_kind else "")
    for name in candidates:
        kind = _by_name(name) if name else None
        if kind == "ofi":
            provider = (info.ofi_provider or "").lower()
            if provider in OFI_SOCKET_PROVIDERS:
                return "ofi-tcp"
            return "efa" if provider in ("", "efa") else f"ofi-{provider}"
        if kind == "ib":
            return _ib_link(info)
        if kind is not None:
            return kind
    if info.ofi_provider:
        return "efa" if info.ofi_provider == "efa" else f"ofi-{info.ofi_provider}"
    return None


def fabric_nics(info: DebugInfo) -> tuple[str, ...]:
    """NICs NCCL listed for its net transport (IB/RoCE/socket-style device lists)."""
    return tuple(d.name for d in info.net_devices)
