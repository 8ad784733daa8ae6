"""Reading user files (recorded responses, names files, hostfiles) through gpufabric.inputs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs import files, formats

_MAPPING_LINE = re.compile(r"^\s*[{\"']|^[^#\s][^#]*:(\s|$)")


def read_text(path: Path, what: str = "a topology input") -> str:
    """UTF-8 text of `path`; `-` is standard input."""
    return files.read_text(path, what=what)


def read_data(path: Path) -> Any:
    """A JSON or YAML document (strict: formats.load_data; `.json` and text starting with
    `{` / `[` are read as JSON, for exact error positions)."""
    return formats.load_data(path, what="a recorded topology response (JSON or YAML)")


def _where(path: Path) -> str:
    return "- (standard input)" if files.is_stdin(path) else str(path)


def read_names(path: Path) -> dict[str, str]:
    """A names file: a JSON/YAML mapping `id: node-name`, or lines `id node-name`.

    An id given twice, a name that is not a plain string and an empty name are refused."""
    what = "a names file (id: name mapping or 'id name' lines)"
    text = files.read_text(path, what=what, max_bytes=16 * files.MiB)
    where = _where(path)
    lines = [ln.split("#", 1)[0] for ln in text.splitlines()]
    if any(_MAPPING_LINE.match(ln) for ln in lines):
        data = formats.parse_yaml(text, where=where)
        if not isinstance(data, dict):
            raise UserError(f"{where}: expected a mapping of id to node name")
        out: dict[str, str] = {}
        for key, value in data.items():
            if isinstance(key, bool) or not isinstance(key, str | int):
                raise UserError(f"{where}: id {key!r} is not a string")
            if not isinstance(value, str) or not value.strip():
                raise UserError(f"{where}: id {str(key)!r}: name {value!r} is not a string")
            if str(key) in out:  # `12345` and "12345"
                raise UserError(f"{where}: id {str(key)!r} given twice")
            out[str(key)] = value
    else:
        out = {}
        for number, line in enumerate(lines, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 2:
                raise UserError(
                    f"{where}:{number}: expected 'id name' or a YAML mapping, got {line.strip()!r}"
                )
            if parts[0] in out:
                raise UserError(f"{where}:{number}: id {parts[0]!r} given twice")
            out[parts[0]] = parts[1]
    if not out:
        raise UserError(f"{where}: names file maps no ids to names")
    return out
