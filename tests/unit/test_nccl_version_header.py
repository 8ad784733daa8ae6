"""The NCCL version from the nccl-tests text header, without NCCL_DEBUG lines.

nccl-tests >= 2.17.4 starts its output with `# nccl-tests version %s nccl-headers=%d
nccl-library=%d` (NVIDIA/nccl-tests src/util.cu, writeDeviceReport). The text below is
CONSTRUCTED from that printf format and the 2.19.6 header layout (no GPU here to run the real
binary); the codes follow nccl.h's NCCL_VERSION (X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100
+ Z before)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpufabric.cli.main import app
from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.parse.tests_text import nccl_version_string

HEADER = (
    "# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library={library}\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 1 iters: 20 "
    "agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   4242 on      node0 device  0 [0000:18:00] NVIDIA H200\n"
    "#\n"
    "#                                                              out-of-place                       in-place          \n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n"
)
ROWS = "".join(
    f"{8 << k:>12} {(8 << k) // 4:>13}     float     sum      -1     5.10    0.00    0.00       0"
    f"     5.00    0.00    0.00       0\n"
    for k in range(8)
)
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.0012 \n#\n"


@pytest.mark.parametrize(
    ("code", "version"), [(22807, "2.28.7"), (21805, "2.18.5"), (2708, "2.7.8"), (0, None)]
)
def test_version_codes(code: int, version: str | None) -> None:
    assert nccl_version_string(code) == version


def test_the_header_names_the_nccl_library_without_debug_lines(tmp_path: Path) -> None:
    text = HEADER.format(library=22703) + ROWS + FOOTER
    capture = parse_text(text, "all_reduce_perf.txt")
    (result,) = capture.results
    assert result.tests_version == "2.19.6" and result.nccl_version == "2.27.3"
    assert not capture.debug.seen  # no NCCL_DEBUG lines at all
    path = tmp_path / "all_reduce_perf.txt"
    path.write_text(text)
    out = CliRunner().invoke(app, ["nccl", "parse", str(path)]).output
    assert "all_reduce: 8 sizes, 1 ranks, 1 hosts, NCCL 2.27.3," in out


def test_an_nccl_version_line_wins_over_the_header() -> None:
    """The library that ran (NCCL_DEBUG=VERSION's line) is what the header's code stands for;
    where both are there, the line's full text (with +cuda) is kept."""
    text = "NCCL version 2.27.3+cuda12.9\n" + HEADER.format(library=22703) + ROWS + FOOTER
    assert parse_text(text, "all_reduce_perf.txt").results[0].nccl_version == "2.27.3+cuda12.9"
