"""What a healthy host of a fabric / instance type shows without traffic (catalog + health.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs import packaged
from gpufabric.vocabulary import FABRICS


@cache
def table() -> dict[str, Any]:
    return dict(packaged.load_yaml("gpufabric.health", "health.yaml"))


@dataclass(frozen=True)
class Expected:
    fabric: str
    nics: int | None = None  # fabric NICs (EFA devices, RDMA ports, lab netdevs) per host
    nic_gbps: float | None = None  # line rate of each
    mtu: int | None = None  # None: the peers' most common MTU
    gpu_model: str = ""
    gpu_pcie_gen: int | None = None
    gpu_pcie_width: int | None = None
    counters: dict[str, dict[str, Any]] = field(default_factory=dict)
    flap_over_peers: int = 10


def expected(fabric: str, instance_type: str = "", mtu: int | None = None) -> Expected:
    """Expectations for `fabric` (gpufabric.vocabulary.FABRICS) and an optional
    catalog instance type (its fabric NIC count and rate, its GPU's PCIe link)."""
    if fabric not in FABRICS:
        raise UserError(
            f"gpufabric_fabric: {fabric!r} is not valid; use one of {', '.join(FABRICS)}"
        )
    if mtu is not None and not 576 <= mtu <= 65535:
        raise UserError(
            f"fabric_health_mtu: {mtu!r} is not valid; use 576-65535 (or 0: peers' MTU)"
        )
    t = table()
    base: dict[str, Any] = {
        "fabric": fabric,
        "mtu": mtu,
        "counters": dict(t["counters"]),
        "flap_over_peers": int(t["flap_carrier_changes_over_peers"]),
    }
    if fabric == "lab":
        return Expected(**base, nics=int(t["lab"]["nics"]), nic_gbps=float(t["lab"]["nic_gbps"]))
    if not instance_type:
        return Expected(**base)
    from gpufabric.catalog import lookup  # pydantic only when an instance type is named

    it = lookup(instance_type, key="fabric_health_instance_type")
    if it.fabric != fabric:
        raise UserError(
            f"fabric_health_instance_type: {instance_type!r} has fabric {it.fabric}, "
            f"not gpufabric_fabric {fabric!r}; its NIC count and rate would judge the wrong fabric"
        )
    pcie = t["gpu_pcie"].get(it.gpu.model, {})
    return Expected(
        **base,
        nics=it.fabric_nics,
        nic_gbps=float(it.fabric_nic_gbps),
        gpu_model=it.gpu.model,
        gpu_pcie_gen=pcie.get("gen"),
        gpu_pcie_width=pcie.get("width", 16),
    )
