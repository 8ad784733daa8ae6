"""Reading user files (recorded responses, names files) with one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from gpufabric import userfiles
from gpufabric.errors import UserError


def read_text(path: Path) -> str:
    """UTF-8 text of `path`; `-` is standard input."""
    return userfiles.read_text(path)


def read_data(path: Path) -> Any:
    """A JSON or YAML document (JSON is tried first, for exact error positions)."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise UserError(f"{path}: not valid JSON or YAML{where}") from None


def read_names(path: Path) -> dict[str, str]:
    """A names file: a JSON/YAML mapping `id: node-name`, or lines `id node-name`."""
    text = read_text(path)
    data: Any = None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        out = {str(k): str(v) for k, v in data.items() if v is not None}
    else:
        out = {}
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise UserError(
                    f"{path}:{number}: expected 'id name' or a YAML mapping, got {line!r}"
                )
            out[parts[0]] = parts[1]
    if not out:
        raise UserError(f"{path}: names file maps no ids to names")
    return out
