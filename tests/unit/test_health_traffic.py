"""Step 2's measuring commands and what is read back from them: the exact iperf3 and mpirun
command lines, iperf3 intervals (stubs, a missing direction), a group's slowest hop per
interval, and nccl-tests runs that fail or do not come back."""

from __future__ import annotations

import json
import math

import pytest

from gpufabric.health import traffic


def iperf3_json(*intervals: tuple[float, float, float]) -> str:
    """iperf3 --bidir --json with (seconds, forward bit/s, reverse bit/s) per interval."""
    return json.dumps(
        {
            "intervals": [
                {
                    "sum": {"seconds": s, "bits_per_second": f},
                    "sum_bidir_reverse": {"seconds": s, "bits_per_second": r},
                }
                for s, f, r in intervals
            ]
        }
    )


def test_iperf3_command_lines_of_a_ring_and_a_pair() -> None:
    tests = [{"hosts": ["a", "b", "c"]}, {"hosts": ["d", "e"]}]
    cmds = traffic.iperf3_commands(
        tests, {"b": "10.0.0.2", "a": "10.0.0.1"}, port=5999, seconds=4, interval=0.25, rate_mbit=10
    )
    assert cmds["c"] == [
        [
            "iperf3",
            "--client",
            "10.0.0.1",
            "--port",
            "5999",
            "--bidir",
            "--time",
            "4",
            "--interval",
            "0.25",
            "--bitrate",
            "10M",
            "--json",
        ]
    ]
    assert cmds["a"][0][2] == "10.0.0.2" and cmds["b"][0][2] == "c" and cmds["d"][0][2] == "e"
    assert sorted(cmds) == ["a", "b", "c", "d"]
    defaults = traffic.iperf3_commands([{"hosts": ["a", "b"]}], {})["a"][0]
    assert defaults[3:] == [
        "--port",
        "5201",
        "--bidir",
        "--time",
        "2",
        "--interval",
        "0.5",
        "--bitrate",
        "200M",
        "--json",
    ]


def test_one_host_in_two_groups_runs_both_clients() -> None:
    cmds = traffic.iperf3_commands([{"hosts": ["a", "b"]}, {"hosts": ["a", "c"]}], {})
    assert [c[2] for c in cmds["a"]] == ["b", "c"]


def test_iperf3_intervals_skip_the_stub_and_keep_a_missing_direction_unusable() -> None:
    text = iperf3_json((0.5, 2e8, 1e8), (0.25, 2e8, 2e8), (0.24, 1.0, 1.0))
    fwd, rev, err = traffic.parse_iperf3(text, interval=0.5)
    assert (fwd, rev, err) == ([0.2, 0.2], [0.1, 0.2], "")
    doc = json.loads(iperf3_json((0.5, 3e8, 1e8)))
    del doc["intervals"][0]["sum_bidir_reverse"]
    fwd, rev, err = traffic.parse_iperf3(json.dumps(doc), interval=0.5)
    assert fwd == [0.3] and math.isnan(rev[0]) and err == ""


def test_an_interval_without_seconds_is_a_stub_and_a_stub_does_not_end_the_run() -> None:
    doc = json.loads(iperf3_json((0.1, 9e8, 9e8), (1.0, 2e8, 1e8), (1.0, 4e8, 3e8)))
    del doc["intervals"][2]["sum"]["seconds"]
    assert traffic.parse_iperf3(json.dumps(doc), interval=0.5) == ([0.2], [0.1], "")


@pytest.mark.parametrize(
    ("intervals", "error"),
    [
        ({"a": 1}, "iperf3 intervals is not a list"),
        ([1], "iperf3 interval 0: not an object with a sum"),
        ([{"sum": [1]}], "iperf3 interval 0: not an object with a sum"),
        ([{"streams": []}], "iperf3 interval 0: not an object with a sum"),
        (
            [{"sum": {"seconds": 1}, "sum_bidir_reverse": "x"}],
            "iperf3 interval 0: not an object with a sum",
        ),
        (
            [{"sum": {"seconds": "1", "bits_per_second": 1e9}}],
            "iperf3 interval 0: seconds or bits_per_second is not a number",
        ),
        (
            [{"sum": {"seconds": 1, "bits_per_second": "nan"}}],
            "iperf3 interval 0: seconds or bits_per_second is not a number",
        ),
        (
            [{"sum": {"seconds": 1, "bits_per_second": True}}],
            "iperf3 interval 0: seconds or bits_per_second is not a number",
        ),
        (
            [
                {"sum": {"seconds": 1, "bits_per_second": 1e9}},
                {"sum": {"seconds": 1, "bits_per_second": 1e9},
                 "sum_bidir_reverse": {"bits_per_second": None}},
            ],
            "iperf3 interval 1: seconds or bits_per_second is not a number",
        ),
    ],
)  # fmt: skip
def test_a_node_s_malformed_iperf3_intervals_are_an_error_not_a_crash(
    intervals: object, error: str
) -> None:
    """iperf3's JSON comes from the node: a malformed interval is that hop's error."""
    assert traffic.parse_iperf3(json.dumps({"intervals": intervals})) == ([], [], error)


def test_a_full_interval_without_a_rate_is_no_sample_not_an_error() -> None:
    """iperf3 leaves out a rate it could not measure: that second is NaN (judged as no
    sample), and the hop's other seconds still count."""
    doc = {
        "intervals": [
            {"sum": {"seconds": 1.0}, "sum_bidir_reverse": {"seconds": 1.0}},
            {"sum": {"seconds": 1.0, "bits_per_second": 2e9},
             "sum_bidir_reverse": {"seconds": 1.0, "bits_per_second": 3e9}},
        ]
    }  # fmt: skip
    fwd, rev, error = traffic.parse_iperf3(json.dumps(doc))
    assert error == "" and fwd[1:] == [2.0] and rev[1:] == [3.0]
    assert math.isnan(fwd[0]) and math.isnan(rev[0])


def test_iperf3_without_intervals_or_with_an_error_is_no_result() -> None:
    assert traffic.parse_iperf3('{"intervals": []}') == ([], [], "iperf3 reported no interval")
    assert traffic.parse_iperf3("{}") == ([], [], "iperf3 reported no interval")
    assert traffic.parse_iperf3(iperf3_json((0.1, 1e9, 1e9))) == (
        [],
        [],
        "iperf3 reported no interval",
    )
    assert traffic.parse_iperf3('{"error": "boom"}') == ([], [], "iperf3: boom")
    assert traffic.parse_iperf3("  \n") == ([], [], "iperf3 printed no JSON")


def test_a_group_runs_at_its_slowest_hop_per_interval() -> None:
    tests = [{"hosts": ["a", "b", "c"]}]
    outputs = {
        "a": [iperf3_json((0.5, 2e8, 2e8), (0.5, 1e8, 2e8), (0.5, 2e8, 2e8))],
        "b": [iperf3_json((0.5, 1.5e8, 2e8), (0.5, 2e8, 0.5e8))],
        "c": [iperf3_json((0.5, 2e8, 1.8e8), (0.5, 2e8, 2e8)), "a second output is ignored"],
    }
    [res] = traffic.iperf3_results(tests, outputs)
    assert res == {"fwd": [0.15, 0.1], "rev": [0.18, 0.05], "error": ""}


def test_the_first_failing_hop_names_the_group_error() -> None:
    tests = [{"hosts": ["a", "b", "c"]}]
    refused = '{"error": "unable to connect to server"}'
    outputs = {"a": [iperf3_json((0.5, 2e8, 2e8))], "b": [refused], "c": [refused]}
    [res] = traffic.iperf3_results(tests, outputs)
    assert res == {"fwd": [], "rev": [], "error": "b -> c: iperf3: unable to connect to server"}


def test_ansible_registered_outputs() -> None:
    assert traffic.outputs_of({"stdout": "x"}) == ["x"]
    assert traffic.outputs_of({"skipped": True, "stdout": "x"}) == []
    assert traffic.outputs_of({"results": [{"stdout": 1}, "junk", {}]}) == ["1", ""]
    assert traffic.outputs_of(["x"]) == []


def test_nccl_command_lines() -> None:
    cmds = traffic.nccl_commands(
        [{"hosts": ["n1", "n2", "n3"]}],
        gpus_per_host=4,
        repeats=1,
        mpirun="/opt/mpi/bin/mpirun",
        binary="/opt/nccl-tests/all_reduce_perf",
        size="1G",
    )
    assert cmds == {
        "n1": [
            [
                "/opt/mpi/bin/mpirun",
                "-np",
                "12",
                "-H",
                f"{order}",
                "--map-by",
                "ppr:4:node",
                "/opt/nccl-tests/all_reduce_perf",
                "-b",
                "1G",
                "-e",
                "1G",
                "-g",
                "1",
                "-c",
                "0",
                "-n",
                "20",
                "-w",
                "5",
            ]
            for order in ("n1:4,n2:4,n3:4", "n3:4,n2:4,n1:4")
        ]
    }
    default = traffic.nccl_commands([{"hosts": ["a", "b"]}], gpus_per_host=8)["a"]
    assert len(default) == 6 and default[0][0] == "mpirun" and default[0][7] == "all_reduce_perf"
    assert default[0][8:12] == ["-b", "4G", "-e", "4G"]


NCCL_OUT = """#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
        1024           256     float     sum      -1    30.00    0.03    0.06      0    30.00    0.03    0.06      0
  4294967296    1073741824     float     sum      -1  40000.0  107.37  {busbw}      0  40000.0  107.37  {busbw}      0
# Avg bus bandwidth    : 100.0
"""


def test_nccl_runs_read_the_largest_sizes_bus_bandwidth_in_gbit() -> None:
    v, err = traffic.parse_nccl(NCCL_OUT.format(busbw="50.00"))
    assert (v, err) == (400.0, "")
    assert traffic.parse_nccl("") == (None, "nccl-tests printed no result row")


def test_nccl_results_tolerate_up_to_repeats_failed_runs() -> None:
    tests = [{"hosts": ["n1", "n2"]}]
    good = NCCL_OUT.format(busbw="50.00")
    three_bad = traffic.nccl_results(tests, {"n1": [good, "", good, "", "", good]}, repeats=3)
    assert three_bad[0]["error"] == ""
    assert three_bad[0]["fwd"][0] == 400.0 and math.isnan(three_bad[0]["fwd"][1])
    four_bad = traffic.nccl_results(tests, {"n1": [good, "", "", "", "", good]}, repeats=3)
    assert four_bad[0]["error"] == "nccl-tests printed no result row"
    extra = traffic.nccl_results(tests, {"n1": [good] * 4 + ["x"]}, repeats=2)
    assert extra[0] == {"fwd": [400.0, 400.0], "rev": [400.0, 400.0], "error": ""}
    none = traffic.nccl_results(tests, {}, repeats=2)
    assert none[0] == {"fwd": [], "rev": [], "error": "n1: 0 of 4 nccl-tests runs came back"}
    short = traffic.nccl_results(tests, {"n1": [good] * 5}, repeats=3)
    assert short[0] == {"fwd": [], "rev": [], "error": "n1: 5 of 6 nccl-tests runs came back"}


def test_a_group_whose_runs_did_not_come_back_does_not_stop_the_next() -> None:
    tests = [{"hosts": ["n1", "n2"]}, {"hosts": ["n3", "n4"]}]
    good = NCCL_OUT.format(busbw="50.00")
    res = traffic.nccl_results(tests, {"n3": [good] * 6})
    assert res[0]["error"] == "n1: 0 of 6 nccl-tests runs came back"
    assert res[1] == {"fwd": [400.0] * 3, "rev": [400.0] * 3, "error": ""}


def test_the_interval_asked_for_sets_what_a_stub_is() -> None:
    text = iperf3_json((1.0, 2e8, 2e8), (0.4, 1e8, 1e8))
    outputs = {"a": [text]}
    assert traffic.iperf3_results([{"hosts": ["a", "b"]}], outputs)[0]["fwd"] == [0.2, 0.1]
    assert traffic.iperf3_results([{"hosts": ["a", "b"]}], outputs, interval=1.0)[0]["fwd"] == [0.2]
