"""The report renders from real fixtures: a self-contained HTML page with PNG plots."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from tests.conftest import FIXTURES, needs_captures
from typer.testing import CliRunner

from gpufabric.catalog import lookup
from gpufabric.cli.main import app
from gpufabric.nccl.gate.fabric import merge_debug
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_file
from gpufabric.nccl.report.html import render_report, write_report

TESTS = FIXTURES / "nccl-tests"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

# a hand-made tune.json fragment (same keys `gpufabric nccl tune pick` writes)
TUNE = {
    "picks": [
        {
            "collective": "all_reduce",
            "bucket": "<64K",
            "gain": 0.25,
            "choice": {"algorithm": "tree", "protocol": "ll", "channels": 8},
        }
    ],
    "global_env": {"NCCL_BUFFSIZE": "8388608"},
    "curves": {
        "all_reduce": {
            "default": [[1024, 0.1], [1 << 30, 400.0]],
            "tuned": [[1024, 0.2], [1 << 30, 420.0]],
        }
    },
}


@needs_captures
def test_report_from_fixtures(tmp_path: Path) -> None:
    captures = [
        parse_file(TESTS / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"),
        parse_file(TESTS / "all_gather_perf_gke_a3ultra_gib_2node.txt"),
    ]
    report = gate(captures, lookup("p4d.24xlarge"), nodes=2)
    html, plots = render_report(captures, report, merge_debug(captures), TUNE)
    page = write_report(tmp_path, html, plots)
    names = sorted(p.name for p in plots)
    assert names == ["busbw_all_gather.png", "busbw_all_reduce.png", "tuned_all_reduce.png"]
    for name in names:
        assert (tmp_path / name).read_bytes().startswith(PNG_MAGIC)
    text = page.read_text()
    embedded = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(embedded) == 3 and all(base64.b64decode(e).startswith(PNG_MAGIC) for e in embedded)
    assert "<script" not in text and "http" not in text.split("<body>")[1]  # self-contained
    assert "aws-ofi-nccl" in text and "(provider efa)" in text  # transport found
    assert "NET channels use NIC 0, 1, 2, 3" in text  # a gate verdict
    assert "+25.0%" in text and "NCCL_BUFFSIZE=8388608" in text  # default vs tuned


@needs_captures
def test_cli_report_exit_code_follows_the_gate(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(
        app,
        [
            "nccl",
            "report",
            str(TESTS / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"),
            "-t",
            "p4d.24xlarge",
            "--out",
            str(tmp_path / "a"),
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "a" / "busbw_all_reduce.png").exists()
    bad = runner.invoke(
        app,
        [
            "nccl",
            "report",
            str(TESTS / "all_reduce_perf_2x_p5_efa_srun_prefix.txt"),
            "-t",
            "p5.48xlarge",
            "--out",
            str(tmp_path / "b"),
        ],
    )
    assert bad.exit_code == 1 and "gate FAILED" in bad.output  # no footer: cut short


def test_no_pass_banner_over_no_bandwidth_figure(tmp_path: Path) -> None:
    """A table that stops at 128 MiB passes every gate check it can be judged on, but holds no
    large-message figure: the report says NOT JUDGED (exit 1), never a green PASS."""
    header = (
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
    )
    rows = "".join(
        f"{8 << k:>12} {(8 << k) // 4:>12}     float     sum      -1     20.0  100.00   300.0"
        f"      0     20.0  100.00   300.0      0\n"
        for k in range(25)  # 8 B .. 128 MiB
    )
    data = tmp_path / "all_reduce_perf.txt"
    data.write_text(header + rows + "# Out of bounds values : 0 OK\n# Avg bus bandwidth : 1.0\n")
    assert gate([parse_file(data)], lookup("p5.48xlarge"), 1).passed  # nothing failed ...
    res = CliRunner().invoke(
        app,
        ["nccl", "report", str(data), "-t", "p5.48xlarge", "-n", "1", "--out", str(tmp_path / "r")],
    )
    assert res.exit_code == 1, res.output  # ... but nothing to pass on
    assert "gate NOT JUDGED" in res.output
    page = (tmp_path / "r" / "report.html").read_text()
    assert "<strong>PASS</strong>" not in page and "no bandwidth figure" in page
    assert 'id="verdict" class="fail"' in page and "nothing to pass on" in page
