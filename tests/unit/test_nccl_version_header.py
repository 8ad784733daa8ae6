"""The NCCL version from the nccl-tests text header, without NCCL_DEBUG lines.

nccl-tests >= 2.17.4 starts its output with `# nccl-tests version %s nccl-headers=%d
nccl-library=%d` (NVIDIA/nccl-tests src/util.cu, writeDeviceReport), then `# Collective test
starting: <binary>`, then the `# nThread ...` line. The tests below read REAL captured runs
(the captures folder of tests/conftest.py, nccl-tests/; they skip without it): the devices,
the table and the footer are the tool's own. None of those captures carries the version line
(their nccl-tests predates it), so that one line is CONSTRUCTED from the printf format above and
put where the tool prints it, with the launcher prefix the capture's own `# nThread` line has.
The codes follow nccl.h's NCCL_VERSION (X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z
before).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import capture
from typer.testing import CliRunner

from gpufabric.cli.main import app
from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.parse.lines import strip_prefixes
from gpufabric.nccl.parse.tests_text import nccl_version_string

OCI_2NODE = "nccl-tests/all_reduce_perf_oci_bm_gpu4_8_2node_roce_10G.txt"  # no NCCL_DEBUG
SKYPILOT = "nccl-tests/all_gather_perf_gke_a3ultra_skypilot_prefixed.txt"  # launcher prefixes
LEONARDO = "nccl-tests/sendrecv_perf_a100_leonardo_intranode_nccl_info.txt"  # NCCL INFO lines


def with_version_header(text: str, tests: str, library: int, binary: str) -> str:
    """The real capture `text` with nccl-tests' version lines (CONSTRUCTED, see the module
    docstring) before its first `# nThread` line, under that line's own launcher prefix."""
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "# nThread" in line)
    prefix = lines[at][: lines[at].index("# nThread")]
    header = (
        f"{prefix}# nccl-tests version {tests} nccl-headers={library} nccl-library={library}\n"
        f"{prefix}# Collective test starting: {binary}\n"
    )
    return "".join([*lines[:at], header, *lines[at:]])


@pytest.mark.parametrize(
    ("code", "version"), [(22807, "2.28.7"), (21805, "2.18.5"), (2708, "2.7.8"), (0, None)]
)
def test_version_codes(code: int, version: str | None) -> None:
    assert nccl_version_string(code) == version


def test_a_real_run_without_the_header_has_no_nccl_version() -> None:
    """The baseline: this real run prints no version anywhere, so none is made up."""
    capture_ = parse_text(capture(OCI_2NODE).read_text(), "all_reduce_perf.txt")
    (result,) = capture_.results
    assert result.nccl_version is None and result.tests_version is None


def test_the_header_names_the_nccl_library_without_debug_lines(tmp_path: Path) -> None:
    real = capture(OCI_2NODE).read_text()
    text = with_version_header(real, "2.19.6", 22703, "all_reduce_perf")
    parsed = parse_text(text, "all_reduce_perf.txt")
    (result,) = parsed.results
    assert result.tests_version == "2.19.6" and result.nccl_version == "2.27.3"
    assert not parsed.debug.seen  # no NCCL_DEBUG lines at all
    # the header adds the version and changes nothing else the real run says
    (plain,) = parse_text(real, "all_reduce_perf.txt").results
    assert result.rows == plain.rows and len(result.ranks) == len(plain.ranks) == 16
    path = tmp_path / "all_reduce_perf.txt"
    path.write_text(text)
    out = CliRunner().invoke(app, ["nccl", "parse", str(path)]).output
    assert "all_reduce: 1 sizes, 16 ranks, 2 hosts, NCCL 2.27.3," in out


def test_the_header_is_read_under_launcher_prefixes() -> None:
    """mpirun / SkyPilot tag every line; the version line carries the same tags."""
    text = with_version_header(capture(SKYPILOT).read_text(), "2.17.6", 22602, "all_gather_perf")
    assert strip_prefixes(text.splitlines()[2]).startswith("# nccl-tests version 2.17.6")
    (result,) = parse_text(text, "all_gather_perf.txt").results
    assert result.nccl_version == "2.26.2" and len(result.rows) == 24


def test_an_nccl_version_line_wins_over_the_header() -> None:
    """The library that ran (NCCL_DEBUG's `NCCL version` line) is what the header's code
    stands for; where both are there, the line's full text (with +cuda) is kept."""
    text = with_version_header(capture(LEONARDO).read_text(), "2.17.6", 22203, "sendrecv_perf")
    (result,) = parse_text(text, "sendrecv_perf.txt").results
    assert result.tests_version == "2.17.6"
    assert result.nccl_version == "2.22.3+cuda12.2"
