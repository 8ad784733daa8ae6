"""The gate's verdicts at the edges of its limits, on real captures where one fits: the
threshold and the ceiling at their exact values, node counts read from NCCL's own lines,
malformed NCCL_ALGO values, several tables in one file, and no input at all."""

from __future__ import annotations

import pytest
from tests.conftest import capture

from gpufabric.catalog import lookup
from gpufabric.errors import ArgumentError
from gpufabric.nccl.gate.thresholds import thresholds
from gpufabric.nccl.gate.verdict import GateReport, gate
from gpufabric.nccl.parse.capture import parse_text

HEADER = (
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
    "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
)
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.5 \n"
LEONARDO = "nccl-tests/sendrecv_perf_a100_leonardo_intranode_nccl_info.txt"


def _row(size: int, busbw: str = "300.00", algbw: str = "100.00", time: str = "20.0") -> str:
    return (
        f"{size:>12} {size // 4:>12}     float     sum      -1 {time:>8} {algbw:>7} {busbw:>7}"
        f"      0 {time:>8} {algbw:>7} {busbw:>7}      0\n"
    )


def _table(busbw: str = "300.00", algbw: str = "100.00") -> str:
    return HEADER + "".join(_row(8 << k, busbw, algbw) for k in range(28)) + FOOTER


def _lines(report: GateReport, check: str) -> list[str]:
    return [v.line() for v in report.verdicts if v.check == check]


P5_RING = "(2 nodes x 3200 Gbps = 400 GB/s per node)"


@pytest.mark.parametrize(
    ("busbw", "line"),
    [
        (
            "320.00",
            "PASS bandwidth   all_reduce_perf.txt: all_reduce: peak busbw 320.0 GB/s at 256 MiB = "
            f"0.80 of the 400.0 GB/s ring line rate {P5_RING}; threshold 0.80",
        ),
        (
            "319.99",
            "FAIL bandwidth   all_reduce_perf.txt: all_reduce: peak busbw 320.0 GB/s at 256 MiB = "
            f"0.80 of the 400.0 GB/s ring line rate {P5_RING}; needs >= 0.80",
        ),
    ],
)
def test_busbw_exactly_at_the_threshold_passes(busbw: str, line: str) -> None:
    """ring efficiency 0.80 on 2 x p5 (400 GB/s per node): 320 GB/s is the threshold itself."""
    report = gate([parse_text(_table(busbw), "all_reduce_perf.txt")], lookup("p5.48xlarge"), 2)
    assert _lines(report, "bandwidth") == [line]
    assert report.passed is line.startswith("PASS")


@pytest.mark.parametrize(("busbw", "status"), [("40.00", "PASS"), ("39.99", "WARN")])
def test_advisory_collective_exactly_at_the_threshold_passes(busbw: str, status: str) -> None:
    """sendrecv on 2 x p5: one GPU's share of the node's 400 GB/s is 50 GB/s; 0.80 of it is 40."""
    report = gate([parse_text(_table(busbw), "sendrecv_perf.txt")], lookup("p5.48xlarge"), 2)
    (line,) = _lines(report, "bandwidth")
    assert line.startswith(f"{status} bandwidth   sendrecv_perf.txt: sendrecv: peak busbw ")
    assert ("advisory" in line) is (status == "WARN")
    assert report.passed


@pytest.mark.parametrize(("busbw", "warned"), [("900.00", False), ("900.01", True)])
def test_the_best_case_ceiling_is_reached_not_exceeded_at_its_value(
    busbw: str, warned: bool
) -> None:
    """One p5 node: NVLink 900 GB/s per GPU is the best any algorithm reaches; with a
    tolerance of 1.0 a run at exactly 900 is not flagged, one at 900.01 is."""
    base = thresholds()
    limits = base.model_copy(update={"ceiling_tolerance": 1.0})
    report = gate(
        [parse_text(_table(busbw), "all_reduce_perf.txt")], lookup("p5.48xlarge"), 1, limits=limits
    )
    over = (
        "WARN bandwidth   all_reduce_perf.txt: all_reduce: 900.0 GB/s exceeds the best-case "
        "ceiling 900.0 GB/s: wrong --nodes or --instance-type?"
    )
    assert (over in _lines(report, "bandwidth")) is warned


def test_a_run_slower_than_1_gbps_reports_its_own_peak() -> None:
    report = gate([parse_text(_table("0.50"), "all_reduce_perf.txt")], lookup("p5.48xlarge"), 2)
    assert report.peaks == {"all_reduce": 0.5}
    assert not report.passed


@pytest.mark.parametrize(
    ("value", "bound"),
    [
        ("allreduce:tree:ring", "400.0 GB/s ring line rate"),
        ("allgather:ring:x;allreduce:tree", "750.0 GB/s tree bound"),
    ],
)
def test_a_stray_colon_in_nccl_algo_is_not_a_crash(value: str, bound: str) -> None:
    """NCCL_ALGO comes from the log (untrusted): an entry with a second ':' forces nothing
    (the ring line rate applies) and leaves the other entries read."""
    text = f"h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to {value}\n" + _table()
    report = gate([parse_text(text, "all_reduce_perf.txt")], lookup("p5.48xlarge"), 2)
    (line,) = _lines(report, "bandwidth")
    assert f"of the {bound} (2 nodes" in line


def test_a_broken_table_does_not_hide_the_next_table_of_the_file() -> None:
    """Two tables in one file, the first with a NaN: it fails as input, and the second is
    still judged in full."""
    broken = _table().replace(" 300.00      0\n", "    nan      0\n", 1)
    text = broken + _table("400.00")
    report = gate([parse_text(text, "all_reduce_perf.txt")], lookup("p5.48xlarge"), 1)
    assert [v.line() for v in report.verdicts if v.check != "latency"] == [
        "FAIL input       all_reduce_perf.txt[0]: busbw nan at 8 B (in-place): not a measurement",
        "PASS complete    all_reduce_perf.txt[0]: 28 sizes up to 1 GiB, footer present",
        "PASS correctness all_reduce_perf.txt[0]: #wrong = 0 at every size",
        "PASS complete    all_reduce_perf.txt[1]: 28 sizes up to 1 GiB, footer present",
        "PASS correctness all_reduce_perf.txt[1]: #wrong = 0 at every size",
        "PASS bandwidth   all_reduce_perf.txt[1]: all_reduce: peak busbw 400.0 GB/s at 256 MiB = "
        "0.89 of the 450.0 GB/s intra-node ring bound (NVLink 900 GB/s/GPU / 2); threshold 0.80",
        "WARN debug       fabric: no NCCL_DEBUG=INFO lines: transport and NIC use not checked "
        "(run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET)",
    ]
    assert report.peaks == {"all_reduce": 400.0} and not report.passed


def test_no_capture_at_all_fails_naming_no_input() -> None:
    report = gate([], lookup("p5.48xlarge"))
    assert report.verdicts[-1].line() == (
        "FAIL input       no input: no nccl-tests results table: nothing measured, so no "
        "bandwidth, latency or correctness to pass on"
    )
    assert not report.passed and report.instance_type == "p5.48xlarge"


def _nccl_lines(rel: str, drop: str | None = None) -> str:
    lines = capture(rel).read_text().splitlines(keepends=True)
    return "".join(ln for ln in lines if "NCCL INFO" in ln and (drop is None or drop not in ln))


@pytest.mark.parametrize("drop", [None, "nNodes"], ids=["nNodes line", "old nranks line only"])
def test_a_one_node_log_without_a_table_is_judged_as_one_node(drop: str | None) -> None:
    """The real Leonardo log (2 GPUs of one node, no results table): the node count comes from
    NCCL's 'nRanks 2 nNodes 1' line, or from the older 'rank 0 nranks 2' line (2 ranks on
    8-GPU nodes: one node)."""
    text = _nccl_lines(LEONARDO, drop)
    report = gate([parse_text(text, "leonardo.log")], lookup("Standard_ND96asr_v4"))
    assert report.nodes == 1


def test_a_table_without_rank_lines_takes_the_rank_count_from_nccl() -> None:
    """No '# Rank' lines in the table: NCCL's old-style 'nranks 16' line says 16 ranks, so
    2 nodes of 8 GPUs (the 2-node ring line rate), not one node's NVLink bound."""
    text = "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 busId 1000\n" + _table()
    report = gate([parse_text(text, "all_reduce_perf.txt")], lookup("p5.48xlarge"))
    assert report.nodes == 2
    (line,) = _lines(report, "bandwidth")
    assert f"ring line rate {P5_RING}" in line


def test_four_ranks_inferred_from_the_table_are_one_node() -> None:
    """all_reduce busbw / algbw = 2(n-1)/n = 1.5: 4 ranks, fewer than a p5's 8 GPUs."""
    report = gate(
        [parse_text(_table("150.00", "100.00"), "all_reduce_perf.txt")], lookup("p5.48xlarge")
    )
    assert report.nodes == 1
    (line,) = _lines(report, "bandwidth")
    assert "intra-node ring bound" in line


def _ranks(n: int, hosts: int) -> str:
    return "".join(
        f"#  Rank {r:2d} Group  0 Pid  1234 on host{r % hosts} device  {r % 8} [0x53] NVIDIA H100\n"
        for r in range(n)
    )


def test_node_count_refusals_name_the_argument_and_the_file() -> None:
    p5 = lookup("p5.48xlarge")
    sixteen = parse_text(_ranks(16, 2) + _table(), "all_reduce_perf.txt")
    with pytest.raises(ArgumentError) as many:
        gate([sixteen], p5, 32)
    assert many.value.argument == "nodes"
    assert str(many.value) == (
        "nodes: 32 is not valid for all_reduce_perf.txt: its 16 ranks fit on at most 16 nodes"
    )
    thirty_two = parse_text(_ranks(32, 4) + _table(), "all_reduce_perf.txt")
    with pytest.raises(ArgumentError) as few:
        gate([thirty_two], p5, 2)
    assert few.value.argument == "nodes"
    assert str(few.value) == (
        "nodes: 2 is not valid for all_reduce_perf.txt: 32 ranks need at least 4 nodes of "
        "8 GPUs (p5.48xlarge)"
    )


def test_the_largest_node_count_is_accepted_and_one_more_refused() -> None:
    log = parse_text(_nccl_lines(LEONARDO), "leonardo.log")
    most = thresholds().max_nodes
    assert gate([log], lookup("Standard_ND96asr_v4"), most).nodes == most
    with pytest.raises(ArgumentError, match=f"^nodes: {most + 1} is not valid; must be 1 to"):
        gate([log], lookup("Standard_ND96asr_v4"), most + 1)


P5_2X = "nccl-tests/all_reduce_perf_2x_p5_efa_srun_prefix.txt"
ROW_8B = "   69.12    0.00    0.00      0    72.43"  # the real 2 x p5 run's 8 B times
ROW_16B = "   72.64    0.00    0.00      0    73.91"


def _latency(text: str) -> list[str]:
    report = gate([parse_text(text, "all_reduce_perf_2x_p5.txt")], lookup("p5.48xlarge"), 2)
    return _lines(report, "latency")


def _real_with(*swaps: tuple[str, str]) -> str:
    text = capture(P5_2X).read_text()
    for old, new in swaps:
        assert old in text
        text = text.replace(old, new, 1)
    return text


def test_a_small_size_at_exactly_the_allowed_multiple_passes() -> None:
    """8 B at 138.24 us, exactly 2.0 x the 69.12 us expected on 2 p5 nodes (the tolerance):
    allowed; a second size over it fails, counting only the size over."""
    at_edge = _real_with((ROW_8B, "  138.24    0.00    0.00      0   138.24"))
    assert _latency(at_edge)[0] == (
        "PASS latency     all_reduce_perf_2x_p5.txt: all_reduce: 8 B took 138.2 us = 2.00 x "
        "the 69.1 us expected at that size on efa x 2 nodes, the furthest of 8 B-64 KiB "
        "(14 sizes, each within 2.0 x)"
    )
    one_over = _real_with(
        (ROW_8B, "  138.24    0.00    0.00      0   138.24"),
        (ROW_16B, "  300.00    0.00    0.00      0   300.00"),
    )
    assert _latency(one_over)[0] == (
        "FAIL latency     all_reduce_perf_2x_p5.txt: all_reduce: 16 B took 300.0 us = 4.13 x "
        "the 72.6 us expected at that size on efa x 2 nodes; allowed up to 2.0 x "
        "(1 of 14 small sizes over)"
    )


def test_a_spread_of_exactly_the_limit_is_consistent() -> None:
    """8 B at 69.12 us out-of-place and 138.24 us in-place: a 2.0 x spread, the limit itself."""
    text = _real_with((ROW_8B, "   69.12    0.00    0.00      0   138.24"))
    assert _latency(text)[1] == (
        "PASS latency     all_reduce_perf_2x_p5.txt: all_reduce: 8 B took 69.1-138.2 us over "
        "2 measurements = 2.0 x spread (consistent)"
    )


def test_the_spread_is_a_ratio_under_one_microsecond_too() -> None:
    """8 B at 0.50 and 1.50 us is a 3.0 x spread (inconsistent), wider than 16 B's 20-35 us
    (1.75 x): the line names the widest, whatever the unit."""
    rows = [
        _row(8, time="0.50").replace("     0.50", "     1.50", 1),
        _row(16).replace("      0     20.0", "      0     35.0"),
        *(_row(8 << k) for k in range(2, 28)),
    ]
    text = HEADER + "".join(rows) + FOOTER
    report = gate([parse_text(text, "all_reduce_perf.txt")], lookup("p5.48xlarge"), 1)
    assert "      0     35.0" in text  # 16 B: 20 us out-of-place, 35 us in-place
    assert _lines(report, "latency")[-1] == (
        "WARN latency     all_reduce_perf.txt: all_reduce: 8 B took 0.5-1.5 us over "
        "2 measurements = 3.0 x spread; over 2.0 x: inconsistent"
    )
