"""The NCCL readers at their edges: launcher prefixes, log-line anatomy, the capture entry point,
transport names, the text table and the -J JSON document. Small inputs laid out as the tools
print them (nccl-tests src/util.cu, NCCL's INFO/WARN lines); the real captures are read by
test_nccl_parse.py."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gpufabric.errors import ArgumentError, UserError
from gpufabric.nccl import model
from gpufabric.nccl.model import Measurement, RankInfo, Row
from gpufabric.nccl.parse.capture import capture_to_dict, parse_file, parse_text
from gpufabric.nccl.parse.lines import NcclLine, nccl_line, strip_prefixes
from gpufabric.nccl.parse.tests_json import parse_tests_json
from gpufabric.nccl.parse.tests_text import collective_from_name, nccl_version_string
from gpufabric.nccl.parse.transport import transport

# one nccl-tests -J document (JSON_FILE_VERSION 2, src/util.cu), cut to what the reader needs
JSON_DOC = {
    "version": 2,
    "args": ["/opt/nccl-tests/build/all_reduce_perf", "-b", "8"],
    "nccl_version": 22707,
    "config": {
        "devices": [
            {"rank": 0, "group": 0, "pid": 1, "hostname": "gpu-a", "device": 0},
            {"rank": 1, "group": 0, "pid": 2, "hostname": "gpu-b", "device": 0},
        ]
    },
    "results": [
        {
            "size": 8,
            "count": 2,
            "type": "float",
            "redop": "sum",
            "root": "    -1",
            "out_of_place": {"time": 69.1, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
            "in_place": {"time": 72.4, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0.0},
        }
    ],
    "average_bus_bandwidth": {"bandwidth": 0.0, "okay": "unchecked"},
}
ROW = "           8             2     float     sum      -1    69.12    0.00    0.00       0    72.43    0.00    0.00       0"


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        ("[1,0]<stdout>:# Avg bus bandwidth    : 15.2 OK  \r", "# Avg bus bandwidth    : 15.2 OK"),
        ("0: # Out of bounds values : 0 OK\t", "# Out of bounds values : 0 OK"),
        (
            "(head, rank=0, pid=3808) 1: [1,1]<stderr>:h:1:1 [0] NCCL INFO x ",
            "h:1:1 [0] NCCL INFO x",
        ),
        (
            "        8             2     float     sum      -1 \r",
            "        8             2     float     sum      -1",
        ),
    ],
)
def test_strip_prefixes_removes_launcher_tags_and_trailing_blanks_only(raw: str, line: str) -> None:
    """Tags come off the front and CR / blanks off the end; a table row keeps its indent."""
    assert strip_prefixes(raw) == line


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        (
            "ip-10-0-0-1:3808:3900 [7] NCCL INFO NET/OFI Selected Provider is efa ",
            NcclLine("ip-10-0-0-1", "INFO", "NET/OFI Selected Provider is efa"),
        ),
        (
            "node-b:12:34 [0] transport/net_ib.cc:1234 NCCL WARN NET/IB : Got completion",
            NcclLine("node-b", "WARN", "NET/IB : Got completion"),
        ),
        ("NCCL INFO Using network IB", NcclLine(None, "INFO", "Using network IB")),
        ("# nThread 1 nGpus 8 NCCL_DEBUG", None),
        ("NCCL version 2.22.3+cuda12.2", None),
    ],
)
def test_nccl_line_splits_host_level_and_message(line: str, parsed: NcclLine | None) -> None:
    assert nccl_line(line) == parsed


def test_an_unknown_collective_is_refused_naming_every_choice() -> None:
    with pytest.raises(ArgumentError) as exc:
        parse_text(ROW, collective="allreduce")
    assert str(exc.value) == (
        "collective: 'allreduce' is not an nccl-tests collective; one of all_gather, "
        "all_reduce, alltoall, alltoallv, broadcast, gather, hypercube, reduce, "
        "reduce_scatter, scatter, sendrecv"
    )


def test_text_without_a_name_is_called_text() -> None:
    assert parse_text(ROW).path == "<text>"
    with pytest.raises(UserError) as exc:
        parse_text('{"results": 1}')
    assert str(exc.value) == "<text>: JSON without a 'results' list; not nccl-tests -J output"


def test_json_after_blank_lines_is_json_and_takes_the_collective_asked_for() -> None:
    text = "\n  \n" + json.dumps(JSON_DOC) + "\n"
    (as_run,) = parse_text(text, "out.json").results
    assert as_run.source == "json" and as_run.collective == "all_reduce"
    capture = parse_text(text, "out.json", collective="all_gather")
    assert capture.results[0].collective == "all_gather"
    assert capture.results[0].rows == as_run.rows
    assert not capture.debug.seen


def test_capture_to_dict_of_json_and_text_names_hosts_ranks_and_transport() -> None:
    data = capture_to_dict(parse_text(json.dumps(JSON_DOC), "out.json"))
    assert data["debug"]["transport"] is None
    assert data["results"][0]["hosts"] == ["gpu-a", "gpu-b"]
    assert data["results"][0]["n_ranks"] == 2
    json.dumps(data)
    text = "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.0.0.1<0>\n" + ROW
    data = capture_to_dict(parse_text(text, "all_reduce_perf.txt"))
    assert data["debug"]["transport"] == "ib"
    assert data["results"][0]["hosts"] == []


def test_parse_file_reads_a_file_with_the_collective_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text(ROW + "\n")
    assert parse_file(path).results[0].collective is None
    assert parse_file(path, "sendrecv").results[0].collective == "sendrecv"


def test_parse_file_errors_are_one_line_naming_the_file_and_what_it_should_be(
    tmp_path: Path,
) -> None:
    with pytest.raises(UserError) as exc:
        parse_file(tmp_path)
    assert (
        str(exc.value) == f"{tmp_path}: is a directory, expected nccl-tests output or an NCCL log"
    )
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(UserError) as exc:
        parse_file(other)
    assert str(exc.value) == (
        f"{other}: no nccl-tests table and no NCCL_DEBUG lines found; "
        "pass nccl-tests output (text or -J JSON) or an NCCL_DEBUG=INFO log"
    )


# NCCL's INFO lines (init.cc 'Using network %s', net_ib.cc / net_socket.cc device lists,
# 'via NET/<name>' channel paths) and aws-ofi-nccl's 'Selected provider is %s, fabric is %s'
NET_LINES = {
    "network_ib": "NCCL INFO Using network IB",
    "network_ofi": "NCCL INFO Using network AWS Libfabric",
    "network_socket": "NCCL INFO Using network Socket",
    "ofi_efa": "NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 32 nics)",
    "ofi_tcp": "NCCL INFO NET/OFI Selected Provider is tcp (found 1 nics)",
    "ofi_rxm": "NCCL INFO NET/OFI Selected provider is tcp;ofi_rxm, fabric is 10.0.0.0/24 (found 1 nics)",
    "ofi_sockets": "NCCL INFO NET/OFI Selected Provider is sockets (found 1 nics)",
    "ofi_verbs": "NCCL INFO NET/OFI Selected Provider is verbs;ofi_rxm (found 2 nics)",
    "via_socket": "NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0",
    "via_ib": "NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/1/GDRDMA",
    "via_p2p": "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read",
    "devices_socket": "NCCL INFO NET/Socket : Using [0]eth0:10.0.0.23<0>",
}


@pytest.mark.parametrize(
    ("lines", "kind"),
    [
        (["network_ib"], "ib"),  # the network line alone
        (["network_socket", "via_ib"], "socket"),  # the network line first
        (["via_socket"], "socket"),  # a NET channel path alone
        (["via_p2p"], None),  # a path inside the node says nothing about the fabric
        (["via_p2p", "devices_socket"], "socket"),  # the device list alone
        (["network_ofi"], "efa"),  # the plugin's name proves EFA when no provider is named
        (["network_ofi", "ofi_efa"], "efa"),
        (["network_ofi", "ofi_tcp"], "ofi-tcp"),  # the plugin over kernel TCP is no fabric
        (["network_ofi", "ofi_rxm"], "ofi-tcp"),
        (["ofi_rxm"], "ofi-tcp"),  # the provider line alone says the same
        (["ofi_sockets"], "ofi-tcp"),
        (["ofi_efa"], "efa"),
        (["network_ofi", "ofi_verbs"], "ofi-verbs;ofi_rxm"),  # named as the plugin says it
        ([], None),
    ],
)
def test_transport_from_each_line_that_names_it(lines: list[str], kind: str | None) -> None:
    text = "\n".join(f"h:1:1 [0] {NET_LINES[name]}" for name in lines) + "\n"
    assert transport(parse_text(text).debug) == kind


# a whole -J document with every key the reader keeps (src/util.cu writes "cpu_time" for
# -C 1 runs, "step_bytes" for -i runs, the strings "true"/"false" for flags)
FULL_DOC = {
    "version": 2,
    "args": ["./build/reduce_scatter_perf", "-b", "8", "-e", "16"],
    "nccl_version": 22807,
    "config": {
        "nthreads": 1,
        "ngpus": 2,
        "minimum_bytes": 8,
        "maximum_bytes": 16,
        "step_factor": 2,
        "warmup_iters": 5,
        "iterations": 20,
        "aggregated_iterations": 1,
        "validation": 1,
        "graph": 0,
        "devices": [
            {
                "rank": 0,
                "group": 3,
                "pid": 101,
                "hostname": "gpu-a",
                "device": 0,
                "device_hex": "0000:53:00",
                "device_info": "NVIDIA H100 80GB HBM3",
            },
            {"rank": 1, "pid": 202, "hostname": "gpu-b", "device": 1},
        ],
    },
    "results": [
        {
            "size": 8,
            "count": 2,
            "type": "float",
            "redop": "sum",
            "root": "     2",
            "out_of_place": {"time": 69.5, "alg_bw": 0.25, "bus_bw": 0.5, "nwrong": 0.0},
            "in_place": {"time": 72, "alg_bw": 0.125, "bus_bw": 0.25, "nwrong": None},
        },
        {
            "size": 16,
            "count": 8,
            "type": "half",
            "redop": "prod",
            "out_of_place": {"cpu_time": 80.0, "alg_bw": 0.5, "bus_bw": 1.0, "nwrong": 1.0},
            "in_place": None,
        },
    ],
    "out_of_bounds": {"count": 0, "okay": "true"},
    "average_bus_bandwidth": {"bandwidth": 0.75, "okay": "true"},
    "errors": ["", "NCCL failure common.cu:1 'unhandled system error'"],
}


def test_a_whole_json_document_maps_to_every_field() -> None:
    assert parse_tests_json(json.dumps(FULL_DOC)) == model.TestsResult(
        collective="reduce_scatter",
        rows=(
            Row(
                8,
                2,
                "float",
                "sum",
                2,
                Measurement(69.5, 0.25, 0.5, 0),
                Measurement(72.0, 0.125, 0.25, None),
            ),
            Row(16, 8, "half", "prod", None, Measurement(80.0, 0.5, 1.0, 1), None),
        ),
        ranks=(
            RankInfo(0, 3, 101, "gpu-a", 0, "0000:53:00", "NVIDIA H100 80GB HBM3"),
            RankInfo(1, None, 202, "gpu-b", 1, "", ""),
        ),
        params={
            "nThread": "1",
            "nGpus": "2",
            "minBytes": "8",
            "maxBytes": "16",
            "step_factor": "2",
            "warmup_iters": "5",
            "iterations": "20",
            "validation": "1",
            "graph": "0",
        },
        nccl_version="2.28.7",
        avg_busbw=0.75,
        avg_busbw_status="OK",
        out_of_bounds=0,
        out_of_bounds_ok=True,
        complete=True,
        errors=("NCCL failure common.cu:1 'unhandled system error'",),
        source="json",
    )


def test_json_step_bytes_and_a_row_without_a_time() -> None:
    config = {k: v for k, v in FULL_DOC["config"].items() if k != "step_factor"}
    row = dict(FULL_DOC["results"][0], out_of_place={"alg_bw": 1.0, "bus_bw": 2.0})
    doc = dict(FULL_DOC, config=dict(config, step_bytes=1024), results=[row])
    result = parse_tests_json(json.dumps(doc))
    assert result.params["step_bytes"] == "1024" and "step_factor" not in result.params
    measured = result.rows[0].out_of_place
    assert measured is not None and math.isnan(measured.time_us) and measured.busbw == 2.0


def test_json_errors_without_a_name_say_input() -> None:
    with pytest.raises(UserError) as exc:
        parse_tests_json("{oops")
    assert str(exc.value).startswith("input: line 1 column 2: not valid JSON")
    with pytest.raises(UserError) as exc:
        parse_tests_json("[1]")
    assert str(exc.value) == "input: JSON without a 'results' list; not nccl-tests -J output"
    with pytest.raises(UserError) as exc:
        parse_tests_json('{"results": [{"count": 1}]}')
    assert str(exc.value) == "input: malformed nccl-tests JSON (KeyError: 'size')"
    with pytest.raises(UserError) as exc:
        parse_tests_json('{"results": [{"count": 1}]}', "r.json")
    assert str(exc.value) == "r.json: malformed nccl-tests JSON (KeyError: 'size')"


# NCCL_DEBUG=INFO lines as NCCL 2.18-2.23 print them (init.cc, net_ib.cc, net_socket.cc,
# bootstrap.cc, tuner plugin loader, param.cc 'set by environment') under one host prefix
IB_LOG = """\
NCCL version 2.22.3+cuda12.2
NCCL INFO NCCL version 2.23.4+cuda12.6
NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>
NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.
NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [2]eth9:10.0.0.9<0> [RO]; OOB eth0:10.0.0.1<0>
NCCL INFO Using network IB
NCCL INFO comm 0x5 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0
NCCL INFO Channel 00/04 :    0   7   6   5   4   3   2   1
NCCL INFO Channel 03/04 :    0   1   2   3   4   5   6   7
NCCL INFO Channel 01/02 :    0   1
NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1
NCCL INFO 4 coll channels, 4 p2p channels, 1 p2p channels per peer
NCCL INFO 2 coll channels, 2 p2p channels, 1 p2p channels per peer
NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/10/GDRDMA
NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/IB/9
NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC/read
NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so libnccl-net.so. Using internal tuner plugin.
NCCL INFO NCCL_BUFFSIZE set by environment to 4194304.
NCCL INFO NCCL_IB_HCA set by environment to =mlx5_0,mlx5_1
transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 12
NCCL ABORT init.cc:2 aborting
"""


def _log(text: str) -> str:
    """Each line as one rank prints it: 'host:pid:tid [dev] ' before NCCL's own words."""
    return "".join(
        line + "\n" if line.startswith("NCCL version") else f"h1:10:11 [0] {line}\n"
        for line in text.splitlines()
    )


def test_an_ib_log_maps_to_every_field() -> None:
    debug = parse_text(_log(IB_LOG)).debug
    assert debug == model.DebugInfo(
        nccl_version="2.23.4+cuda12.6",  # NCCL's own line over nccl-tests' bare one
        net_plugin="internal",
        network="IB",
        net_devices_kind="IB",
        net_devices=(
            model.NetDevice(0, "mlx5_0", 1, "IB"),
            model.NetDevice(1, "mlx5_1", 1, "RoCE"),
            model.NetDevice(2, "eth9", address="10.0.0.9<0>"),
        ),
        channel_paths=("NET/IB", "P2P/IPC"),
        net_nics_used=("9", "10"),
        gdr=True,
        coll_channels=4,
        ring_channels=4,
        n_ranks=16,
        n_nodes=2,
        tuner="internal",
        env={"NCCL_BUFFSIZE": "4194304", "NCCL_IB_HCA": "=mlx5_0,mlx5_1"},
        bootstrap="eth0:10.0.0.1<0>",
        warnings=(
            "NET/IB : Got completion from peer 10.0.0.2<1> with error 12",
            "init.cc:2 aborting",
        ),
        info_lines=20,
    )
    assert transport(debug) == "ib"


# aws-ofi-nccl on EFA (nccl_ofi_net.c), an older 'comm ... nranks' line, a loaded tuner
OFI_LOG = """\
NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v8)
NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.13.2
NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 32 nics)
NCCL INFO NET/OFI Selected Provider is efa
NCCL INFO NET/Plugin: Using internal network plugin.
NCCL INFO Using network Libfabric
NCCL INFO comm 0x7f rank 2 nranks 16 cudaDev 2 busId 4000 - Init COMPLETE
NCCL INFO ncclCommInitRank comm 0x7e rank 3 nranks 8 cudaDev 3 busId 5000 - Init COMPLETE
NCCL INFO NCCL_TUNER_PLUGIN set by environment to libnccl-ofi-tuner.so
NCCL INFO TUNER/Plugin: Loaded tuner plugin nccl_ofi_tuner
NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Libfabric/3
NCCL INFO NET/Socket : No device found.
"""


def test_an_ofi_log_maps_to_every_field() -> None:
    debug = parse_text(_log(OFI_LOG)).debug
    assert debug == model.DebugInfo(
        net_plugin="aws-ofi-nccl",
        network="Libfabric",
        ofi_provider="efa",
        ofi_nics_found=32,  # an older line without the count keeps it
        channel_paths=("NET/Libfabric",),
        net_nics_used=("3",),
        gdr=False,  # a NET path without GDRDMA
        n_ranks=16,  # the first comm line's count
        tuner="nccl_ofi_tuner",
        env={"NCCL_TUNER_PLUGIN": "libnccl-ofi-tuner.so"},
        warnings=("NET/Socket : No device found.",),
        info_lines=12,
    )
    assert transport(debug) == "efa"


@pytest.mark.parametrize(
    ("lines", "plugin", "tuner"),
    [
        (["NET/Plugin: Loaded net plugin gIB (v8)"], "gIB", None),
        (["NET/Plugin: Loaded plugin FasTrak"], "FasTrak", None),
        (
            ["NET/Plugin: Loaded net plugin Libfabric", "NET/OFI Initializing aws-ofi-nccl 1.13.2"],
            "aws-ofi-nccl",
            None,
        ),
        (["NCCL_TUNER_PLUGIN set by environment to mytuner.so"], None, "mytuner.so"),
        (
            ["TUNER/Plugin: Using tuner plugin a", "NCCL_TUNER_PLUGIN set by environment to b"],
            None,
            "a",
        ),
        (
            ["TUNER/Plugin: Using internal tuner plugin.", "TUNER/Plugin: Could not find b"],
            None,
            "internal",
        ),
    ],
)
def test_which_net_and_tuner_plugin(
    lines: list[str], plugin: str | None, tuner: str | None
) -> None:
    debug = parse_text(_log("\n".join(f"NCCL INFO {line}" for line in lines))).debug
    assert (debug.net_plugin, debug.tuner) == (plugin, tuner)


@pytest.mark.parametrize(
    ("name", "collective"),
    [
        ("all_reduce_perf_2x_p5.txt", "all_reduce"),
        ("/opt/nccl-tests/build/reduce_scatter_perf", "reduce_scatter"),
        ("reduce.txt", "reduce"),
        ("alltoallv_perf_mpi", "alltoallv"),
        ("runs/sendrecv", "sendrecv"),
        ("sendrecv.run1.txt", "sendrecv"),
        ("all_reduce_perf/out.txt", None),  # a folder's name says nothing
        ("all_reduce_2x.txt", None),  # only the binary's name or the bare collective
        ("notes.txt", None),
    ],
)
def test_collective_from_a_file_or_binary_name(name: str, collective: str | None) -> None:
    assert collective_from_name(name) == collective


@pytest.mark.parametrize(
    ("code", "version"),
    [
        (10000, "1.0.0"),
        (9999, "9.9.99"),
        (1, "0.0.1"),
        (-22807, None),
        (True, None),
        ("22807", None),
    ],
)
def test_nccl_version_codes_at_the_scheme_edge(code: object, version: str | None) -> None:
    assert nccl_version_string(code) == version


def _table(*lines: str) -> str:
    return "\n".join(lines) + "\n"


HEADER = (
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong"
)


def test_footer_lines_decide_the_status_fields() -> None:
    text = _table(
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 "
        "agg iters: 1 validation: 1 graph: 0",
        HEADER,
        ROW,
        "# error: NCCL failure common.cu:1 'unhandled system error' ",
        "# Out of bounds values : 3 OK",
        "# Avg bus bandwidth    : 12.5 FAILED",
    )
    (result,) = parse_text(text).results
    assert result.params == {
        "nThread": "1",
        "nGpus": "8",
        "minBytes": "8",
        "maxBytes": "8",
        "step": "2(factor)",
        "warmup_iters": "5",
        "iters": "20",
        "agg_iters": "1",
        "validation": "1",
        "graph": "0",
    }
    assert result.errors == ("NCCL failure common.cu:1 'unhandled system error'",)
    assert (result.out_of_bounds, result.out_of_bounds_ok) == (3, False)  # OK printed, 3 counted
    assert (result.avg_busbw, result.avg_busbw_status, result.complete) == (12.5, "FAILED", True)
    assert not result.legacy_format and not result.elided


@pytest.mark.parametrize(
    ("footer", "oob", "avg"),
    [
        (["# Out of bounds values : 0 OK", "# Avg bus bandwidth : 1.5"], (0, True), (1.5, None)),
        (["# Out of bounds values : 0", "# Avg bus bandwidth : N/A OK"], (0, True), (None, "OK")),
        (["# Out of bounds values : 0 FAILED"], (0, False), (None, None)),
    ],
)
def test_footer_variants(footer: list[str], oob: tuple, avg: tuple) -> None:
    (result,) = parse_text(_table(HEADER, ROW, *footer)).results
    assert (result.out_of_bounds, result.out_of_bounds_ok) == oob
    assert (result.avg_busbw, result.avg_busbw_status) == avg
    assert result.complete is (len(footer) == 2)


def test_rows_that_do_not_fit_the_header_are_kept_aside_not_read() -> None:
    short = ROW.rsplit(maxsplit=1)[0]  # one column missing
    garbled = ROW.replace("69.12", "69.1x")
    chatter = "step 100 of 200 done in 3.2 s by rank 0"  # not a row: it starts with a word
    (result,) = parse_text(_table(HEADER, short, garbled, chatter, ROW)).results
    assert result.unparsed_rows == (short.strip(), garbled.strip())
    assert [r.size for r in result.rows] == [8]


def test_cputime_header_old_rank_lines_and_the_collective_of_the_run() -> None:
    text = _table(
        "# Collective test starting: all_gather_perf",
        "#  Rank  0 Pid  4321 on    node-a device  0 [0x1b] Tesla V100-SXM2-32GB",
        "#  Rank  1 Group  2 Pid  4322 on    node-b device  1 [0x1c] Tesla V100-SXM2-32GB",
        HEADER.replace("time", "cputime") + "  timestamp",
        ROW + " 2026-11-29 10:00:01",
        ROW + " 2026-11-29 10:00:01 x",  # one token past the timestamp: does not fit
    )
    (result,) = parse_text(text).results
    assert result.collective == "all_gather"
    assert result.ranks == (
        RankInfo(0, None, 4321, "node-a", 0, "0x1b", "Tesla V100-SXM2-32GB"),
        RankInfo(1, 2, 4322, "node-b", 1, "0x1c", "Tesla V100-SXM2-32GB"),
    )
    assert len(result.rows) == 1 and len(result.unparsed_rows) == 1
    assert result.rows[0].out_of_place == Measurement(69.12, 0.0, 0.0, 0)
    assert result.rows[0].in_place == Measurement(72.43, 0.0, 0.0, 0)
    (asked,) = parse_text(text, collective="broadcast").results
    assert asked.collective == "broadcast"


@pytest.mark.parametrize("cut", ["...", "\u2026", "  ...  "])
def test_an_elided_table_says_so(cut: str) -> None:
    (result,) = parse_text(_table(HEADER, ROW, cut, ROW.replace("    8  ", "   16  ", 1))).results
    assert result.elided and [r.size for r in result.rows] == [8, 16]


def test_a_table_after_a_footer_or_a_new_params_line_is_a_new_run() -> None:
    footer = "# Avg bus bandwidth    : 0 "
    params = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8"
    after_footer = parse_text(_table(HEADER, ROW, footer, ROW)).results
    assert [(len(r.rows), r.complete) for r in after_footer] == [(1, True), (1, False)]
    after_params = parse_text(_table(params, HEADER, ROW, params, ROW)).results
    assert [len(r.rows) for r in after_params] == [1, 1]
    assert after_params[1].params["nGpus"] == "1" and not after_params[1].legacy_format
    two_headers = parse_text(_table(HEADER, ROW, HEADER, ROW), collective="all_gather").results
    assert [(len(r.rows), r.collective) for r in two_headers] == [(1, "all_gather")] * 2


def test_a_tests_version_line_without_the_library_code() -> None:
    (result,) = parse_text(_table("# nccl-tests version 2.13.9", HEADER, ROW)).results
    assert (result.tests_version, result.nccl_version) == ("2.13.9", None)


def test_rows_without_a_header_line_are_read_by_their_width() -> None:
    legacy = "           8             2     float     sum    38.63    0.00    0.00  2e-07    38.70    0.00    0.00  3e-07"
    (result,) = parse_text(_table(legacy)).results
    assert result.legacy_format
    assert result.rows[0].root is None
    assert result.rows[0].in_place == Measurement(38.70, 0.0, 0.0, None, 3e-07)
    (unchecked,) = parse_text(_table(legacy.replace("3e-07", "N/A"))).results
    assert unchecked.rows[0].in_place == Measurement(38.70, 0.0, 0.0, None, None)
    (current,) = parse_text(_table(ROW)).results
    assert not current.legacy_format and current.rows[0].root == -1


def test_old_init_lines_ipv6_socket_devices_and_a_cut_channel_line() -> None:
    text = _log(
        "NCCL INFO ncclCommInitRank comm 0x7e rank 3 nranks 8 cudaDev 3 busId 5000\n"
        "NCCL INFO NET/Socket : Using [0]eth0:fe80::a00:27ff:fe8e:1234%eth0<0>\n"
        "NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket"
    )
    debug = parse_text(text).debug
    assert debug.n_ranks == 8
    assert debug.net_devices == (
        model.NetDevice(0, "eth0", address="fe80::a00:27ff:fe8e:1234%eth0<0>"),
    )
    assert debug.channel_paths == ("NET/Socket",) and debug.net_nics_used == ()
    assert debug.gdr is False and transport(debug) == "socket"


@pytest.mark.parametrize("line", ["# nThread 1 nGpus 8 minBytes 8 maxBytes 8", HEADER])
def test_a_run_that_printed_its_header_but_no_rows_is_still_a_result(line: str) -> None:
    """So the gate can say the table is empty, instead of that nothing was found."""
    (result,) = parse_text(_table(line)).results
    assert result.rows == () and result.source == "text" and result.problems
