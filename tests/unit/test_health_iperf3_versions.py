"""The health traffic check reads iperf3's --bidir --json output of every version in use: Debian
12's 3.12 (captured on the lab hosts) and the newest release, 3.21 (built and captured here);
tests/unit/data/health/README.md says how each was made."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.health.traffic import parse_iperf3

DATA = Path(__file__).parent / "data" / "health"


@pytest.mark.parametrize(
    ("file", "intervals"),
    [("iperf3_bidir_lab.json", 2), ("iperf3-3.21_bidir_local.json", 4)],
    ids=["3.12", "3.21"],
)
def test_bidir_rates_per_interval(file: str, intervals: int) -> None:
    """--bitrate 200M each way: every full interval near 0.2 Gbit/s in both directions."""
    fwd, rev, err = parse_iperf3((DATA / file).read_text(), 0.5)
    assert err == ""
    assert len(fwd) == len(rev) == intervals
    assert all(0.18 < g < 0.22 for g in fwd + rev), (fwd, rev)


@pytest.mark.parametrize(
    "file", ["iperf3_refused_lab.json", "iperf3-3.21_refused_local.json"], ids=["3.12", "3.21"]
)
def test_a_refused_connection_is_the_error_line(file: str) -> None:
    fwd, rev, err = parse_iperf3((DATA / file).read_text(), 0.5)
    assert (fwd, rev) == ([], [])
    assert err.startswith("iperf3: unable to connect to server") and "Connection refused" in err
