"""The lab's network: namespaces, leaf bridges, the spine, host links, tc shaping.

In `gf-NAME-fab`: one bridge per leaf (leaf1, leaf2, ...) and a bridge `spine`; leaf J is joined
to the spine by the veth pair upJ (on the leaf) / spJ (on the spine). `--spine-rate` puts a tbf
qdisc on both ends of every uplink, so cross-leaf traffic is shaped in both directions while
traffic within a leaf is not. Each host's netns holds `eth0`, the peer of port hI on its leaf;
the controller netns holds `eth0` on leaf1. No address of the lab exists outside its namespaces.
"""

from __future__ import annotations

import subprocess

from gpufabric.errors import UserError
from gpufabric.lab.layout import LabLayout, rate_bits

TBF_LATENCY = "50ms"


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise UserError(f"`ip {' '.join(args)}` failed: {proc.stderr.strip()}")
    return proc


def tc(netns: str, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        ["ip", "netns", "exec", netns, "tc", *args], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise UserError(f"`tc {' '.join(args)}` in {netns} failed: {proc.stderr.strip()}")
    return proc


def existing_netns() -> list[str]:
    out = ip("netns", "list").stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def create(layout: LabLayout) -> None:
    """Namespaces, bridges, links and addresses (no shaping yet)."""
    fab = layout.fabric_netns
    for ns in layout.namespaces:
        ip("netns", "add", ns)
        ip("-n", ns, "link", "set", "lo", "up")
    for bridge in (*layout.leaves, "spine"):
        ip("-n", fab, "link", "add", bridge, "type", "bridge", "stp_state", "0")
        ip("-n", fab, "link", "set", bridge, "up")
    for j, leaf in enumerate(layout.leaves, start=1):
        ip("-n", fab, "link", "add", f"up{j}", "type", "veth", "peer", "name", f"sp{j}")
        ip("-n", fab, "link", "set", f"up{j}", "master", leaf, "up")
        ip("-n", fab, "link", "set", f"sp{j}", "master", "spine", "up")
    ports = [(f"h{h.index}", h.netns, h.leaf, h.address) for h in layout.hosts]
    ports.append(("ctl", layout.controller_netns, layout.leaves[0], layout.controller_address))
    for port, ns, leaf, address in ports:
        ip("-n", fab, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
        ip("-n", fab, "link", "set", port, "master", leaf, "up")
        ip("-n", ns, "addr", "add", f"{address}/{layout.prefixlen}", "dev", "eth0")
        ip("-n", ns, "link", "set", "eth0", "up")


def uplinks(layout: LabLayout) -> list[str]:
    return [f"{end}{j}" for j in range(1, len(layout.leaves) + 1) for end in ("up", "sp")]


def tbf_burst_bytes(bits_per_s: int) -> int:
    """Bucket of ~4 ms at the rate (the timer tick at HZ=250), at least 16 KiB."""
    return max(bits_per_s // 8 // 250, 16 * 1024)


def set_spine_rate(layout: LabLayout, rate: str | None) -> None:
    """Shape every uplink to `rate` (tc syntax, e.g. 1gbit), or remove shaping with None."""
    for dev in uplinks(layout):
        subprocess.run(
            ["ip", "netns", "exec", layout.fabric_netns, "tc", "qdisc", "del", "dev", dev, "root"],
            capture_output=True,
            check=False,
        )
        if rate is not None:
            bits = rate_bits(rate)
            tc(
                layout.fabric_netns,
                "qdisc",
                "add",
                "dev",
                dev,
                "root",
                "tbf",
                "rate",
                f"{bits}bit",
                "burst",
                str(tbf_burst_bytes(bits)),
                "latency",
                TBF_LATENCY,
            )


def spine_qdiscs(layout: LabLayout) -> dict[str, str]:
    """Uplink -> its root qdisc line as tc prints it (for status and tests)."""
    out: dict[str, str] = {}
    for dev in uplinks(layout):
        line = tc(layout.fabric_netns, "qdisc", "show", "dev", dev, "root").stdout.strip()
        out[dev] = line.splitlines()[0] if line else ""
    return out


def delete(names: list[str]) -> None:
    """Delete the given namespaces (their links and bridges go with them)."""
    present = set(existing_netns())
    for ns in names:
        if ns in present:
            ip("netns", "del", ns)
