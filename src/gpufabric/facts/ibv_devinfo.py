"""Parse `ibv_devinfo` (rdma-core libibverbs utils): verbs devices and their ports.

Per device: `hca_id: mlx5_0`, then `transport:`, `fw_ver:`, `vendor_id:` (0x02c9 NVIDIA/
Mellanox, 0x1d0f Amazon EFA), `vendor_part_id:`; per port `port: N` with `state:
PORT_ACTIVE (4)`, `active_mtu: 4096 (5)`, `link_layer:`. The verbose form (-v) adds many more
keys and capability-flag lines; they are ignored. A device name that is empty or holds a blank,
or a port that is not a number, is refused with one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpufabric.errors import UserError
from gpufabric.facts.models import VerbsDevice, VerbsPort
from gpufabric.inputs.types import digits

_KV = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_ ]*?):\s*(.*?)\s*$")
_NUMBER = re.compile(r"^(\d+)")


@dataclass
class _Builder:
    hca_id: str
    info: dict[str, str] = field(default_factory=dict)
    ports: list[tuple[int, dict[str, str]]] = field(default_factory=list)


def parse(text: str) -> tuple[VerbsDevice, ...]:
    """Parse the output; "No IB devices found" or empty text gives ()."""
    devices: list[_Builder] = []
    for line in text.splitlines():
        m = _KV.match(line)
        if m is None:
            continue
        key, value = m.group(1), m.group(2)
        if key == "hca_id":
            if not value or any(c.isspace() for c in value):
                raise UserError(f"ibv_devinfo: hca_id {value!r} is not an RDMA device name")
            devices.append(_Builder(value))
        elif not devices:
            continue
        elif key == "port":
            if not digits(value):
                raise UserError(
                    f"ibv_devinfo: {devices[-1].hca_id}: port {value!r} is not a number"
                )
            devices[-1].ports.append((int(value), {}))
        elif devices[-1].ports:
            devices[-1].ports[-1][1].setdefault(key, value)
        else:
            devices[-1].info.setdefault(key, value)
    return tuple(_device(b) for b in devices)


def _device(b: _Builder) -> VerbsDevice:
    return VerbsDevice(
        hca_id=b.hca_id,
        transport=b.info.get("transport", ""),
        fw_ver=b.info.get("fw_ver", ""),
        vendor_id=b.info.get("vendor_id", ""),
        vendor_part_id=b.info.get("vendor_part_id", ""),
        ports=tuple(
            VerbsPort(
                number=num,
                state=kv.get("state", "").split(" ")[0],
                link_layer=kv.get("link_layer", ""),
                active_mtu=int(m.group(1))
                if (m := _NUMBER.match(kv.get("active_mtu", "")))
                else None,
            )
            for num, kv in b.ports
        ),
    )
