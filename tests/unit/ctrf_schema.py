"""The CTRF report rules as a JSON Schema (draft-07), written for these tests from the CTRF
specification and schema (ctrf-io/ctrf spec/ctrf.md and schema/ctrf.schema.json at 84ddec55,
2026-07-26): the required fields, their types, the closed objects (no key outside the listed
ones; custom data goes under `extra`), statuses, integer milliseconds. It is constructed here,
not a copy of the upstream file; descriptions and the optional objects' inner shapes
(insights, retries, steps, attachments, environment fields) are left out."""

from __future__ import annotations

from typing import Any

INT = {"type": "integer"}
STR = {"type": "string"}
OBJ = {"type": "object"}
STATUS = {"enum": ["passed", "failed", "skipped", "pending", "other"]}

TEST: dict[str, Any] = {
    "type": "object",
    "required": ["name", "status", "duration"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "status": STATUS,
        "duration": INT,
        "start": INT,
        "stop": INT,
        "suite": {"type": "array", "minItems": 1, "items": STR},
        "message": STR,
        "trace": STR,
        "rawStatus": STR,
        "tags": {"type": "array", "items": STR},
        "labels": OBJ,
        "type": STR,
        "parameters": OBJ,
        "extra": OBJ,
        **{
            k: {}
            for k in (
                "id",
                "testId",
                "executionId",
                "snippet",
                "ai",
                "line",
                "filePath",
                "retries",
                "retryAttempts",
                "flaky",
                "stdout",
                "stderr",
                "threadId",
                "browser",
                "device",
                "screenshot",
                "attachments",
                "steps",
                "insights",
            )
        },
    },
}

CTRF_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["results", "reportFormat", "specVersion"],
    "additionalProperties": False,
    "properties": {
        "reportFormat": {"const": "CTRF"},
        "specVersion": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+\.[0-9]+$"},
        "reportId": STR,
        "runId": STR,
        "timestamp": STR,
        "generatedBy": STR,
        "extra": OBJ,
        "insights": OBJ,
        "baseline": OBJ,
        "results": {
            "type": "object",
            "required": ["tool", "summary", "tests"],
            "additionalProperties": False,
            "properties": {
                "tool": {
                    "type": "object",
                    "required": ["name"],
                    "additionalProperties": False,
                    "properties": {
                        "name": {"type": "string", "minLength": 1},
                        "version": STR,
                        "extra": OBJ,
                    },
                },
                "summary": {
                    "type": "object",
                    "required": [
                        "tests",
                        "passed",
                        "failed",
                        "skipped",
                        "pending",
                        "other",
                        "start",
                        "stop",
                    ],
                    "additionalProperties": False,
                    "properties": {
                        **{
                            k: INT
                            for k in (
                                "tests",
                                "passed",
                                "failed",
                                "skipped",
                                "pending",
                                "other",
                                "flaky",
                                "suites",
                                "start",
                                "stop",
                                "duration",
                            )
                        },
                        "extra": OBJ,
                    },
                },
                "tests": {"type": "array", "items": TEST},
                "environment": {
                    "type": "object",
                    "properties": {"reportName": STR, "healthy": {"type": "boolean"}, "extra": OBJ},
                },
                "extra": OBJ,
            },
        },
    },
}
