"""What a stack config gives, as one line: the refusal, or `ok (<type> x <nodes>)`."""

from __future__ import annotations

from typing import Any

from gpufabric.config import parse
from gpufabric.errors import UserError


def config_line(base: dict[str, Any], override: dict[str, Any]) -> str:
    """The one line parsing `base` with `override` gives (the error, or what was accepted)."""
    try:
        cfg = parse({**base, **override}, "edge")
    except UserError as exc:
        return str(exc)
    return f"ok ({cfg.instance_type} x {cfg.nodes})"
