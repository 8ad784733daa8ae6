"""What Sixth fills in under the plan's mocks: each node's private address."""

from __future__ import annotations

from typing import Any


def computed(typ: str, name: str, inputs: dict[str, Any], records: Any, facts: Any) -> dict:
    return {"privateIp": f"10.6.0.{len(records) + 1}"} if typ == "sixth:compute:Node" else {}


def answer(token: str, facts: Any) -> dict[str, Any]:
    return {}
