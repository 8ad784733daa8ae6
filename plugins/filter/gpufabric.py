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
        from gpufabric.facts import decisions, host
        from gpufabric.nccl import profiles
    except ImportError as exc:
        raise AnsibleFilterError(
            f"the gpufabric library is not importable ({exc}); run ansible-playbook from the "
            "project's venv (.venv/bin/ansible-playbook)") from None
    return errors, decisions, host, profiles


def host_facts(raw: dict[str, Any], hostname: str = "") -> dict[str, Any]:
    """Raw collector output -> the gpufabric_facts dict."""
    errors, _decisions, host, _profiles = _lib()
    try:
        return host.summarize(raw, hostname)
    except errors.UserError as exc:
        raise AnsibleFilterError(f"{hostname}: {exc}") from None


def decision(facts: dict[str, Any], kind: str, fabric: str = "lab", *args: Any) -> dict[str, Any]:
    """{'run': bool, 'reason': str} for kind in efa | doca_ofed | hugepages | cpu_tuning."""
    errors, decisions, _host, _profiles = _lib()
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
    errors, decisions, _host, _profiles = _lib()
    try:
        return decisions.fabric_mismatch(facts, fabric)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None


def nccl_profile(facts: dict[str, Any], fabric: str, **kwargs: Any) -> dict[str, Any]:
    """The rendered NCCL profile (nccl.conf lines, env lines, sources) for this host."""
    errors, _decisions, _host, profiles = _lib()
    try:
        return profiles.render(facts, fabric, **kwargs)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None


class FilterModule:
    """gpufabric filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "gpufabric_host_facts": host_facts,
            "gpufabric_decision": decision,
            "gpufabric_fabric_mismatch": fabric_mismatch,
            "gpufabric_nccl_profile": nccl_profile,
        }
