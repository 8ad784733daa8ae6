"""Parse `ip -j -d link show` (iproute2 JSON): interfaces, MTU, state, kind, bridge master."""

from __future__ import annotations

import json
from typing import Any

from gpufabric.errors import UserError
from gpufabric.facts.models import NetLink


def parse(text: str) -> tuple[NetLink, ...]:
    """Parse the JSON array `ip -j link` prints; empty text gives ()."""
    if not text.strip():
        return ()
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"ip -j link: output is not JSON ({exc.msg} at line {exc.lineno})"
        ) from None
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
