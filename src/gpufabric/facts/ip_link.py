"""Parse `ip -j -d link show` (iproute2 JSON): interfaces, MTU, state, kind, bridge master."""

from __future__ import annotations

from typing import Any

from gpufabric.errors import UserError
from gpufabric.facts.models import NetLink
from gpufabric.inputs.formats import parse_json


def parse(text: str) -> tuple[NetLink, ...]:
    """Parse the JSON array `ip -j link` prints; empty text gives ()."""
    if not text.strip():
        return ()
    data: Any = parse_json(text, where="ip -j link")
    if not isinstance(data, list):
        raise UserError("ip -j link: expected a JSON array of interfaces")
    return tuple(_link(item) for item in data if isinstance(item, dict))


def _link(item: dict[str, Any]) -> NetLink:
    info = item.get("linkinfo") or {}
    return NetLink(
        name=str(item.get("ifname", "")),
        index=int(item.get("ifindex", 0)),
        mtu=int(item.get("mtu", 0)),
        operstate=str(item.get("operstate", "UNKNOWN")),
        link_type=str(item.get("link_type", "")),
        kind=str(info.get("info_kind", "")),
        address=str(item.get("address", "")),
        master=str(item.get("master", "")),
    )
