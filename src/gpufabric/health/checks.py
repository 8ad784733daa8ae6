"""Step 1, no traffic: each host's fabric against its instance type and against its peers.

Input per host: the JSON printed by roles/fabric_health/files/collect_health.py (raw sysfs
strings, `ethtool -S` of mlx5 ports, nvidia-smi PCIe rows) and the host's `gpufabric_facts`
(fabric_facts role). Output per host: reasons (the host is bad), warnings, and one row per
check for the report. Every reason starts with its check's name: nic-count, link-down,
link-rate, mtu, flap, errors, pcie, affinity.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gpufabric.health import parsers
from gpufabric.health.expect import Expected
from gpufabric.health.judge import Limits, median
from gpufabric.vocabulary import traits

ARPHRD_NONE = "65534"  # linux/if_arp.h: a TUN device in IP mode
LIBIPSEC_PREFIX = "ipsec"  # strongSwan kernel-libipsec names its TUN device ipsec0, ipsec1, ...
CHECKS = ("nic-count", "link-down", "link-rate", "mtu", "flap", "errors", "pcie", "affinity")


@dataclass
class HostChecks:
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)  # {"check", "ok", "detail"}

    def add(
        self, check: str, problems: list[str], warnings: list[str] | None = None, detail: str = ""
    ) -> None:
        self.reasons += [f"{check}: {p}" for p in problems]
        self.warnings += [f"{check}: {w}" for w in warnings or []]
        self.rows.append(
            {
                "check": check,
                "ok": not problems,
                "detail": "; ".join(problems + (warnings or [])) or detail or "ok",
            }
        )

    userspace_esp: list[str] = field(default_factory=list)  # strongSwan TUN devices

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "reasons": self.reasons,
            "warnings": self.warnings,
            "checks": self.rows,
        }
        if self.userspace_esp:
            out["userspace_esp"] = self.userspace_esp
        return out


def layer3_tunnel(dev: dict[str, Any]) -> bool:
    """A TUN device in IP mode (link type ARPHRD_NONE, if_arp.h): no link of its own (its
    operstate reads "unknown"), it carries what a program writes into it, e.g. strongSwan's
    userspace ESP device. Not a fabric NIC."""
    return str(dev.get("type", "")).strip() == ARPHRD_NONE


def userspace_esp(raw: dict[str, Any]) -> list[str]:
    """strongSwan's kernel-libipsec TUN devices (ipsec0, ...) on this host: its IP traffic to
    mesh members is encrypted in userspace (the lab's IPsec data path)."""
    net = _dict(raw.get("net"))
    return sorted(
        n
        for n, d in net.items()
        if isinstance(d, dict) and layer3_tunnel(d) and n.startswith(LIBIPSEC_PREFIX)
    )


def fabric_netdevs(raw: dict[str, Any], exp: Expected) -> dict[str, dict[str, Any]]:
    """The netdevs that carry the fabric: every non-loopback one (but layer-3 tunnels) in the
    lab and on TCP fabrics; on RDMA fabrics the Ethernet ports of the RDMA devices (RoCE)."""
    net = _dict(raw.get("net"))
    devs = {
        n: d for n, d in net.items() if n != "lo" and isinstance(d, dict) and not layer3_tunnel(d)
    }
    fabric = traits(exp.fabric)
    if not fabric.rdma:
        return {n: d for n, d in devs.items() if d.get("pcie")} if fabric.nics_on_pcie else devs
    rdma_nets = {
        n
        for dev in _dict(raw.get("ib")).values()
        if isinstance(dev, dict)
        for n in dev.get("netdevs", [])
    }
    return {n: d for n, d in devs.items() if n in rdma_nets}


def ib_ports(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """'mlx5_0/1' -> the port's raw sysfs values."""
    out: dict[str, dict[str, Any]] = {}
    for dev, info in sorted(_dict(raw.get("ib")).items()):
        if not isinstance(info, dict):
            continue
        for port, p in sorted(_dict(info.get("ports")).items()):
            if isinstance(p, dict):
                out[f"{dev}/{port}"] = p
    return out


def _dict(value: Any) -> dict[str, Any]:
    """`value` if it is a dict, else {} (a collector output that is not what it should be)."""
    return value if isinstance(value, dict) else {}


def _mode(values: list[Any]) -> Any:
    return Counter(values).most_common(1)[0][0] if values else None


def _nic_count(raw: dict[str, Any], exp: Expected) -> int:
    if traits(exp.fabric).rdma:
        return len(ib_ports(raw))
    return len(fabric_netdevs(raw, exp))


def check_host(
    raw: dict[str, Any], facts: dict[str, Any], exp: Expected, peers: dict[str, Any]
) -> HostChecks:
    """All step-1 checks of one host; `peers` holds what most hosts show (peer_view)."""
    hc = HostChecks()
    nets = fabric_netdevs(raw, exp)
    ports = ib_ports(raw)
    count = _nic_count(raw, exp)
    want = exp.nics if exp.nics is not None else peers.get("nics")
    hc.add(
        "nic-count",
        [f"{count} fabric NIC(s), expected {want}"] if want is not None and count < want else [],
        detail=f"{count}",
    )

    down: list[str] = []
    for n, d in nets.items():
        carrier = parsers.as_int(d.get("carrier")) == 1  # "up" with no carrier is still down
        if d.get("operstate") != "up" or not carrier:
            down.append(f"{n} operstate {d.get('operstate')}" + ("" if carrier else ", no carrier"))
    for name, p in ports.items():
        state, phys = (
            parsers.ib_state(p.get("state", "")),
            parsers.ib_state(p.get("phys_state", "")),
        )
        if state != "ACTIVE" or (phys is not None and phys != "LinkUp"):
            down.append(f"{name} {state or '?'} / {phys or '?'}")
    hc.add("link-down", down)

    slow: list[str] = []
    want_gbps = exp.nic_gbps or peers.get("nic_gbps")
    for n, d in nets.items():
        mbps = parsers.as_int(d.get("speed"))
        if want_gbps and mbps is not None and mbps > 0 and mbps < want_gbps * 1000:
            slow.append(f"{n} {mbps} Mb/s, expected {want_gbps:g} Gb/s")
    port_rate = traits(exp.fabric).port_reports_rate
    for name, p in ports.items():
        rate = parsers.ib_rate_gbps(p.get("rate", ""))
        if want_gbps and rate is not None and port_rate and rate < want_gbps:
            slow.append(f"{name} {rate:g} Gb/s, expected {want_gbps:g}")
    hc.add("link-rate", slow)

    bad_mtu: list[str] = []
    for n, d in nets.items():
        mtu = parsers.as_int(d.get("mtu"))
        ref = exp.mtu or peers.get("mtu", {}).get(n)
        if ref is not None and mtu is not None and mtu != ref:
            what = "the fabric's" if exp.mtu else "the peers'"
            bad_mtu.append(f"{n} mtu {mtu}, {what} {ref}")
    hc.add("mtu", bad_mtu)

    flaps: list[str] = []
    for n, d in nets.items():
        cc = parsers.as_int(d.get("carrier_changes"))
        ref = peers.get("carrier_changes", {}).get(n)
        if cc is not None and ref is not None and cc - ref >= exp.flap_over_peers:
            flaps.append(
                f"{n} carrier_changes {cc}, peers' median {ref:g} "
                f"(~{(cc - ref) / 2:g} more down/up cycles)"
            )
    hc.add("flap", flaps + _counters(raw, exp, ("link_downed", "link_error_recovery"))[0])

    bad, warn = _counters(raw, exp, None, skip=("link_downed", "link_error_recovery"))
    hc.add("errors", bad, warn)
    hc.add("pcie", _pcie(raw, nets, exp))
    hc.add("affinity", _affinity(facts))
    hc.userspace_esp = userspace_esp(raw)
    return hc


def _counters(
    raw: dict[str, Any], exp: Expected, only: tuple[str, ...] | None, skip: tuple[str, ...] = ()
) -> tuple[list[str], list[str]]:
    """Counters at or over their `bad` / `warn` thresholds (IB counters, EFA hw_counters, mlx5)."""
    values: list[tuple[str, str, int]] = []
    for name, p in ib_ports(raw).items():
        for group in ("counters", "hw_counters"):
            for key, val in _dict(p.get(group)).items():
                v = parsers.as_int(val)
                if v is not None:
                    values.append((name, key, v))
    for n, d in _dict(raw.get("net")).items():
        if isinstance(d, dict) and isinstance(d.get("ethtool"), str):
            values += [(n, k, v) for k, v in parsers.ethtool_stats(d["ethtool"]).items()]
    bad: list[str] = []
    warn: list[str] = []
    for where, key, v in values:
        rule = exp.counters.get(key)
        if rule is None or key in skip or (only is not None and key not in only):
            continue
        if "bad" in rule and v >= rule["bad"]:
            bad.append(f"{where} {key} {v}")
        elif "warn" in rule and v >= rule["warn"]:
            warn.append(f"{where} {key} {v}")
    return bad, warn


def _pcie(raw: dict[str, Any], nets: dict[str, dict[str, Any]], exp: Expected) -> list[str]:
    out: list[str] = []
    for n, d in nets.items():
        p = _dict(d.get("pcie"))
        cw, mw = (
            parsers.as_int(p.get("current_link_width")),
            parsers.as_int(p.get("max_link_width")),
        )
        cg, mg = (
            parsers.pcie_gen(p.get("current_link_speed", "")),
            parsers.pcie_gen(p.get("max_link_speed", "")),
        )
        if cw and mw and cw < mw:
            out.append(f"{n} x{cw} of x{mw}")
        if cg and mg and cg < mg:
            out.append(f"{n} Gen{cg} of Gen{mg}")
    for g in parsers.nvidia_smi_pcie(str(raw.get("nvidia_smi_pcie") or "")):
        w, gen = g.get("width_current"), g.get("gen_max")
        if exp.gpu_pcie_width and isinstance(w, int) and w < exp.gpu_pcie_width:
            out.append(f"GPU{g['index']} x{w}, expected x{exp.gpu_pcie_width}")
        if exp.gpu_pcie_gen and isinstance(gen, int) and gen < exp.gpu_pcie_gen:
            out.append(
                f"GPU{g['index']} max Gen{gen}, expected Gen{exp.gpu_pcie_gen} ({exp.gpu_model})"
            )
    return out


def _affinity(facts: dict[str, Any]) -> list[str]:
    """A GPU whose nearest fabric NIC sits on another NUMA node than the GPU."""
    numa = {d.get("name"): d.get("numa_node") for d in facts.get("rdma_devices") or []}
    out: list[str] = []
    for g in facts.get("gpus") or []:
        nic = g.get("nearest_nic")
        gn, nn = g.get("numa_node"), numa.get(nic)
        if nic and gn is not None and nn is not None and gn != nn:
            out.append(f"{g.get('name')} on NUMA {gn}, nearest NIC {nic} on NUMA {nn}")
    return out


def peer_view(raws: dict[str, dict[str, Any]], exp: Expected) -> dict[str, Any]:
    """What most hosts show: NIC count, MTU and rate (modes), carrier_changes (median)."""
    mtus: dict[str, list[int]] = {}
    changes: dict[str, list[float]] = {}
    rates: list[float] = []
    counts: list[int] = []
    for raw in raws.values():
        counts.append(_nic_count(raw, exp))
        for n, d in fabric_netdevs(raw, exp).items():
            mtu, cc = parsers.as_int(d.get("mtu")), parsers.as_int(d.get("carrier_changes"))
            if mtu is not None:
                mtus.setdefault(n, []).append(mtu)
            if cc is not None:
                changes.setdefault(n, []).append(float(cc))
        rates += [
            r
            for p in ib_ports(raw).values()
            if (r := parsers.ib_rate_gbps(p.get("rate", ""))) is not None
        ]
    return {
        "nics": _mode(counts),
        "mtu": {n: _mode(v) for n, v in mtus.items()},
        "carrier_changes": {n: median(v) for n, v in changes.items()},
        "nic_gbps": _mode(rates),
    }


def check_hosts(
    raws: dict[str, dict[str, Any]], facts: dict[str, dict[str, Any]], exp: Expected
) -> dict[str, dict[str, Any]]:
    """Step 1 for every host that answered; hosts are compared with each other."""
    peers = peer_view(raws, exp)
    return {
        h: check_host(raw, facts.get(h) or {}, exp, peers).to_dict()
        for h, raw in sorted(raws.items())
    }


def traffic_limits(
    step1: dict[str, dict[str, Any]],
    expected_gbps: float | None,
    fraction: float,
    esp_rate_mbit: int = 0,
) -> tuple[Limits, list[str], int | None]:
    """The limits step 2 judges by, a finding when they differ from what was asked, and the
    iperf3 pacing rate to use instead of the configured one (None: keep it).

    Where hosts send IP through strongSwan's userspace ESP (the lab's IPsec data path), the
    encryption runs on the host's CPUs: paced above what it carries, a group measures how much
    CPU it got while the other groups ran at the same time, not its link, and groups that
    differ only in that blame healthy hosts. With `esp_rate_mbit` (iperf3), traffic is then
    paced at that rate, which the userspace path carries, and judged against it like any
    paced run; without it (nccl-tests), groups are judged against their peers only."""
    esp = sorted(h for h, r in step1.items() if isinstance(r, dict) and r.get("userspace_esp"))
    if not esp or expected_gbps is None:
        return Limits(expected_gbps, fraction), [], None
    where = (
        f"IP traffic runs through userspace ESP (strongSwan kernel-libipsec) on {', '.join(esp)}"
    )
    if esp_rate_mbit > 0:
        return (
            Limits(esp_rate_mbit / 1000, fraction),
            [
                f"{where}: paced at {esp_rate_mbit} Mbit/s (what encryption in userspace carries) "
                f"and judged against that, not the expected {expected_gbps:g} Gbit/s"
            ],
            esp_rate_mbit,
        )
    return (
        Limits(None, fraction),
        [f"{where}: rates judged against peers only, not the expected {expected_gbps:g} Gbit/s"],
        None,
    )
