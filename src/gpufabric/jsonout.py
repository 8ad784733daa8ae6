"""JSON that every reader accepts: NaN and infinities become null (json.dumps would print NaN)."""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """`value` with every non-finite float replaced by None, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """json.dumps that never writes NaN / Infinity (strict JSON, RFC 8259)."""
    return json.dumps(finite(value), allow_nan=False, **kwargs)
