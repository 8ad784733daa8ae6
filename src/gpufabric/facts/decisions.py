"""Role decisions taken from `gpufabric_facts`: run a hardware step here, or skip it and why.

Every decision is `{"run": bool, "reason": str}`; the reason is the one line a role prints
when it skips (hardware steps run only where the hardware is detected).
"""

from __future__ import annotations

from typing import Any

from gpufabric.errors import UserError
from gpufabric.vocabulary import FABRIC_TRAITS, switch_problem, traits


def _decision(run: bool, reason: str) -> dict[str, Any]:
    return {"run": run, "reason": reason}


def efa(facts: dict[str, Any], fabric: str) -> dict[str, Any]:
    """Install/verify the EFA software only on hosts with an EFA device."""
    check_fabric(fabric)
    if not facts.get("has_efa"):
        return _decision(
            False,
            f"efa: skipped, no EFA device on this host (PCI 1d0f:efa*, "
            f"fi_info -p efa); gpufabric_fabric={fabric}",
        )
    if traits(fabric).driver_role != "efa":
        return _decision(False, f"efa: skipped, EFA hardware found but gpufabric_fabric={fabric}")
    return _decision(
        True,
        f"efa: {len(facts.get('efa_devices') or facts.get('efa_pci') or [])} EFA device(s) found",
    )


def doca_ofed(facts: dict[str, Any], fabric: str) -> dict[str, Any]:
    """DOCA-OFED for InfiniBand/RoCE ConnectX hosts, unless the image already ships OFED."""
    check_fabric(fabric)
    mlx = [
        d
        for d in facts.get("rdma_devices") or []
        # ibv_devinfo's vendor id (0x02c9), or the PCI vendor sysfs gives (0x15b3) when only
        # ibstat lists the device, or none read
        if d.get("vendor_id") in ("0x02c9", "0x15b3", "")
        and not str(d.get("name", "")).startswith(("rdmap", "efa"))
    ]
    if not mlx and not facts.get("rdma_nic_pci"):
        return _decision(
            False,
            f"doca_ofed: skipped, no ConnectX/InfiniBand device on this host "
            f"(ibstat, ibv_devinfo, PCI 15b3); gpufabric_fabric={fabric}",
        )
    if traits(fabric).driver_role != "doca_ofed":
        served = " or ".join(f for f, t in FABRIC_TRAITS.items() if t.driver_role == "doca_ofed")
        return _decision(
            False,
            f"doca_ofed: skipped, ConnectX hardware found but "
            f"gpufabric_fabric={fabric} (only {served})",
        )
    if facts.get("ofed_version"):
        return _decision(
            False,
            f"doca_ofed: skipped install, the image already has "
            f"{facts['ofed_version']} (ofed_info -s)",
        )
    return _decision(
        True,
        f"doca_ofed: {len(mlx) or len(facts['rdma_nic_pci'])} ConnectX "
        "device(s) found and no OFED installed",
    )


def hugepages(facts: dict[str, Any], wanted: int) -> dict[str, Any]:
    """2 MiB hugepages only where EFA needs them (docs/sources.md A.2: 5128 x 2 MiB)."""
    if not facts.get("has_efa"):
        return _decision(False, "host_tuning: hugepages skipped, no EFA device on this host")
    return _decision(True, f"host_tuning: {wanted} x 2 MiB hugepages for the EFA driver")


def cpu_tuning(facts: dict[str, Any]) -> dict[str, Any]:
    """CPU governor settings only on hosts with GPUs or RDMA hardware."""
    if not (facts.get("has_gpu") or facts.get("has_rdma")):
        return _decision(
            False, "host_tuning: CPU governor skipped, no GPU or RDMA hardware on this host"
        )
    return _decision(True, "host_tuning: CPU governor set for GPU/RDMA hardware")


def fabric_mismatch(facts: dict[str, Any], fabric: str) -> str:
    """A warning line when the hardware found disagrees with gpufabric_fabric ('' if none)."""
    check_fabric(fabric)
    found = facts.get("fabric_detected", "none")
    expected = traits(fabric).detected_as
    if expected is None or found == expected:
        return ""
    return (
        f"gpufabric_fabric={fabric} but this host shows fabric {found} "
        "(hardware steps follow the hardware; check the inventory)"
    )


def check_fabric(fabric: str) -> str:
    problem = switch_problem("gpufabric_fabric", fabric)
    if problem:
        raise UserError(problem)
    return fabric
