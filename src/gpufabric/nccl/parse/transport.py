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


# libfabric providers that are not a fabric: plain TCP or UDP through the kernel.
OFI_SOCKET_PROVIDERS = frozenset({"tcp", "tcp;ofi_rxm", "sockets", "udp", "udp;ofi_rxd"})


def _ofi(provider: str | None, plugin_fabric: str | None) -> str | None:
    """The transport of a libfabric plugin whose provider is `provider`; when the log names no
    provider, the fabric the plugin's name proves (None when no plugin name was seen either)."""
    if not provider:
        return plugin_fabric
    provider = provider.lower()
    if provider in OFI_SOCKET_PROVIDERS:
        return "ofi-tcp"
    return _provider_fabrics().get(provider, f"ofi-{provider}")


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
            return _ofi(info.ofi_provider, fabric)
        if kind == "ib":
            return _ib_link(info)
        return kind
    # the plugin's provider line without its network name: the provider alone says
    return _ofi(info.ofi_provider, None)
