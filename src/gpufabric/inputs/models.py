"""Loading straight into pydantic models, with the first problem as one line.

`validate(Model, data, where=...)` / `load_model(path, Model, what=...)`: a ValidationError
becomes a ModelError `<where>: <field path>: <message> (got <value>)`, where the field path is
written as in the file (`nodes[2].name`), plus how many more problems there are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gpufabric.inputs import formats
from gpufabric.inputs.errors import ModelError

M = TypeVar("M", bound=BaseModel)


def field_path(loc: tuple[int | str, ...]) -> str:
    """('nodes', 2, 'name') -> 'nodes[2].name'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _shown(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render(exc: ValidationError) -> str:
    """The first problem of `exc` as one line, with how many more there are."""
    problems = exc.errors(include_url=False)
    first = problems[0]
    line = f"{field_path(tuple(first['loc']))}: {first['msg']}"
    if first["type"] != "missing" and not isinstance(first.get("input"), dict | list):
        line += f" (got {_shown(first.get('input'))})"
    if len(problems) > 1:
        line += f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})"
    return line


def validate(model: type[M], data: Any, *, where: str) -> M:
    """`data` as `model`, or ModelError naming `where` and the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ModelError(where, render(exc)) from None


def load_model(
    path: str | Path,
    model: type[M],
    *,
    what: str,
    fmt: formats.Format = "auto",
    max_bytes: int = formats.MAX_DATA_BYTES,
) -> M:
    """Read `path` (or `-`) as strict JSON/YAML (formats.load_data) into `model`."""
    data = formats.load_data(path, what=what, fmt=fmt, max_bytes=max_bytes)
    where = "- (standard input)" if str(path) == "-" else str(path)
    return validate(model, data, where=where)
