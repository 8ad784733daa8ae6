"""Which of a host's RDMA devices are its fabric NICs, by the catalog's per-type list.

Some bare-metal GPU shapes show their front-end NIC as one more ConnectX with an Ethernet link
layer beside the RoCE HCAs of the fabric; only the catalog's `fabric_hcas` carry NCCL
(docs/sources.md O.1, N.1). This
tells, per host, which fabric NICs are there and up, which are missing or down, and which RDMA
devices are not fabric NICs (the front end) so that nothing is tuned or used by mistake.
"""

from __future__ import annotations

from typing import Any

from gpufabric.catalog import lookup
from gpufabric.errors import UserError

_UP = ("active", "port_active")
_LAYER = {"roce": "Ethernet", "infiniband": "InfiniBand"}


def expected(instance_type: str) -> tuple[list[str], str] | None:
    """(fabric HCA names, link layer) the catalog names for the type; None if it names none."""
    entry = lookup(instance_type, key="gpufabric_instance_type")
    names = list(entry.fabric_hcas)
    layer = _LAYER.get(entry.fabric)
    if not names or layer is None:
        return None
    return names, layer


def classify(facts: dict[str, Any], instance_type: str) -> dict[str, Any]:
    """{ok, fabric_up, missing, down, wrong_layer, other, line} for one host's gpufabric_facts."""
    want = expected(instance_type)
    devices = {str(d.get("name")): d for d in facts.get("rdma_devices") or []}
    if want is None:
        return {
            "ok": True,
            "fabric_up": [],
            "missing": [],
            "down": [],
            "wrong_layer": [],
            "other": sorted(devices),
            "line": f"fabric NICs: the catalog names no HCA list for {instance_type}; not checked",
        }
    names, layer = want
    up: list[str] = []
    down: list[str] = []
    wrong: list[str] = []
    missing = [n for n in names if n not in devices]
    for name in names:
        dev = devices.get(name)
        if dev is None:
            continue
        ports = dev.get("ports") or []
        if any(p.get("link_layer") not in (layer, None, "") for p in ports):
            wrong.append(name)
        elif any(str(p.get("state", "")).lower() in _UP for p in ports):
            up.append(name)
        else:
            down.append(name)
    other = sorted(n for n in devices if n not in names)
    ok = not (missing or down or wrong)
    parts = [f"{len(up)} of {len(names)} {instance_type} fabric NICs up ({layer})"]
    if missing:
        parts.append(f"missing {', '.join(missing)}")
    if down:
        parts.append(f"down {', '.join(down)}")
    if wrong:
        parts.append(f"not {layer}: {', '.join(wrong)}")
    if other:
        parts.append(f"not fabric (front end): {', '.join(other)}")
    return {
        "ok": ok,
        "fabric_up": up,
        "missing": missing,
        "down": down,
        "wrong_layer": wrong,
        "other": other,
        "line": "fabric NICs: " + "; ".join(parts),
    }


def roce_ports(
    found: list[str], interfaces: list[str], devices: list[str], instance_type: str = ""
) -> list[str]:
    """The netdevs roce_qos configures, from its probe's 'netdev rdma-device' lines.

    `interfaces` (roce_qos_interfaces) wins when given; else the ports of `devices`
    (roce_qos_rdma_devices), else of the instance type's catalog HCA list (fabric_hcas: the
    fabric's HCAs, never a front-end NIC), else every RoCE port found."""
    pairs = [line.split() for line in found if line.strip()]
    if any(len(p) != 2 for p in pairs):
        bad = next(line for line in found if line.strip() and len(line.split()) != 2)
        raise UserError(f"roce_qos: unexpected probe line {bad!r} (want 'netdev rdma-device')")
    ports = [netdev for netdev, _dev in pairs]
    if interfaces:
        return [i for i in interfaces if i in ports]
    wanted = devices
    if not wanted and instance_type:
        listed = expected(instance_type)
        wanted = listed[0] if listed else []
    if not wanted:
        return ports
    return [netdev for netdev, dev in pairs if dev in wanted]
