"""One entry point for any NCCL capture: nccl-tests text or JSON, NCCL_DEBUG=INFO lines, or both."""

from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from gpufabric.errors import ArgumentError, UserError
from gpufabric.inputs.files import read_text
from gpufabric.nccl.model import Capture, DebugInfo
from gpufabric.nccl.parse import strict
from gpufabric.nccl.parse.debuglog import parse_debug_lines
from gpufabric.nccl.parse.tests_json import parse_tests_json
from gpufabric.nccl.parse.tests_text import COLLECTIVES, collective_from_name, parse_tests_text
from gpufabric.nccl.parse.transport import transport


def parse_text(text: str, name: str = "<text>", collective: str | None = None) -> Capture:
    """Parse one capture. The collective comes from `collective`, the output, or the file name.

    Every result carries its `problems` (parse/strict.py): what makes it unfit to judge."""
    if collective is not None and collective not in COLLECTIVES:
        raise ArgumentError(
            "collective",
            f"{collective!r} is not an nccl-tests collective; "
            f"one of {', '.join(sorted(COLLECTIVES))}",
        )
    if text.lstrip().startswith("{"):
        result = parse_tests_json(text, name)
        if collective:
            result = replace(result, collective=collective)
        results = [result]
        debug = DebugInfo()
    else:
        coll = collective or collective_from_name(name)
        results = parse_tests_text(text, coll)
        debug = parse_debug_lines(text.splitlines())
    checked = tuple(replace(r, problems=strict.check(r)) for r in results)
    return Capture(path=name, results=checked, debug=debug)


def parse_file(path: str | Path, collective: str | None = None) -> Capture:
    """Read and parse a file; UserError (one line) when it cannot be read or holds nothing NCCL."""
    text = read_text(path, what="nccl-tests output or an NCCL log")  # `-` is standard input
    capture = parse_text(text, str(path), collective)
    if not capture.results and not capture.debug.seen:
        raise UserError(
            f"{path}: no nccl-tests table and no NCCL_DEBUG lines found; "
            "pass nccl-tests output (text or -J JSON) or an NCCL_DEBUG=INFO log"
        )
    return capture


def capture_to_dict(capture: Capture) -> dict[str, Any]:
    """JSON-ready form of a capture, with the derived transport and host list added."""
    out = asdict(capture)
    out["debug"]["transport"] = transport(capture.debug)
    for result, data in zip(capture.results, out["results"], strict=True):
        data["hosts"] = list(result.hosts)
        data["n_ranks"] = result.n_ranks
    return out
