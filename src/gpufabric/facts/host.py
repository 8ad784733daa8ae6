"""Combine the raw tool output gathered on one host into the fact the roles use.

Input (`raw`) is what roles/fabric_facts/files/collect_fabric.py prints on the node: the
path of each tool found, each tool's stdout, and a few sysfs reads (PCI devices of the
vendors in pci.yaml, netdev/RDMA placement). Output is a plain dict (JSON-safe) exported as
the `gpufabric_facts` host fact.
"""

from __future__ import annotations

from dataclasses import asdict
from functools import cache
from typing import Any

from gpufabric.facts import fi_info, ibstat, ibv_devinfo, ip_link, nvidia_smi_topo
from gpufabric.facts.models import GpuTopology, IbDevice
from gpufabric.inputs import packaged


@cache
def pci_ids() -> dict[str, Any]:
    return packaged.load_yaml("gpufabric.facts", "pci.yaml")


def classify_pci(devices: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Split PCI devices ({address, vendor, device, class, numa_node}) into gpu/rdma_nic/efa."""
    ids = pci_ids()
    out: dict[str, list[dict[str, Any]]] = {"gpu": [], "rdma_nic": [], "efa": []}
    for dev in devices:
        vendor = str(dev.get("vendor", "")).lower()
        cls = str(dev.get("class", "")).lower()[:6]  # 0x030200 -> 0x0302
        device = str(dev.get("device", "")).lower()
        if vendor in ids["efa"]["vendors"] and device.startswith(ids["efa"]["device_prefix"]):
            out["efa"].append(dev)
        elif vendor in ids["gpu"]["vendors"] and cls in ids["gpu"]["classes"]:
            out["gpu"].append(dev)
        elif vendor in ids["rdma_nic"]["vendors"] and cls in ids["rdma_nic"]["classes"]:
            out["rdma_nic"].append(dev)
    return out


def summarize(raw: dict[str, Any], hostname: str = "") -> dict[str, Any]:
    """The `gpufabric_facts` dict for one host (see roles/fabric_facts/README.md)."""
    outputs: dict[str, str] = raw.get("outputs") or {}
    tools: dict[str, str] = raw.get("tools") or {}
    sysfs: dict[str, Any] = raw.get("sysfs") or {}

    topo = nvidia_smi_topo.parse(outputs.get("nvidia_smi_topo", ""))
    ib_devices = ibstat.parse(outputs.get("ibstat", ""))
    verbs = ibv_devinfo.parse(outputs.get("ibv_devinfo", ""))
    efa_domains = fi_info.parse(outputs.get("fi_info", ""))
    links = ip_link.parse(outputs.get("ip_link", ""))
    pci = classify_pci(list(sysfs.get("pci") or []))
    rdma_sysfs: dict[str, dict[str, Any]] = sysfs.get("infiniband") or {}
    net_sysfs: dict[str, dict[str, Any]] = sysfs.get("net") or {}

    rdma = _rdma_devices(ib_devices, verbs, rdma_sysfs)
    efa_names = sorted(
        {
            *fi_info.efa_devices(efa_domains),
            *(n for n, d in rdma_sysfs.items() if d.get("vendor") == "0x1d0f"),
        }
    )
    gpu_count = max(len(topo.gpus), len(pci["gpu"]))
    netdevs = [
        {
            **asdict(link),
            "numa_node": _int(net_sysfs.get(link.name, {}).get("numa_node")),
            "pci": net_sysfs.get(link.name, {}).get("pci", ""),
            "speed_mbps": _int(net_sysfs.get(link.name, {}).get("speed")),
        }
        for link in links
        if link.link_type != "loopback"
    ]
    facts: dict[str, Any] = {
        "hostname": hostname,
        "gpu_count": gpu_count,
        "gpus": [_gpu(g, topo) for g in topo.gpus],
        "gpu_pci": pci["gpu"],
        "rdma_devices": rdma,
        "efa_devices": efa_names,
        "efa_pci": pci["efa"],
        "rdma_nic_pci": pci["rdma_nic"],
        "netdevs": netdevs,
        "has_gpu": gpu_count > 0,
        "has_efa": bool(efa_names or pci["efa"]),
        "has_rdma": bool(rdma or efa_names or pci["efa"] or pci["rdma_nic"]),
        "ofed_version": str(raw.get("ofed_version") or "").strip(),
        "efa_installer_version": str(raw.get("efa_installer_version") or "").strip(),
        "tools": {name: path for name, path in sorted(tools.items()) if path},
    }
    facts["fabric_detected"] = detect_fabric(facts)
    facts["summary"] = one_line(facts)
    return facts


def detect_fabric(facts: dict[str, Any]) -> str:
    """efa | infiniband | roce | none, from the hardware actually found."""
    if facts["has_efa"]:
        return "efa"
    layers = {p["link_layer"] for d in facts["rdma_devices"] for p in d["ports"]}
    if "InfiniBand" in layers:
        return "infiniband"
    if "Ethernet" in layers:
        return "roce"
    return "none"


def one_line(facts: dict[str, Any]) -> str:
    """'h1: no GPU, no RDMA (fabric none); netdevs eth0 1500' style summary."""
    gpu = f"{facts['gpu_count']} GPU" if facts["has_gpu"] else "no GPU"
    if facts["has_efa"]:
        rdma = f"{len(facts['efa_devices']) or len(facts['efa_pci'])} EFA"
    elif facts["rdma_devices"]:
        rates = sorted(
            {p["rate_gbps"] for d in facts["rdma_devices"] for p in d["ports"] if p["rate_gbps"]}
        )
        rate = "/".join(f"{r:g}" for r in rates)
        rdma = f"{len(facts['rdma_devices'])} RDMA" + (f" @ {rate} Gb/s" if rate else "")
    else:
        rdma = "no RDMA"
    nets = ", ".join(f"{n['name']} mtu {n['mtu']}" for n in facts["netdevs"]) or "none"
    head = f"{facts['hostname']}: " if facts["hostname"] else ""
    return f"{head}{gpu}, {rdma} (fabric {facts['fabric_detected']}); netdevs {nets}"


def _rdma_devices(
    ib: tuple[IbDevice, ...], verbs: tuple[Any, ...], sysfs: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """RDMA devices from ibstat (rates) merged with ibv_devinfo (MTU, vendor) and sysfs."""
    by_verbs = {v.hca_id: v for v in verbs}
    names = [d.name for d in ib] + [v.hca_id for v in verbs if v.hca_id not in {d.name for d in ib}]
    out: list[dict[str, Any]] = []
    for name in names:
        dev = next((d for d in ib if d.name == name), None)
        v = by_verbs.get(name)
        if dev is not None:
            ports = [
                {
                    "number": p.number,
                    "state": p.state,
                    "link_layer": p.link_layer,
                    "rate_gbps": p.rate_gbps,
                }
                for p in dev.ports
            ]
        else:
            assert v is not None
            ports = [
                {
                    "number": p.number,
                    "state": p.state,
                    "link_layer": p.link_layer,
                    "rate_gbps": None,
                }
                for p in v.ports
            ]
        info = sysfs.get(name, {})
        out.append(
            {
                "name": name,
                "vendor_id": v.vendor_id if v else str(info.get("vendor", "")),
                "firmware": (dev.firmware if dev else "") or (v.fw_ver if v else ""),
                "ports": ports,
                "pci": info.get("pci", ""),
                "numa_node": _int(info.get("numa_node")),
                "netdevs": list(info.get("netdevs") or []),
            }
        )
    return out


def _gpu(g: Any, topo: GpuTopology) -> dict[str, Any]:
    return {
        "name": g.name,
        "cpu_affinity": g.cpu_affinity,
        "numa_node": g.numa_node,
        "nearest_nic": topo.nearest_nic(g.name),
    }


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
