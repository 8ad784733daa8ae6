"""fio's JSON output (--output-format=json), as the storage benchmark runs it.

What is read (fio 3.33, captured on a Debian bookworm machine; see tests/unit/storage_data):
- top level: "fio version", "timestamp_ms" (when fio printed the report, i.e. after the run);
- per job (one per job section with group_reporting): "jobname", "error", and per direction
  ("read" / "write") "io_bytes", "total_ios", "runtime" (ms; with end_fsync=1 it includes the
  final fsync).
- fio's file engines (filecreate, filestat, filedelete) count one file operation as one *read*
  I/O: a metadata rate is read.total_ios / read.runtime.
fio sometimes prints warnings ("fio: ...") on stdout before the JSON; they are skipped. A file
that holds no JSON object, or one with missing or nonsensical numbers, is a UserError naming it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs.files import read_text
from gpufabric.inputs.formats import parse_json


@dataclass(frozen=True)
class Direction:
    io_bytes: int
    ios: int
    runtime_ms: int


@dataclass(frozen=True)
class FioJob:
    name: str
    error: int
    read: Direction
    write: Direction


@dataclass(frozen=True)
class FioRun:
    source: str
    version: str
    end_ms: int  # fio's timestamp_ms: the report's time, just after the run
    jobs: tuple[FioJob, ...]


def _json_part(text: str, source: str) -> dict[str, Any]:
    start = text.find("{")
    end = text.rfind("}")
    if start < 0:
        raise UserError(f"{source}: no fio JSON report in it (run fio with --output-format=json)")
    if end < start:
        raise UserError(f"{source}: fio JSON is cut short or broken (no closing brace)")
    # strict JSON (gpufabric.inputs): a key given twice ("error": 5, "error": 0 would read as
    # no error), NaN or a nesting bomb is refused naming the file
    data = parse_json(text[start : end + 1], where=source)
    if not isinstance(data, dict):
        raise UserError(f"{source}: fio JSON must be an object")
    return data


def _count(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise UserError(f"{where}: '{key}' must be a non-negative number, got {value!r}")
    return int(value)


def _direction(job: dict[str, Any], key: str, where: str) -> Direction:
    part = job.get(key)
    if not isinstance(part, dict):
        raise UserError(f"{where}: no '{key}' section")
    return Direction(
        _count(part, "io_bytes", f"{where}.{key}"),
        _count(part, "total_ios", f"{where}.{key}"),
        _count(part, "runtime", f"{where}.{key}"),
    )


def parse_fio(text: str, source: str) -> FioRun:
    data = _json_part(text, source)
    version = data.get("fio version")
    if not isinstance(version, str):
        raise UserError(f"{source}: not a fio report (no 'fio version')")
    raw_jobs = data.get("jobs")
    if not isinstance(raw_jobs, list) or not raw_jobs:
        raise UserError(f"{source}: fio report without jobs")
    jobs: list[FioJob] = []
    for index, job in enumerate(raw_jobs):
        where = f"{source}: jobs[{index}]"
        if not isinstance(job, dict) or not isinstance(job.get("jobname"), str):
            raise UserError(f"{where}: a job without a name")
        jobs.append(
            FioJob(
                job["jobname"],
                _count(job, "error", where),
                _direction(job, "read", where),
                _direction(job, "write", where),
            )
        )
    return FioRun(source, version, _count(data, "timestamp_ms", source), tuple(jobs))


def read_fio(path: Path) -> FioRun:
    return parse_fio(read_text(path, what="a fio JSON report"), str(path))
