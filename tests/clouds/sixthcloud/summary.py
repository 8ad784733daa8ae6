"""Fabric facts read back from the plan's stand-in nodes."""

from __future__ import annotations

from typing import Any


def summarise(plan: Any) -> list[tuple[str, str]]:
    nodes = plan.of_type("sixth:compute:Node")
    zones = sorted({n.inputs.get("zone") for n in nodes})
    return [("Nodes", f"{len(nodes)} in {', '.join(zones)}")]
