"""Read a tune.json (written by `gpufabric nccl tune pick|run`) for the report, strictly.

Only the parts the report shows are checked; a file of another shape is one UserError line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gpufabric.inputs.errors import ModelError
from gpufabric.inputs.formats import load_json
from gpufabric.inputs.models import render


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Choice(_Loose):
    algorithm: str
    protocol: str
    # a trial forces 1 to MAXCHANNELS (64: NVIDIA/nccl src/include/device.h) channels
    channels: int = Field(ge=1, le=64)


class _Pick(_Loose):
    collective: str
    bucket: str
    choice: _Choice
    gain: float = Field(allow_inf_nan=False, gt=-1)  # a speed-up minus 1: above -100%


class _Tune(_Loose):
    picks: list[_Pick]
    global_env: dict[str, str] = {}
    curves: dict[str, dict[str, list[tuple[float, float]]]] = {}


def read_tune(path: Path) -> dict[str, Any]:
    """The tune.json as a dict the report can use; UserError naming the file otherwise."""
    doc = load_json(path, what="a tune.json")  # `-` is standard input
    try:
        _Tune.model_validate(doc)
    except ValidationError as exc:
        raise ModelError(str(path), f"not a tune.json: {render(exc)}") from None
    return doc
