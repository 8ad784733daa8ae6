"""Parse `ibstat` (rdma-core infiniband-diags) and its script cousin `ibstatus`.

ibstat prints, per CA: `CA 'mlx5_0'`, `CA type:`, `Firmware version:`, then per port
`Port N:` with `State:`, `Physical state:`, `Rate:` (Gb/s, e.g. 400 or 2.5), `Base lid:`,
`Port GUID:`, `Link layer:` (InfiniBand | Ethernet). ibstatus prints one block per port:
`Infiniband device 'mlx5_ib0' port 1 status:` with `rate: 400 Gb/sec (4X NDR)` and
`link_layer:` lines (real capture infiniband/ibstatus_excerpt_ndr_and_eth.txt).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpufabric.errors import UserError
from gpufabric.facts.models import IbDevice, IbPort

_CA = re.compile(r"^CA:? '([^']+)'")
_PORT = re.compile(r"^Port (\d+):")
_KV = re.compile(r"^([A-Za-z][A-Za-z _]*?):\s*(.*)$")
_RATE = re.compile(r"^(\d+(?:\.\d+)?)")
_LID = re.compile(r"[0-9]+|0x[0-9a-fA-F]+")  # ibstat prints it in decimal, ibstatus in hex
_IBSTATUS_HEAD = re.compile(r"^Infiniband device '([^']+)' port (\d+) status:")


@dataclass
class _Builder:
    name: str
    info: dict[str, str] = field(default_factory=dict)
    ports: list[tuple[int, dict[str, str]]] = field(default_factory=list)

    def build(self) -> IbDevice:
        return IbDevice(
            name=self.name,
            ca_type=self.info.get("ca type", ""),
            firmware=self.info.get("firmware version", ""),
            ports=tuple(_port(self.name, num, kv) for num, kv in self.ports),
        )


def _builder(name: str, tool: str) -> _Builder:
    if any(c.isspace() for c in name):
        raise UserError(f"{tool}: {name!r} is not an RDMA device name")
    return _Builder(name)


def parse(text: str) -> tuple[IbDevice, ...]:
    """Parse `ibstat` output; no CA lines (no RDMA devices) gives ()."""
    devices: list[_Builder] = []
    for raw in text.splitlines():
        line = raw.strip()
        if (m := _CA.match(line)) is not None:
            devices.append(_builder(m.group(1), "ibstat"))
        elif not devices:
            continue
        elif (m := _PORT.match(line)) is not None:
            devices[-1].ports.append((int(m.group(1)), {}))
        elif (m := _KV.match(line)) is not None:
            target = devices[-1].ports[-1][1] if devices[-1].ports else devices[-1].info
            target[m.group(1).strip().lower()] = m.group(2).strip()
    return tuple(b.build() for b in devices)


def parse_ibstatus(text: str) -> tuple[IbDevice, ...]:
    """Parse `ibstatus` (one block per device port) into the same shape as `parse`."""
    devices: dict[str, _Builder] = {}
    current: dict[str, str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if (m := _IBSTATUS_HEAD.match(line)) is not None:
            builder = devices.setdefault(m.group(1), _builder(m.group(1), "ibstatus"))
            current = {}
            builder.ports.append((int(m.group(2)), current))
        elif current is not None and (m := _KV.match(line)) is not None:
            key = m.group(1).strip().lower().replace("_", " ")
            value = m.group(2).strip()
            if key == "phys state":
                key = "physical state"
            current[key] = value.split(": ", 1)[-1]  # "4: ACTIVE" -> "ACTIVE"
    return tuple(b.build() for b in devices.values())


def _port(device: str, number: int, kv: dict[str, str]) -> IbPort:
    rate = _RATE.match(kv.get("rate", ""))
    lid = kv.get("base lid", "")
    if lid and not _LID.fullmatch(lid):
        raise UserError(f"ibstat: {device} port {number}: base lid {lid!r} is not a number")
    return IbPort(
        number=number,
        state=kv.get("state", ""),
        physical_state=kv.get("physical state", ""),
        rate_gbps=float(rate.group(1)) if rate else None,
        link_layer=kv.get("link layer", ""),
        base_lid=(int(lid, 16) if lid.startswith("0x") else int(lid)) if lid else None,
        port_guid=kv.get("port guid"),
    )
