"""The gate cannot be fooled: broken tables fail naming the file, absurd flags are usage errors,
and every file a command reads gives one line instead of a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpufabric.catalog import lookup
from gpufabric.errors import UserError
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.parse.debuglog import parse_debug_lines
from gpufabric.nccl.parse.transport import transport

GPUFABRIC = Path(sys.executable).parent / "gpufabric"
HEADER = (
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
    "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
    "     (us)  (GB/s)  (GB/s)\n"
)
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.5 \n"


def row(size: int, time: str = "20.0", busbw: str = "300.0") -> str:
    return (
        f"{size:>12} {size // 4:>12}     float     sum      -1 {time:>8}  100.00 {busbw:>7}"
        f"      0 {time:>8}  100.00 {busbw:>7}      0\n"
    )


def table(*rows: str) -> str:
    return HEADER + "".join(rows) + FOOTER


GOOD_ROWS = [row(8 << k) for k in range(0, 28)]


def fails(text: str, name: str = "all_reduce_perf.txt", nodes: int = 1) -> list[str]:
    report = gate([parse_text(text, name)], lookup("p5.48xlarge"), nodes)
    assert not report.passed
    return [v.message for v in report.verdicts if v.status == "fail"]


def test_a_good_table_has_no_input_problem() -> None:
    capture = parse_text(table(*GOOD_ROWS), "all_reduce_perf.txt")
    assert capture.results[0].problems == ()


@pytest.mark.parametrize(
    ("case", "value", "words"),
    [("nan", "nan", "busbw nan"), ("inf", "inf", "busbw inf"), ("negative", "-5.0", "busbw -5.0")],
)
def test_non_measurements_fail_naming_the_size(case: str, value: str, words: str) -> None:
    rows = [*GOOD_ROWS[:-1], row(1 << 30, busbw=value)]
    messages = fails(table(*rows))
    assert any(words in m and "1 GiB" in m for m in messages), (case, messages)


def test_nan_time_fails() -> None:
    messages = fails(table(*GOOD_ROWS[:-1], row(1 << 30, time="nan")))
    assert any("time nan" in m for m in messages)


def test_header_and_footer_without_rows_fails() -> None:
    messages = fails(table())
    assert any("no result rows" in m for m in messages)


def test_unreadable_row_fails_instead_of_being_dropped() -> None:
    broken = "     1048576        262144     float     sum      -1   12.3  x  y  0  1  2  3  0\n"
    messages = fails(table(*GOOD_ROWS[:10], broken, *GOOD_ROWS[10:]))
    assert any("1 table rows could not be read" in m for m in messages), messages


def test_unknown_collective_fails() -> None:
    messages = fails(table(*GOOD_ROWS), name="results.txt")
    assert any("collective unknown" in m for m in messages)


def test_unknown_collective_flag_is_a_usage_error() -> None:
    with pytest.raises(UserError, match=r"^collective: 'allreduce'"):
        parse_text(table(*GOOD_ROWS), "x.txt", collective="allreduce")


@pytest.mark.parametrize(("nodes", "words"), [(0, "1 to 4096"), (5000, "1 to 4096")])
def test_absurd_node_counts_are_usage_errors(nodes: int, words: str) -> None:
    with pytest.raises(UserError, match=words):
        gate([parse_text(table(*GOOD_ROWS), "all_reduce_perf.txt")], lookup("p5.48xlarge"), nodes)


def _ranks(n: int, hosts: int) -> str:
    return "".join(
        f"#  Rank {r:2d} Group  0 Pid  1234 on host{r % hosts} device  {r % 8} [0x53] NVIDIA H100\n"
        for r in range(n)
    )


def test_more_nodes_than_ranks_is_a_usage_error() -> None:
    text = _ranks(16, 2) + table(*GOOD_ROWS)
    with pytest.raises(UserError, match="16 ranks fit on at most 16 nodes"):
        gate([parse_text(text, "all_reduce_perf.txt")], lookup("p5.48xlarge"), 32)


def test_more_ranks_than_the_nodes_hold_is_a_usage_error() -> None:
    text = _ranks(32, 4) + table(*GOOD_ROWS)
    with pytest.raises(UserError, match="32 ranks need at least 4 nodes of 8 GPUs"):
        gate([parse_text(text, "all_reduce_perf.txt")], lookup("p5.48xlarge"), 2)


CURRENT_OFI = (
    "h:1:1 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found {n} nics)\n"
)
OLD_OFI = "h:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found {n} nics)\n"


def test_current_aws_ofi_nccl_line_is_efa() -> None:
    info = parse_debug_lines([CURRENT_OFI.format(n=32)])
    assert info.ofi_provider == "efa" and info.ofi_nics_found == 32
    assert transport(info) == "efa"


def test_old_aws_ofi_nccl_line_still_parses() -> None:
    info = parse_debug_lines([OLD_OFI.format(n=4)])
    assert info.ofi_provider == "efa" and info.ofi_nics_found == 4


def _efa_log(found: int) -> str:
    lines = [CURRENT_OFI.format(n=found), "h:1:1 [0] NCCL INFO Using network AWS Libfabric\n"]
    lines += [
        f"h:1:1 [0] NCCL INFO Channel {c:02d}/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/{c}/GDRDMA\n"
        for c in range(8)
    ]
    return "".join(lines)


def test_31_of_32_efa_devices_fails() -> None:
    report = gate([parse_text(_efa_log(31), "log.txt")], lookup("p5.48xlarge"), 2)
    bad = [v.message for v in report.verdicts if v.status == "fail"]
    assert any("found 31 of the 32 EFA devices" in m for m in bad), bad


def test_all_32_efa_devices_and_the_current_line_pass_the_fabric_checks() -> None:
    report = gate([parse_text(_efa_log(32), "log.txt")], lookup("p5.48xlarge"), 2)
    assert report.transport == "efa"
    # a log without a results table fails only for that: nothing was measured
    assert [v.check for v in report.verdicts if v.status == "fail"] == ["input"]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GPUFABRIC), *args], capture_output=True, text=True, check=False, cwd=cwd, timeout=120
    )


def test_cli_gate_on_nan_exits_1_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "all_reduce_perf.txt"
    path.write_text(table(*GOOD_ROWS[:-1], row(1 << 30, busbw="nan")))
    proc = cli("nccl", "gate", str(path), "-t", "p5.48xlarge", "-n", "1")
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert any("all_reduce_perf.txt" in line and "busbw nan" in line for line in lines)


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\x01\x02binary",
        b'{"results": 5}',
        b'{"results": [1, 2]}',
        b'{"results": [], "config": []}',
        b'{"results": [{"size": "x"}]}',
        b"[1, 2, 3]",
    ],
)
def test_wrong_shape_files_are_one_line_for_gate_and_parse(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "all_reduce_perf.json"
    path.write_bytes(content)
    for command in (["gate", str(path), "-t", "p5.48xlarge"], ["parse", str(path)]):
        proc = cli("nccl", *command)
        assert proc.returncode in ((1, 2) if command[0] == "gate" else (0, 1, 2)), proc.stderr
        assert "Traceback" not in proc.stderr
        if proc.returncode == 2:
            assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary", b"\x00\x00"])
def test_tuner_check_on_binary_is_one_line(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "tuner.conf"
    path.write_bytes(content)
    proc = cli("nccl", "tuner-check", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {path}")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"[1, 2]", "not a tune.json"),
        (b'{"picks": [{"collective": 1}]}', "picks[0]"),
        (b"\xff\xfe", "not UTF-8"),
        (b"{", "not valid JSON"),
    ],
)
def test_report_with_a_wrong_tune_file_is_one_line(
    tmp_path: Path, content: bytes, words: str
) -> None:
    data = tmp_path / "all_reduce_perf.txt"
    data.write_text(table(*GOOD_ROWS))
    tune = tmp_path / "tune.json"
    tune.write_bytes(content)
    proc = cli(
        "nccl",
        "report",
        str(data),
        "-t",
        "p5.48xlarge",
        "--tune",
        str(tune),
        "-o",
        str(tmp_path / "r"),
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_report_into_a_file_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "all_reduce_perf.txt"
    data.write_text(table(*GOOD_ROWS))
    (tmp_path / "out").write_text("a file")
    proc = cli("nccl", "report", str(data), "-t", "p5.48xlarge", "-o", str(tmp_path / "out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "exists and is not a folder" in proc.stderr


def test_gate_json_is_strict_json_even_with_nan(tmp_path: Path) -> None:
    path = tmp_path / "all_reduce_perf.txt"
    path.write_text(table(*GOOD_ROWS[:-1], row(1 << 30, busbw="nan")))
    for command in (
        ["gate", str(path), "-t", "p5.48xlarge", "--json"],
        ["parse", str(path), "--json"],
    ):
        proc = cli("nccl", *command)
        assert "NaN" not in proc.stdout
        json.loads(proc.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


def latency(report) -> list:
    return [v for v in report.verdicts if v.check == "latency"]


def test_small_message_time_over_the_expected_figure_fails_naming_size_and_ratio() -> None:
    rows = [row(8 << k, time="20.0") for k in range(28)]
    rows[13] = row(8 << 13, time="300.0")  # 64 KiB: 300 us on p5 x 2 (expected 103.8 us there)
    report = gate([parse_text(table(*rows), "all_reduce_perf.txt")], lookup("p5.48xlarge"), 2)
    (judged, spread) = latency(report)
    assert judged.status == "fail" and not report.passed
    assert (
        "64 KiB took 300.0 us = 2.89 x the 103.8 us expected at that size on efa x 2 nodes"
        in judged.message
    )
    assert "(1 of 14 small sizes over)" in judged.message
    assert spread.status == "pass"


@pytest.mark.parametrize(("nodes", "limit"), [(1, 12.87), (2, 69.12), (16, 69.12 * 1.35**3)])
def test_expected_latency_grows_with_nodes(nodes: int, limit: float) -> None:
    """8 B against 8 B's own figure (the other sizes far under theirs)."""
    ranks = _ranks(nodes * 8, nodes)
    just_over = f"{limit * 2 + 0.5:.1f}"
    just_under = f"{limit * 2 - 0.5:.1f}"
    for time, status in ((just_over, "fail"), (just_under, "pass")):
        rows = [row(8 << k, time=time if k == 0 else "1.0") for k in range(28)]
        report = gate(
            [parse_text(ranks + table(*rows), "all_reduce_perf.txt")], lookup("p5.48xlarge"), nodes
        )
        assert latency(report)[0].status == status, (nodes, time, latency(report)[0].message)
        assert latency(report)[0].message.startswith("all_reduce: 8 B took")


def _p5_rows(slow: float) -> list[str]:
    """The published healthy p5 x 2 table's small sizes, 8 B-256 B taking `slow` x as long,
    as nccl-tests prints them; large sizes at a healthy busbw."""
    from tests.conftest import capture as fixture

    from gpufabric.nccl.parse.capture import parse_file

    result = parse_file(fixture("nccl-tests/all_reduce_perf_2x_p5_efa_srun_prefix.txt"), None)
    times = {
        r.size: min(m.time_us for m in (r.out_of_place, r.in_place) if m)
        for r in result.results[0].rows
    }
    out = []
    for k in range(28):
        size = 8 << k
        if size <= 65536:
            t = times[size] * (slow if size <= 256 else 1.0)
            out.append(row(size, time=f"{t:.1f}", busbw="0.5"))
        else:
            out.append(row(size, time="500.0", busbw="350.0"))
    return out


@pytest.mark.parametrize(("slow", "status"), [(1.0, "pass"), (5.0, "fail")])
def test_p5_x4_tiny_messages_five_times_slower_fail(slow: float, status: str) -> None:
    """The published p5 small-size times on 4 nodes pass; the same with 8 B-256 B taking 5 x as
    long fail (5 x 69 us at 8 B = 346 us stayed under the one envelope 2 x 135.1 x 1.35 set by
    the slowest healthy size)."""
    report = gate(
        [parse_text(table(*_p5_rows(slow)), "all_reduce_perf.txt")], lookup("p5.48xlarge"), 4
    )
    judged = next(v for v in latency(report) if "expected" in v.message)
    assert judged.status == status, judged.message
    if status == "fail":
        assert judged.message.startswith("all_reduce: 32 B took 323.8 us = 3.70 x the 87.4 us")
        assert "(6 of 14 small sizes over)" in judged.message


def test_inconsistent_small_sizes_across_runs_warn() -> None:
    fast = parse_text(table(*GOOD_ROWS), "all_reduce_perf_a.txt")
    slow_rows = [row(8 << k, time="20.0") for k in range(28)]
    slow_rows[0] = row(8, time="90.0")
    slow = parse_text(table(*slow_rows), "all_reduce_perf_b.txt")
    report = gate([fast, slow], lookup("p5.48xlarge"), 1)
    spread = [v for v in latency(report) if "spread" in v.message]
    assert spread[0].status == "warn" and "8 B took 20.0-90.0 us" in spread[0].message
    assert spread[0].subject == "runs"


def test_no_published_figure_means_not_judged() -> None:
    report = gate(
        [parse_text(table(*GOOD_ROWS), "all_gather_perf.txt")], lookup("a3-highgpu-8g"), 2
    )
    assert [v for v in latency(report) if "expected" in v.message] == []


def test_latency_figures_name_sources_and_known_fabrics() -> None:
    from gpufabric.catalog import catalog
    from gpufabric.nccl.gate.thresholds import thresholds

    lat = thresholds().latency
    assert set(lat.fabrics) <= set(thresholds().fabrics)
    assert set(lat.instances) <= set(catalog())
    assert all(f.sources for f in [*lat.fabrics.values(), *lat.instances.values()])


def test_negative_size_in_json_is_an_input_problem() -> None:
    doc = {
        "results": [
            {
                "size": -8,
                "count": 2,
                "type": "float",
                "redop": "sum",
                "root": "-1",
                "out_of_place": {"time": 10.0, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0},
                "in_place": {"time": 10.0, "alg_bw": 0.0, "bus_bw": 0.0, "nwrong": 0},
            }
        ],
        "average_bus_bandwidth": {"bandwidth": 0.0, "okay": "true"},
    }
    capture = parse_text(json.dumps(doc), "all_reduce_perf.json")
    assert capture.results[0].problems == ("negative size -8 / count 2",)
    doc["results"][0]["size"], doc["results"][0]["count"] = 8, -2
    capture = parse_text(json.dumps(doc), "all_reduce_perf.json")
    assert capture.results[0].problems == ("negative size 8 / count -2",)
    doc["results"][0]["count"] = 2
    assert parse_text(json.dumps(doc), "all_reduce_perf.json").results[0].problems == ()
