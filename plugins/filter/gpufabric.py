"""Ansible filters over the gpufabric library (they run on the controller, where it is installed).

Modules run on the nodes, where gpufabric is not installed; the roles therefore gather raw
tool output on the node and parse/decide here. Each filter is a thin call into the library.
"""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleFilterError


def _lib() -> Any:
    """The library modules, imported on first use (an import error becomes one clear line)."""
    try:
        from gpufabric import errors
        from gpufabric.facts import decisions, fi_info, host, ibstat, sysctl
        from gpufabric.nccl import profiles
    except ImportError as exc:
        raise AnsibleFilterError(
            f"the gpufabric library is not importable ({exc}); run ansible-playbook from the "
            "project's venv (.venv/bin/ansible-playbook)") from None
    return errors, decisions, host, profiles, sysctl, ibstat, fi_info


def host_facts(raw: dict[str, Any], hostname: str = "") -> dict[str, Any]:
    """Raw collector output -> the gpufabric_facts dict."""
    errors, _decisions, host, _profiles, *_ = _lib()
    try:
        return host.summarize(raw, hostname)
    except errors.UserError as exc:
        raise AnsibleFilterError(f"{hostname}: {exc}") from None


def decision(facts: dict[str, Any], kind: str, fabric: str = "lab", *args: Any) -> dict[str, Any]:
    """{'run': bool, 'reason': str} for kind in efa | doca_ofed | hugepages | cpu_tuning."""
    errors, decisions, _host, _profiles, *_ = _lib()
    try:
        if kind == "efa":
            return decisions.efa(facts, fabric)
        if kind == "doca_ofed":
            return decisions.doca_ofed(facts, fabric)
        if kind == "hugepages":
            return decisions.hugepages(facts, int(args[0]) if args else 0)
        if kind == "cpu_tuning":
            return decisions.cpu_tuning(facts)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None
    raise AnsibleFilterError(f"gpufabric_decision: unknown kind {kind!r}")


def fabric_mismatch(facts: dict[str, Any], fabric: str) -> str:
    errors, decisions, _host, _profiles, *_ = _lib()
    try:
        return decisions.fabric_mismatch(facts, fabric)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None


def nccl_profile(facts: dict[str, Any], fabric: str, **kwargs: Any) -> dict[str, Any]:
    """The rendered NCCL profile (nccl.conf lines, env lines, sources) for this host."""
    errors, _decisions, _host, profiles, *_ = _lib()
    try:
        return profiles.render(facts, fabric, **kwargs)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None


def sysctl_plan(wanted: list[dict[str, Any]], probe: str) -> dict[str, Any]:
    """What host_tuning applies, skips (and why) and finds different, from its probe."""
    errors, *_rest, sysctl, _ibstat, _fi_info = _lib()
    try:
        return sysctl.plan(wanted, probe)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None


def ibstat_ports(text: str) -> list[dict[str, Any]]:
    """`ibstat` output -> [{device, port, state, link_layer, rate_gbps}] (doca_ofed verify)."""
    *_rest, ibstat, _fi_info = _lib()
    return [{"device": d.name, "port": p.number, "state": p.state, "link_layer": p.link_layer,
             "rate_gbps": p.rate_gbps} for d in ibstat.parse(text) for p in d.ports]


def efa_devices(text: str) -> list[str]:
    """`fi_info -p efa` output -> the EFA device names (efa verify)."""
    *_rest, fi_info = _lib()
    return list(fi_info.efa_devices(fi_info.parse(text)))


def run_summary(hostvars: dict[str, Any], host: str) -> str:
    """One line per host: what tune-fabric found and configured."""
    from gpufabric.facts import report  # same library; imported here like the others

    _lib()
    return report.run_summary(dict(hostvars), host)


class FilterModule:
    """gpufabric filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "gpufabric_host_facts": host_facts,
            "gpufabric_decision": decision,
            "gpufabric_fabric_mismatch": fabric_mismatch,
            "gpufabric_nccl_profile": nccl_profile,
            "gpufabric_sysctl_plan": sysctl_plan,
            "gpufabric_ibstat_ports": ibstat_ports,
            "gpufabric_efa_devices": efa_devices,
            "gpufabric_run_summary": run_summary,
        }
