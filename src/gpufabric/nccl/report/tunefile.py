"""Read a tune.json (written by `gpufabric nccl tune pick|run`) for the report, strictly.

Only the parts the report shows are checked; a file of another shape is one UserError line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from gpufabric.errors import UserError
from gpufabric.userfiles import read_bytes


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Choice(_Loose):
    algorithm: str
    protocol: str
    channels: int


class _Pick(_Loose):
    collective: str
    bucket: str
    choice: _Choice
    gain: float


class _Tune(_Loose):
    picks: list[_Pick]
    global_env: dict[str, str] = {}
    curves: dict[str, dict[str, list[tuple[float, float]]]] = {}


def read_tune(path: Path) -> dict[str, Any]:
    """The tune.json as a dict the report can use; UserError naming the file otherwise."""
    data = read_bytes(path)  # `-` is standard input
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; expected tune.json") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    try:
        _Tune.model_validate(doc)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise UserError(f"{path}: not a tune.json: {where}: {err['msg']}") from None
    return doc
