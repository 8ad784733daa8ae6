"""Ansible filters of the fabric_health role: thin calls into gpufabric.health (on the controller).

Values coming from Ansible are copied into plain JSON data first, so the library never sees
Ansible's own types (and the bisection state it returns is a fresh object each round).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

from ansible.errors import AnsibleFilterError

F = TypeVar("F", bound=Callable[..., Any])


def _user(fn: F) -> F:
    """UserError -> one-line AnsibleFilterError; no gpufabric library -> say which Python."""

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            from gpufabric.errors import UserError
        except ImportError as exc:
            raise AnsibleFilterError(
                f"the gpufabric library is not importable ({exc}); run ansible-playbook from the "
                "project's venv (.venv/bin/ansible-playbook)"
            ) from None
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            raise AnsibleFilterError(str(exc)) from None

    return wrapped  # type: ignore[return-value]


def _plain(value: Any) -> Any:
    from gpufabric.inputs.formats import parse_json

    return parse_json(json.dumps(value, default=str), where="Ansible host variables")


def _hostvar(hostvars: Any, host: str, name: str, default: Any = None) -> Any:
    try:
        return _plain(hostvars[host].get(name, default))
    except KeyError:
        return default


@_user
def checks(
    hostvars: Any, hosts: list[str], fabric: str, instance_type: str = "", mtu: int = 0
) -> dict[str, Any]:
    """Step 1 for every host that answered (collector output + gpufabric_facts)."""
    from gpufabric.inputs.errors import InputError
    from gpufabric.inputs.formats import parse_json

    raws: dict[str, Any] = {}
    facts: dict[str, Any] = {}
    for h in _plain(hosts):
        reg = _hostvar(hostvars, h, "__fabric_health_collect") or {}
        try:
            raws[h] = parse_json(reg.get("stdout") or "", where=f"{h}: health collector output")
        except InputError:
            continue  # no answer: reported as unreachable
        facts[h] = _hostvar(hostvars, h, "gpufabric_facts") or {}
    from gpufabric.health.checks import check_hosts
    from gpufabric.health.expect import expected

    exp = expected(str(fabric), str(instance_type or ""), int(mtu) or None)
    return check_hosts(raws, facts, exp)


@_user
def start(
    step1: dict[str, Any], expected_gbps: float = 0, fraction: float = 0.7, esp_rate_mbit: int = 0
) -> dict[str, Any]:
    """The bisection over every host that answered step 1 (hosts bad in step 1 still carry
    traffic: they can still prove others good, and a slow link is worth naming too). Its
    `rate_mbit`, when set, is the iperf3 pacing rate this run must use (userspace ESP)."""
    results = _plain(step1)
    from gpufabric.health import bisect
    from gpufabric.health.checks import traffic_limits

    limits, findings, rate = traffic_limits(
        results, float(expected_gbps) or None, float(fraction), int(esp_rate_mbit)
    )
    state = bisect.start(list(results), limits)
    state["findings"] = findings + state["findings"]
    if rate is not None:
        state["rate_mbit"] = rate
    return state


@_user
def plan(state: dict[str, Any]) -> dict[str, Any]:
    from gpufabric.health import bisect

    st = _plain(state)
    bisect.plan(st)
    return st


@_user
def commands(
    state: dict[str, Any], tool: str, hostvars: Any, options: dict[str, Any]
) -> dict[str, Any]:
    """Host -> the argv lists it runs this round."""
    tests = _plain(state)["pending"]
    opts = _plain(options)
    from gpufabric.health import traffic

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


@_user
def record(
    state: dict[str, Any], tool: str, hostvars: Any, options: dict[str, Any]
) -> dict[str, Any]:
    """Judge this round from every host's registered command outputs."""
    st = _plain(state)
    opts = _plain(options)
    from gpufabric.health import bisect, traffic

    hosts = {h for t in st["pending"] for h in t["hosts"]}
    outputs = {h: traffic.outputs_of(_hostvar(hostvars, h, "__fabric_health_out")) for h in hosts}
    if tool == "iperf3":
        results = traffic.iperf3_results(st["pending"], outputs, float(opts["interval"]))
    else:
        results = traffic.nccl_results(st["pending"], outputs, int(opts["repeats"]))
    return bisect.record(st, results)


@_user
def report(
    hosts: list[str],
    step1: dict[str, Any],
    state: dict[str, Any],
    actions: list[dict[str, Any]] | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    from gpufabric.health.report import build

    return build(
        _plain(hosts),
        _plain(step1),
        _plain(state),
        _plain(actions or []),
        _plain(meta or {}),
    )


@_user
def slurm_actions(rep: dict[str, Any], scontrol_text: str, prefix: str) -> list[dict[str, Any]]:
    from gpufabric.health import act

    return act.plan_slurm(
        _plain(rep)["hosts"], act.parse_scontrol_nodes(str(scontrol_text)), str(prefix)
    )


@_user
def slurm_unapplied(actions: list[dict[str, Any]], scontrol_text: str) -> list[str]:
    from gpufabric.health import act

    return act.slurm_unapplied(_plain(actions), act.parse_scontrol_nodes(str(scontrol_text)))


@_user
def k8s_actions(
    rep: dict[str, Any], kubectl_json: str, kubectl: str, key: str
) -> list[dict[str, Any]]:
    from gpufabric.health import act

    return act.plan_k8s(
        _plain(rep)["hosts"], act.parse_kubectl_nodes(str(kubectl_json)), str(kubectl), str(key)
    )


@_user
def html(rep: dict[str, Any]) -> str:
    from gpufabric.health.report import render_html

    return render_html(_plain(rep))


@_user
def text(rep: dict[str, Any]) -> str:
    from gpufabric.health.report import text as report_text

    return report_text(_plain(rep))


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
