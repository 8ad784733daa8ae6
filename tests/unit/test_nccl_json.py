"""nccl-tests -J JSON output.

No published sample exists (fixtures/PROVENANCE.md, "Not collected"), so SAMPLE below is
built by hand from the writer in NVIDIA/nccl-tests src/util.cu (JSON_FILE_VERSION 2):
jsonBool writes the strings "true"/"false", root is the "%6i"-formatted string, doubles use
"%lf", nwrong is null when the data check is off, devices sit inside "config".
"""

from __future__ import annotations

import json

import pytest

from gpufabric.errors import UserError
from gpufabric.nccl.parse.capture import parse_text

SAMPLE = {
    "version": 2,
    "start_time": "2026-11-29 10:00:00",
    "args": ["/opt/nccl-tests/build/all_reduce_perf", "-b", "8", "-e", "16G", "-f", "2"],
    "env": ["NCCL_DEBUG=INFO"],
    "nccl_version": 22707,
    "config": {
        "nthreads": 1,
        "ngpus": 1,
        "minimum_bytes": 8,
        "maximum_bytes": 17179869184,
        "step_factor": 2,
        "warmup_iters": 5,
        "iterations": 20,
        "aggregated_iterations": 1,
        "validation": 1,
        "graph": 0,
        "blocking_collectives": "false",
        "per_iter_timing": "false",
        "parallel_init": "false",
        "devices": [
            {
                "rank": 0,
                "group": 0,
                "pid": 101,
                "hostname": "gpu-a",
                "device": 0,
                "device_hex": "0000:53:00",
                "device_info": "NVIDIA H100 80GB HBM3",
            },
            {
                "rank": 1,
                "group": 0,
                "pid": 202,
                "hostname": "gpu-b",
                "device": 0,
                "device_hex": "0000:53:00",
                "device_info": "NVIDIA H100 80GB HBM3",
            },
        ],
    },
    "results": [
        {
            "size": 8,
            "count": 2,
            "type": "float",
            "redop": "sum",
            "root": "    -1",
            "out_of_place": {"time": 69.120000, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
            "in_place": {"time": 72.430000, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
            "actual_iterations": 20,
            "experiment_name": "",
        },
        {
            "size": 17179869184,
            "count": 4294967296,
            "type": "float",
            "redop": "sum",
            "root": "    -1",
            "out_of_place": {"time": 66132.0, "alg_bw": 259.78, "bus_bw": 487.09, "nwrong": None},
            "in_place": {"time": 66109.0, "alg_bw": 259.87, "bus_bw": 487.26, "nwrong": None},
            "actual_iterations": 20,
            "experiment_name": "",
        },
    ],
    "out_of_bounds": {"count": 0, "okay": "true"},
    "average_bus_bandwidth": {"bandwidth": 243.6, "okay": "unchecked"},
    "errors": [],
    "end_time": "2026-11-29 10:05:00",
}


def test_json_sample_maps_to_the_same_shape_as_text() -> None:
    capture = parse_text(json.dumps(SAMPLE), "out.json")
    (result,) = capture.results
    assert result.source == "json"
    assert result.collective == "all_reduce"  # from args[0]
    assert result.nccl_version == "2.27.7"
    assert result.params["maxBytes"] == "17179869184" and result.params["nThread"] == "1"
    assert result.hosts == ("gpu-a", "gpu-b")
    assert result.ranks[1].bus_id == "0000:53:00"
    last = result.rows[-1]
    assert last.root == -1
    assert last.out_of_place is not None and last.out_of_place.busbw == 487.09
    assert last.out_of_place.wrong is None
    assert result.rows[0].in_place is not None and result.rows[0].in_place.wrong == 0
    assert result.out_of_bounds == 0 and result.out_of_bounds_ok is True
    assert result.avg_busbw == 243.6 and result.avg_busbw_status is None
    assert result.complete


def test_json_failed_min_bw_check_and_cut_short() -> None:
    doc = dict(SAMPLE, average_bus_bandwidth={"bandwidth": 10.0, "okay": "false"})
    assert parse_text(json.dumps(doc), "x.json").results[0].avg_busbw_status == "FAILED"
    cut = {k: v for k, v in SAMPLE.items() if k not in ("average_bus_bandwidth", "end_time")}
    assert parse_text(json.dumps(cut), "x.json").results[0].complete is False


def test_json_not_nccl_tests_is_user_error() -> None:
    with pytest.raises(UserError, match="not nccl-tests -J output"):
        parse_text('{"a": 1}', "x.json")
    with pytest.raises(UserError, match="not valid JSON"):
        parse_text("{oops", "x.json")


def test_json_with_nan_or_a_key_twice_is_refused_naming_it() -> None:
    """A measurement written as NaN (Python's json.dumps writes that token) or an object with
    a key twice is not nccl-tests output: refused at the input, never judged."""
    row = SAMPLE["results"][0]
    nan = dict(SAMPLE, results=[dict(row, in_place=dict(row["in_place"], bus_bw=float("nan")))])
    with pytest.raises(UserError, match=r"^x\.json: line 1: 'bus_bw': NaN is not a number"):
        parse_text(json.dumps(nan), "x.json")
    twice = json.dumps(SAMPLE).replace('"version": 2', '"version": 2, "version": 3', 1)
    with pytest.raises(UserError, match=r"^x\.json: key 'version' given twice"):
        parse_text(twice, "x.json")
