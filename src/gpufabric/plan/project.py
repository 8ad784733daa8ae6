"""Find the project, read `stacks/Pulumi.<stack>.yaml`, and apply `-c KEY=VALUE` overrides."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from gpufabric.config.stack_reader import load_stack_file
from gpufabric.errors import UserError
from gpufabric.inputs.formats import parse_json_or_text

PROJECT = "gpufabric"


def project_root(start: Path | None = None) -> Path:
    """The directory holding Pulumi.yaml: $GPUFABRIC_PROJECT, or the nearest one above `start`."""
    if env := os.environ.get("GPUFABRIC_PROJECT"):
        root = Path(env)
        if not root.is_dir():
            raise UserError(f"GPUFABRIC_PROJECT={env}: no such project folder")
        if not (root / "Pulumi.yaml").is_file() or not (root / "stacks").is_dir():
            raise UserError(f"GPUFABRIC_PROJECT={env}: no Pulumi.yaml with a stacks/ folder there")
        return root
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "Pulumi.yaml").is_file() and (folder / "stacks").is_dir():
            return folder
    raise UserError(
        f"no Pulumi.yaml with a stacks/ folder at or above {here}; run from the project"
    )


def stack_names(root: Path) -> list[str]:
    return sorted(
        p.name[len("Pulumi.") : -len(".yaml")] for p in (root / "stacks").glob("Pulumi.*.yaml")
    )


def read_stack(root: Path, stack: str) -> dict[str, Any]:
    """The stack file's `config:` map, keys fully namespaced."""
    path = root / "stacks" / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        raise UserError(f"stack '{stack}' not found; known stacks: {', '.join(stack_names(root))}")
    return load_stack_file(path, PROJECT)


def apply_overrides(config: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """`-c KEY=VALUE` as `pulumi up -c` takes it; `KEY.sub` sets a nested value (like --path)."""
    result = copy.deepcopy(config)
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UserError(f"-c {item!r}: expected KEY=VALUE, e.g. -c gpufabric:nodes=16")
        value = parse_json_or_text(text, where=f"-c {key}")
        full_key, *path = _full_key(key).split(".")
        if not path:
            result[full_key] = value
            continue
        node = result.setdefault(full_key, {})
        for part in path[:-1]:
            if not isinstance(node, dict):
                raise UserError(f"-c {item!r}: {full_key} is not a map")
            node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise UserError(f"-c {item!r}: {full_key} is not a map")
        node[path[-1]] = value
    return result


def _full_key(key: str) -> str:
    return key if ":" in key else f"{PROJECT}:{key}"
