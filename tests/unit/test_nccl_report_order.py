"""The report leads with its verdict: the pass/fail banner and the headline number come first,
then what was measured (when, which hosts, which command); every column carries its unit.

Input: a constructed nccl-tests table (16 ranks on 2 hosts, all_reduce up to 1 GiB) peaking at
43.8 GB/s, gated as p5.48xlarge x 2, whose 3,200 Gbit/s per node make 400 GB/s of ring line rate.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpufabric.catalog import lookup
from gpufabric.nccl.gate.fabric import merge_debug
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.report.html import render_report, size_label, spans_orders_of_magnitude

HEADER = (
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
    "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#\n"
    + "".join(
        f"#  Rank {r:2d} Group  0 Pid  1234 on host{r // 8} device  {r % 8} [0x53] NVIDIA H100\n"
        for r in range(16)
    )
    + "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
    "     (us)  (GB/s)  (GB/s)\n"
)
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 12.3 \n"


def _row(size: int, busbw: float) -> str:
    return (
        f"{size:>12} {size // 4:>12}     float     sum      -1    100.0  {busbw:6.2f} {busbw:7.2f}"
        f"      0    100.0  {busbw:6.2f} {busbw:7.2f}      0\n"
    )


def _report(tmp_path: Path) -> str:
    rows = [_row(8 << k, min(43.8, 0.01 * 2**k)) for k in range(28)]  # 8 B .. 1 GiB
    path = tmp_path / "all_reduce_perf.txt"
    path.write_text(HEADER + "".join(rows) + FOOTER)
    captures = [parse_text(path.read_text(), str(path))]
    report = gate(captures, lookup("p5.48xlarge"), 2)
    html, _plots = render_report(captures, report, merge_debug(captures))
    return html


def test_verdict_and_headline_come_first(tmp_path: Path) -> None:
    html = _report(tmp_path)
    body = html.split("<body>", 1)[1]
    order = [
        body.index(mark)
        for mark in (
            'id="verdict"',
            'id="headline"',
            "<h2>What was measured</h2>",
            "<h2>Gate verdicts</h2>",
            "<img",
            "<h2>Transport found</h2>",
        )
    ]
    assert order == sorted(order)
    banner = body[body.index('id="verdict"') : body.index('id="headline"')]
    assert 'class="fail"' in banner and "<strong>FAIL</strong>" in banner
    assert "First failure" in banner and "0.11 of the 400.0 GB/s ring line rate" in banner
    headline = body[body.index('id="headline"') : body.index("<h2>")]
    assert "43.8 GB/s = 0.11 of line rate" in headline


def test_what_was_measured_names_hosts_and_command(tmp_path: Path) -> None:
    html = _report(tmp_path)
    measured = html[html.index("<h2>What was measured</h2>") : html.index("<h2>Gate verdicts</h2>")]
    assert "all_reduce_perf.txt" in measured and "host0, host1" in measured
    assert "all_reduce_perf (nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824" in measured
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", measured)  # when
    assert "Report written" in measured and "by `gpufabric" in measured


def test_every_result_column_has_its_unit(tmp_path: Path) -> None:
    html = _report(tmp_path)
    results = html[html.index("<h2>Results</h2>") :]
    heads = re.findall(r"<th>([^<]+)</th>", results.split("</tr>", 1)[0])
    assert heads == [
        "file",
        "collective",
        "sizes (count)",
        "largest size",
        "peak busbw (GB/s)",
        "avg busbw, footer (GB/s)",
    ]
    assert ">1 GiB<" in results  # sizes in KiB/MiB/GiB, not bytes


def test_sizes_read_as_people_say_them_and_wide_gains_go_log() -> None:
    assert [size_label(s) for s in (8, 65536, 1 << 20, 8 << 30)] == [
        "8 B",
        "64 KiB",
        "1 MiB",
        "8 GiB",
    ]
    assert spans_orders_of_magnitude([0.1, 400.0]) and not spans_orders_of_magnitude([300, 400])
