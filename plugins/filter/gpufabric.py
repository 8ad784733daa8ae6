"""Ansible filters over the gpufabric library (they run on the controller, where it is installed).

Modules run on the nodes, where gpufabric is not installed; the roles therefore gather raw
tool output on the node and parse/decide here. Each filter is a thin call into the library,
importing only the library module it needs (workers import on first use; pydantic is only
paid for by the NCCL profile filter).
"""

from __future__ import annotations

import importlib
from typing import Any

from ansible.errors import AnsibleFilterError


def _lib(module: str) -> Any:
    """A gpufabric module; an import error becomes one clear line."""
    try:
        return importlib.import_module(f"gpufabric.{module}")
    except ImportError as exc:
        raise AnsibleFilterError(
            f"the gpufabric library is not importable ({exc}); run ansible-playbook from the "
            "project's venv (.venv/bin/ansible-playbook)"
        ) from None


def _call(module: str, func: str, *args: Any, **kwargs: Any) -> Any:
    """Call gpufabric.<module>.<func>; a UserError becomes an AnsibleFilterError (one line)."""
    errors = _lib("errors")
    try:
        return getattr(_lib(module), func)(*args, **kwargs)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None


def gpg_fingerprint_check(colons: str, expected: str, key: str) -> str:
    """The downloaded key's fingerprint when it is the expected one; fails otherwise."""
    return _call("node.gpg", "check_fingerprint", colons, expected, key)


def host_facts(raw: dict[str, Any], hostname: str = "") -> dict[str, Any]:
    """Raw collector output -> the gpufabric_facts dict."""
    return _call("facts.host", "summarize", raw, hostname)


def decision(facts: dict[str, Any], kind: str, fabric: str = "lab", *args: Any) -> dict[str, Any]:
    """{'run': bool, 'reason': str} for kind in efa | doca_ofed | hugepages | cpu_tuning."""
    if kind in ("efa", "doca_ofed"):
        return _call("facts.decisions", kind, facts, fabric)
    if kind == "hugepages":
        return _call("facts.decisions", "hugepages", facts, int(args[0]) if args else 0)
    if kind == "cpu_tuning":
        return _call("facts.decisions", "cpu_tuning", facts)
    raise AnsibleFilterError(f"gpufabric_decision: unknown kind {kind!r}")


def fabric_mismatch(facts: dict[str, Any], fabric: str) -> str:
    return _call("facts.decisions", "fabric_mismatch", facts, fabric)


def fabric_nics(facts: dict[str, Any], instance_type: str) -> dict[str, Any]:
    """Which RDMA devices are the instance type's fabric NICs, up or not, and which are not."""
    return _call("facts.cloud_nics", "classify", facts, instance_type)


def roce_fabric_ports(
    found: list[str], interfaces: list[str], devices: list[str], instance_type: str = ""
) -> list[str]:
    """roce_qos: the netdevs to configure from its probe lines ('netdev rdma-device')."""
    return _call("facts.cloud_nics", "roce_ports", found, interfaces, devices, instance_type)


def nccl_profile(facts: dict[str, Any], fabric: str, **kwargs: Any) -> dict[str, Any]:
    """The rendered NCCL profile (nccl.conf lines, env lines, sources) for this host."""
    return _call("node.nccl_profiles", "render", facts, fabric, **kwargs)


def sysctl_plan(wanted: list[dict[str, Any]], probe: str) -> dict[str, Any]:
    """What host_tuning applies, skips (and why) and finds different, from its probe."""
    return _call("facts.sysctl", "plan", wanted, probe)


def ibstat_ports(text: str) -> list[dict[str, Any]]:
    """`ibstat` output -> [{device, port, state, link_layer, rate_gbps}] (doca_ofed verify)."""
    devices = _call("facts.ibstat", "parse", text)
    return [
        {
            "device": d.name,
            "port": p.number,
            "state": p.state,
            "link_layer": p.link_layer,
            "rate_gbps": p.rate_gbps,
        }
        for d in devices
        for p in d.ports
    ]


def efa_devices(text: str) -> list[str]:
    """`fi_info -p efa` output -> the EFA device names (efa verify)."""
    fi_info = _lib("facts.fi_info")
    return list(fi_info.efa_devices(fi_info.parse(text)))


def run_summary(hostvars: Any, host: str) -> str:
    """One line per host: what tune-fabric found and configured."""
    return _call("facts.report", "run_summary", dict(hostvars), host)


class FilterModule:
    """gpufabric filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "gpufabric_gpg_fingerprint_check": gpg_fingerprint_check,
            "gpufabric_host_facts": host_facts,
            "gpufabric_decision": decision,
            "gpufabric_fabric_mismatch": fabric_mismatch,
            "gpufabric_fabric_nics": fabric_nics,
            "gpufabric_roce_fabric_ports": roce_fabric_ports,
            "gpufabric_nccl_profile": nccl_profile,
            "gpufabric_sysctl_plan": sysctl_plan,
            "gpufabric_ibstat_ports": ibstat_ports,
            "gpufabric_efa_devices": efa_devices,
            "gpufabric_run_summary": run_summary,
        }
