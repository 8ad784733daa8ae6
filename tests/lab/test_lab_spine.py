"""The spine can be shaped: cross-leaf iperf3 is slowed, same-leaf is not (ratios only)."""

from __future__ import annotations

import json
import time

import pytest

from gpufabric.lab.handle import LabHandle

pytestmark = pytest.mark.lab
RATE_MBIT = 300


def iperf(lab: LabHandle, server: str, client: str, seconds: int = 2) -> float:
    """Received Mbit/s of a `seconds`-long TCP stream client -> server."""
    lab.sh(server, "timeout 30 iperf3 -s -1 >/dev/null 2>&1 &")
    for _ in range(50):
        if ":5201 " in lab.run(server, "ss", "-Hltn").stdout:
            break
        time.sleep(0.1)
    proc = lab.run(
        client, "iperf3", "-J", "-c", lab.addresses[server], "-t", str(seconds), timeout=60
    )
    return json.loads(proc.stdout)["end"]["sum_received"]["bits_per_second"] / 1e6


def test_spine_rate_slows_cross_leaf_only(lab: LabHandle) -> None:
    assert lab.leaves["h1"] == lab.leaves["h2"] != lab.leaves["h3"]
    lab.set_spine_rate(f"{RATE_MBIT}mbit")
    try:
        same = iperf(lab, "h1", "h2")
        cross = iperf(lab, "h1", "h3")
        back = iperf(lab, "h3", "h1")  # shaped in both directions
    finally:
        lab.set_spine_rate(None)
    unshaped = iperf(lab, "h1", "h3")
    print(
        f"same-leaf {same:.0f} Mbit/s, cross-leaf shaped {cross:.0f} / {back:.0f} Mbit/s, "
        f"cross-leaf unshaped {unshaped:.0f} Mbit/s, spine rate {RATE_MBIT} Mbit/s"
    )
    assert cross < same / 3 and back < same / 3
    assert 0.5 < cross / RATE_MBIT < 1.1 and 0.5 < back / RATE_MBIT < 1.1
    assert unshaped > 3 * cross
