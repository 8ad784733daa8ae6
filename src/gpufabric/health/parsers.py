"""Parsers of what the no-traffic checks read: sysfs strings, ethtool -S, nvidia-smi PCIe.

Each takes the text as the tool or kernel prints it and returns plain values; anything it
cannot read becomes None (or is left out), never an exception, so one odd host never stops the
run. Formats: sysfs-class-infiniband (state "4: ACTIVE", phys_state "5: LinkUp", rate
"400 Gb/sec (4X NDR)"), sysfs-class-net, PCI sysfs current_link_speed ("16.0 GT/s PCIe"),
`ethtool -S` ("     name: value"), `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`.
"""

from __future__ import annotations

import re

_NUM_PREFIX = re.compile(r"^\s*(\d+)\s*:\s*(\S.*?)\s*$")
_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*Gb/sec")
_GTS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*GT/s")
_ETHTOOL = re.compile(r"^\s+([A-Za-z0-9_.\[\]-]+):\s+(-?\d+)\s*$")
# PCIe generation by per-lane transfer rate (PCI-SIG: Gen1 2.5, Gen2 5, Gen3 8, Gen4 16, Gen5 32, Gen6 64 GT/s)
GEN_BY_GTS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
NVSMI_PCIE_FIELDS = (
    "index",
    "pci.bus_id",
    "pcie.link.gen.current",
    "pcie.link.gen.max",
    "pcie.link.width.current",
    "pcie.link.width.max",
)


def ib_state(text: str) -> str | None:
    """'4: ACTIVE' -> 'ACTIVE' (also phys_state '5: LinkUp' -> 'LinkUp')."""
    m = _NUM_PREFIX.match(str(text or ""))
    return m.group(2) if m else None


def ib_rate_gbps(text: str) -> float | None:
    """'400 Gb/sec (4X NDR)' -> 400.0."""
    m = _RATE.match(str(text or ""))
    return float(m.group(1)) if m else None


def ibstatus_ports(text: str) -> list[dict[str, str | float | None]]:
    """`ibstatus` output -> one dict per port (device, port, state, phys_state, rate_gbps, link_layer)."""
    out: list[dict[str, str | float | None]] = []
    head = re.compile(r"^Infiniband device '([^']+)' port (\d+) status:")
    cur: dict[str, str | float | None] | None = None
    for line in text.splitlines():
        m = head.match(line)
        if m:
            cur = {
                "device": m.group(1),
                "port": m.group(2),
                "state": None,
                "phys_state": None,
                "rate_gbps": None,
                "link_layer": None,
            }
            out.append(cur)
            continue
        if cur is None or ":" not in line:
            continue
        key, _, val = line.strip().partition(":")
        val = val.strip()
        if key == "state":
            cur["state"] = ib_state(val)
        elif key == "phys state":
            cur["phys_state"] = ib_state(val)
        elif key == "rate":
            cur["rate_gbps"] = ib_rate_gbps(val)
        elif key == "link_layer":
            cur["link_layer"] = val
    return out


def pcie_gen(text: str) -> int | None:
    """sysfs current_link_speed '16.0 GT/s PCIe' -> 4 (None when unknown)."""
    m = _GTS.match(str(text or ""))
    return GEN_BY_GTS.get(float(m.group(1))) if m else None


def as_int(text: object) -> int | None:
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return None


def ethtool_stats(text: str) -> dict[str, int]:
    """`ethtool -S DEV` -> {counter: value} (the 'NIC statistics:' header and odd lines skipped)."""
    out: dict[str, int] = {}
    for line in (text or "").splitlines():
        m = _ETHTOOL.match(line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def nvidia_smi_pcie(text: str) -> list[dict[str, str | int | None]]:
    """CSV rows of NVSMI_PCIE_FIELDS (noheader, nounits) -> one dict per GPU; '[N/A]' -> None."""
    out: list[dict[str, str | int | None]] = []
    for line in (text or "").splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(NVSMI_PCIE_FIELDS) or as_int(cells[0]) is None:
            continue
        row: dict[str, str | int | None] = {"index": as_int(cells[0]), "bus_id": cells[1]}
        for key, cell in zip(
            ("gen_current", "gen_max", "width_current", "width_max"), cells[2:], strict=True
        ):
            row[key] = as_int(cell)
        out.append(row)
    return out
