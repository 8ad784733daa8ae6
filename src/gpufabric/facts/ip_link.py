"""Parse `ip -j -d link show` (iproute2 JSON): interfaces, MTU, state, kind, bridge master.

The listing is the node's own report, so it is read strictly: each entry must be an object
with a name the kernel could give (1-15 characters, no '/', ':' or blank, not '.' or '..'),
an integer `ifindex` (1 or more) and `mtu` (0 or more); the text fields, when present, must be
strings. Anything else is refused with one line naming the entry and the field.
"""

from __future__ import annotations

from typing import Any

from gpufabric.errors import UserError
from gpufabric.facts.models import NetLink
from gpufabric.inputs.formats import parse_json

WHERE = "ip -j link"
IFNAMSIZ = 16  # the kernel's limit, with the terminating NUL: names of 1-15 characters


def parse(text: str) -> tuple[NetLink, ...]:
    """Parse the JSON array `ip -j link` prints; empty text gives ()."""
    if not text.strip():
        return ()
    data: Any = parse_json(text, where=WHERE)
    if not isinstance(data, list):
        raise UserError(f"{WHERE}: expected a JSON array of interfaces")
    return tuple(_link(n, item) for n, item in enumerate(data, 1))


def _link(n: int, item: Any) -> NetLink:
    if not isinstance(item, dict):
        raise UserError(f"{WHERE}: interface {n} is {type(item).__name__}, not an object")
    name = _name(n, item.get("ifname"))
    info = item.get("linkinfo") or {}
    if not isinstance(info, dict):
        raise UserError(f"{WHERE}: {name}: linkinfo is not an object")
    return NetLink(
        name=name,
        index=_number(name, item, "ifindex", 1),
        mtu=_number(name, item, "mtu", 0),
        operstate=_text(name, item, "operstate", "UNKNOWN"),
        link_type=_text(name, item, "link_type"),
        kind=_text(name, info, "info_kind"),
        address=_text(name, item, "address"),
        master=_text(name, item, "master"),
    )


def _name(n: int, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise UserError(f"{WHERE}: interface {n} has no ifname")
    bad = (
        len(value) >= IFNAMSIZ
        or value in (".", "..")
        or any(c in "/:" or c.isspace() or not c.isprintable() for c in value)
    )
    if bad:
        raise UserError(f"{WHERE}: interface {n}: {value!r} is not a Linux interface name")
    return value


def _number(name: str, item: dict[str, Any], key: str, least: int) -> int:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise UserError(f"{WHERE}: {name}: {key} {value!r} is not an integer >= {least}")
    return value


def _text(name: str, item: dict[str, Any], key: str, default: str = "") -> str:
    value = item.get(key, default)
    if not isinstance(value, str):
        raise UserError(f"{WHERE}: {name}: {key} {value!r} is not a string")
    return value
