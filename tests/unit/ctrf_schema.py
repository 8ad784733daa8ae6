"""The CTRF project's own JSON schema, as its reference implementation ships it: npm package
`ctrf` (pinned in tools/ctrf, installed under .venv/ctrf by `make venv` with npm ci). Nothing of
it is copied here; where it is not installed (no node / npm), the tests that need it skip with
one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / ".venv" / "ctrf" / "node_modules" / "ctrf"
ABSENT = "the CTRF schema (npm ctrf) is not installed: run `make venv` (needs node and npm)"


def ctrf_schema() -> tuple[str, jsonschema.Draft7Validator]:
    """The installed schema's spec version ("0.0" from ctrf-schema-0.0.json) and a validator of
    it (draft-07, formats checked where jsonschema can); skips where it is not installed."""
    found = sorted((PACKAGE / "dist").glob("ctrf-schema-*.json"))
    if not found:
        pytest.skip(ABSENT)
    schema: dict[str, Any] = json.loads(found[-1].read_text())
    assert schema.get("$schema") == "http://json-schema.org/draft-07/schema#", found[-1]
    jsonschema.Draft7Validator.check_schema(schema)
    version = found[-1].name.removeprefix("ctrf-schema-").removesuffix(".json")
    return version, jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
