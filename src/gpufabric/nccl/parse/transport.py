"""Which transport carried inter-node traffic, from a parsed NCCL_DEBUG=INFO log.

Names are normalised to: efa, ofi-tcp, ib, roce, socket, fastsocket, tcpx, tcpxo, gib,
or None when the log does not say. The table is data; first match wins.
"""

from __future__ import annotations

import re
from functools import cache

from gpufabric.catalog.networks import fabric_devices, networks
from gpufabric.nccl.model import DebugInfo


@cache
def network_names() -> tuple[tuple[re.Pattern[str], str, str], ...]:
    """(pattern on the 'Using network X' name or the 'via NET/X' path, transport, the fabric it
    proves), in the catalog's order: the names NCCL prints are data (catalog/nccl_networks.yaml,
    with sources)."""
    return tuple(
        (re.compile(rf"^(NET/)?{re.escape(row.name)}", re.I), row.transport, row.fabric)
        for row in networks()
    )


def _provider_fabrics() -> dict[str, str]:
    """libfabric provider -> the fabric whose devices it drives (catalog: ofi_provider); the
    transport over a fabric's own provider is named after the fabric."""
    return {d.ofi_provider: f for f, d in fabric_devices().items() if d.ofi_provider}


def _ofi(provider: str, plugin_fabric: str) -> str:
    """The transport of a libfabric plugin whose provider is `provider` ('' when the log does
    not say: the fabric the plugin's name proves)."""
    if not provider:
        return plugin_fabric
    return _provider_fabrics().get(provider, f"ofi-{provider}")


# libfabric providers that are not a fabric: plain TCP or UDP through the kernel.
OFI_SOCKET_PROVIDERS = frozenset({"tcp", "tcp;ofi_rxm", "sockets", "udp", "udp;ofi_rxd"})


def _by_name(name: str) -> tuple[str, str] | None:
    for pattern, transport, fabric in network_names():
        if pattern.match(name):
            return transport, fabric
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
        found = _by_name(name) if name else None
        if found is None:
            continue
        kind, fabric = found
        if kind == "ofi":
            provider = (info.ofi_provider or "").lower()
            if provider in OFI_SOCKET_PROVIDERS:
                return "ofi-tcp"
            return _ofi(provider, fabric)
        if kind == "ib":
            return _ib_link(info)
        return kind
    if info.ofi_provider:
        return _provider_fabrics().get(info.ofi_provider, f"ofi-{info.ofi_provider}")
    return None


def fabric_nics(info: DebugInfo) -> tuple[str, ...]:
    """NICs NCCL listed for its net transport (IB/RoCE/socket-style device lists)."""
    return tuple(d.name for d in info.net_devices)
