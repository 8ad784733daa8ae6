"""Ansible filters of the fabric_health role: thin calls into gpufabric.health (on the controller).

Values coming from Ansible are copied into plain JSON data first, so the library never sees
Ansible's own types (and the bisection state it returns is a fresh object each round).
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from ansible.errors import AnsibleFilterError


def _lib(module: str) -> Any:
    try:
        return importlib.import_module(f"gpufabric.{module}")
    except ImportError as exc:
        raise AnsibleFilterError(
            f"the gpufabric library is not importable ({exc}); run ansible-playbook from the "
            "project's venv (.venv/bin/ansible-playbook)"
        ) from None


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _hostvar(hostvars: Any, host: str, name: str, default: Any = None) -> Any:
    try:
        return _plain(hostvars[host].get(name, default))
    except KeyError:
        return default


def _call(module: str, func: str, *args: Any, **kwargs: Any) -> Any:
    errors = _lib("errors")
    try:
        return getattr(_lib(module), func)(*args, **kwargs)
    except errors.UserError as exc:
        raise AnsibleFilterError(str(exc)) from None


def checks(
    hostvars: Any, hosts: list[str], fabric: str, instance_type: str = "", mtu: int = 0
) -> dict[str, Any]:
    """Step 1 for every host that answered (collector output + gpufabric_facts)."""
    raws: dict[str, Any] = {}
    facts: dict[str, Any] = {}
    for h in _plain(hosts):
        reg = _hostvar(hostvars, h, "__fabric_health_collect") or {}
        try:
            raws[h] = json.loads(reg.get("stdout") or "")
        except ValueError:
            continue  # no answer: reported as unreachable
        facts[h] = _hostvar(hostvars, h, "gpufabric_facts") or {}
    exp = _call(
        "health.expect", "expected", str(fabric), str(instance_type or ""), int(mtu) or None
    )
    return _call("health.checks", "check_hosts", raws, facts, exp)


def start(step1: dict[str, Any], expected_gbps: float = 0, fraction: float = 0.7) -> dict[str, Any]:
    """The bisection over every host that answered step 1 (hosts bad in step 1 still carry
    traffic: they can still prove others good, and a slow link is worth naming too)."""
    ok = list(_plain(step1))
    limits = _call("health.judge", "Limits", float(expected_gbps) or None, float(fraction))
    return _call("health.bisect", "start", ok, limits)


def plan(state: dict[str, Any]) -> dict[str, Any]:
    st = _plain(state)
    _call("health.bisect", "plan", st)
    return st


def commands(
    state: dict[str, Any], tool: str, hostvars: Any, options: dict[str, Any]
) -> dict[str, Any]:
    """Host -> the argv lists it runs this round."""
    tests = _plain(state)["pending"]
    opts = _plain(options)
    traffic = _lib("health.traffic")
    if tool == "iperf3":
        hosts = {h for t in tests for h in t["hosts"]}
        addresses = {h: str(_hostvar(hostvars, h, "ansible_host", h)) for h in hosts}
        return traffic.iperf3_commands(
            tests,
            addresses,
            int(opts["port"]),
            int(opts["seconds"]),
            float(opts["interval"]),
            int(opts["rate_mbit"]),
        )
    if tool == "nccl-tests":
        return traffic.nccl_commands(
            tests,
            int(opts["gpus_per_host"]),
            int(opts["repeats"]),
            str(opts["mpirun"]),
            str(opts["binary"]),
            str(opts["size"]),
        )
    raise AnsibleFilterError(
        f"fabric_health_traffic: {tool!r} is not valid; use iperf3 or nccl-tests"
    )


def record(
    state: dict[str, Any], tool: str, hostvars: Any, options: dict[str, Any]
) -> dict[str, Any]:
    """Judge this round from every host's registered command outputs."""
    st = _plain(state)
    opts = _plain(options)
    traffic = _lib("health.traffic")
    hosts = {h for t in st["pending"] for h in t["hosts"]}
    outputs = {h: traffic.outputs_of(_hostvar(hostvars, h, "__fabric_health_out")) for h in hosts}
    if tool == "iperf3":
        results = traffic.iperf3_results(st["pending"], outputs, float(opts["interval"]))
    else:
        results = traffic.nccl_results(st["pending"], outputs, int(opts["repeats"]))
    return _call("health.bisect", "record", st, results)


def report(
    hosts: list[str],
    step1: dict[str, Any],
    state: dict[str, Any],
    actions: list[dict[str, Any]] | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return _call(
        "health.report",
        "build",
        _plain(hosts),
        _plain(step1),
        _plain(state),
        _plain(actions or []),
        _plain(meta or {}),
    )


def slurm_actions(rep: dict[str, Any], scontrol_text: str, prefix: str) -> list[dict[str, Any]]:
    act = _lib("health.act")
    return act.plan_slurm(
        _plain(rep)["hosts"], act.parse_scontrol_nodes(str(scontrol_text)), str(prefix)
    )


def slurm_unapplied(actions: list[dict[str, Any]], scontrol_text: str) -> list[str]:
    act = _lib("health.act")
    return act.slurm_unapplied(_plain(actions), act.parse_scontrol_nodes(str(scontrol_text)))


def k8s_actions(
    rep: dict[str, Any], kubectl_json: str, kubectl: str, key: str
) -> list[dict[str, Any]]:
    act = _lib("health.act")
    return act.plan_k8s(
        _plain(rep)["hosts"], act.parse_kubectl_nodes(str(kubectl_json)), str(kubectl), str(key)
    )


def html(rep: dict[str, Any]) -> str:
    return _call("health.report", "render_html", _plain(rep))


def text(rep: dict[str, Any]) -> str:
    return _call("health.report", "text", _plain(rep))


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "gpufabric_health_checks": checks,
            "gpufabric_health_start": start,
            "gpufabric_health_plan": plan,
            "gpufabric_health_commands": commands,
            "gpufabric_health_record": record,
            "gpufabric_health_report": report,
            "gpufabric_health_slurm_actions": slurm_actions,
            "gpufabric_health_slurm_unapplied": slurm_unapplied,
            "gpufabric_health_k8s_actions": k8s_actions,
            "gpufabric_health_html": html,
            "gpufabric_health_text": text,
        }
