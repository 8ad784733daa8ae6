"""nccl-tests JSON output (``-J file.json``), format version 2.

Shape, as written by NVIDIA/nccl-tests src/util.cu (jsonOutputInit, writeDeviceReport,
writeBenchmarkLine*, writeResultFooter, writeErrors; JSON_FILE_VERSION 2):

    {"version": 2, "start_time": "...", "args": [argv...], "env": ["K=V", ...],
     "nccl_version": 22703,
     "config": {"nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "step_factor" | "step_bytes",
                "warmup_iters", "iterations", ..., "devices": [{"rank", "group", "pid", "hostname",
                "device", "device_hex", "device_info"}]},
     "results": [{"size", "count", "type", "redop", "root": "    -1",
                  "out_of_place": {"time" | "cpu_time", "alg_bw", "bus_bw", "nwrong": float | null}
                                  | null,
                  "in_place": {...}, "actual_iterations", "experiment_name"}],
     "out_of_bounds": {"count", "okay"}, "average_bus_bandwidth": {"bandwidth", "okay"},
     "errors": [...], "end_time": "..."}

No published sample file was found (fixtures/PROVENANCE.md); the test sample is built from
this source and says so. A run that died leaves the file without "end_time" / footer keys.
"""

from __future__ import annotations

from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs.formats import parse_json
from gpufabric.inputs.types import digits
from gpufabric.nccl.model import Measurement, RankInfo, Row, TestsResult
from gpufabric.nccl.parse.tests_text import collective_from_name, nccl_version_string


def _flag(value: object) -> bool | None:
    """util.cu jsonBool writes the *strings* "true" / "false" ("unchecked" for the avg check)."""
    if isinstance(value, bool):
        return value
    return {"true": True, "false": False}.get(str(value).lower())


def _measurement(obj: Any) -> Measurement | None:
    if not isinstance(obj, dict):
        return None
    nwrong = obj.get("nwrong")
    time = obj.get("time", obj.get("cpu_time"))
    return Measurement(
        time_us=float(time) if isinstance(time, int | float) else float("nan"),
        algbw=float(obj["alg_bw"]),
        busbw=float(obj["bus_bw"]),
        wrong=None if nwrong is None else int(float(nwrong)),
    )


def parse_tests_json(text: str, name: str = "") -> TestsResult:
    """One nccl-tests JSON document -> TestsResult. UserError when it is not one."""
    doc = parse_json(text, where=name or "input")
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise UserError(
            f"{name or 'input'}: JSON without a 'results' list; not nccl-tests -J output"
        )
    try:
        return _result(doc, name)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UserError(
            f"{name or 'input'}: malformed nccl-tests JSON ({type(exc).__name__}: {exc})"
        ) from None


def _result(doc: dict[str, Any], name: str) -> TestsResult:
    config = doc.get("config") or {}
    args = doc.get("args") or []
    collective = collective_from_name(str(args[0])) if args else None
    collective = collective or collective_from_name(name)
    rows = []
    for item in doc["results"]:
        root = str(item.get("root", "")).strip()
        rows.append(
            Row(
                size=int(item["size"]),
                count=int(item["count"]),
                dtype=str(item["type"]),
                redop=str(item["redop"]),
                root=int(root) if digits(root.lstrip("-")) else None,
                out_of_place=_measurement(item.get("out_of_place")),
                in_place=_measurement(item.get("in_place")),
            )
        )
    ranks = tuple(
        RankInfo(
            rank=int(d["rank"]),
            group=int(d["group"]) if "group" in d else None,
            pid=int(d["pid"]),
            host=str(d["hostname"]),
            device=int(d["device"]),
            bus_id=str(d.get("device_hex", "")),
            device_name=str(d.get("device_info", "")),
        )
        for d in config.get("devices", [])
    )
    params = {
        key: str(config[key])
        for key in (
            "nthreads",
            "ngpus",
            "minimum_bytes",
            "maximum_bytes",
            "step_factor",
            "step_bytes",
            "warmup_iters",
            "iterations",
            "validation",
            "graph",
        )
        if key in config
    }
    # the text parser's names, so callers need not care where the result came from
    for json_key, text_key in (
        ("minimum_bytes", "minBytes"),
        ("maximum_bytes", "maxBytes"),
        ("nthreads", "nThread"),
        ("ngpus", "nGpus"),
    ):
        if json_key in params:
            params[text_key] = params.pop(json_key)
    oob = doc.get("out_of_bounds") or {}
    avg = doc.get("average_bus_bandwidth") or {}
    okay = _flag(avg.get("okay"))
    oob_okay = _flag(oob.get("okay"))
    return TestsResult(
        collective=collective,
        rows=tuple(rows),
        ranks=ranks,
        params=params,
        nccl_version=nccl_version_string(doc.get("nccl_version")),
        avg_busbw=float(avg["bandwidth"]) if "bandwidth" in avg else None,
        avg_busbw_status=None if okay is None else ("OK" if okay else "FAILED"),
        out_of_bounds=int(oob["count"]) if "count" in oob else None,
        out_of_bounds_ok=oob_okay,
        complete="average_bus_bandwidth" in doc,
        errors=tuple(str(e) for e in doc.get("errors", []) if e),
        source="json",
    )
