"""Sixth's nodes from `sixth nodes list --json`: {"sixthNodes": [{"name", "ip", "path"}]}."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs


def recognise(data: Any) -> str | None:
    return "sixth" if isinstance(data, dict) and isinstance(data.get("sixthNodes"), list) else None


def from_docs(outputs: StackOutputs, docs: Sequence[tuple[Path, str, Any]]) -> Found:
    members = {m: g.name for g in outputs.nodes.groups for m in g.members}
    found = Found()
    for _path, _kind, data in docs:
        for item in data.get("sixthNodes", []):
            name = item.get("name")
            if name not in members:
                found.warnings.append(f"{name}: not a node of this stack")
                continue
            path = item.get("path") or []
            found.add(Node(name, str(item["ip"]), members[name], leaf=path[-1] if path else ""))
    return found


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    raise UserError("sixth: no live API in tests")
