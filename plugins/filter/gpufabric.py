"""Ansible filters over the gpufabric library (they run on the controller, where it is installed).

Modules run on the nodes, where gpufabric is not installed; the roles therefore gather raw
tool output on the node and parse/decide here. Each filter is a thin call into the library.
The library modules are imported inside the filters (real imports, checked by pyright), so a
worker pays only for what its tasks use (pydantic only for the NCCL profile and QoS filters).
A library UserError becomes one AnsibleFilterError line; a missing library says to use the venv.
"""

from __future__ import annotations

import functools
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


# --- the cluster switches and the provider-native rule (gpufabric.stack_outputs) ----------


@_user
def switch_problem(value: Any, name: str) -> str:
    """'' when `value` is allowed for the switch `name` (gpufabric_fabric, ...), else one line."""
    from gpufabric.vocabulary import switch_problem as problem

    return problem(name, value)


@_user
def encryption_problem(mode: str, instance_type: str) -> str:
    """'' when `mode` may be used on `instance_type` (the catalog's in-transit fact), else why."""
    from gpufabric.catalog import lookup
    from gpufabric.vocabulary import encryption_problem as problem

    entry = lookup(instance_type, key="gpufabric_instance_type")
    return problem(mode, entry.name, entry.encryption_in_transit)


# --- host facts and decisions (gpufabric.facts), NCCL profiles (gpufabric.nccl) -----------


@_user
def gpg_fingerprint_check(colons: str, expected: str, key: str) -> str:
    """The downloaded key's fingerprint when it is the expected one; fails otherwise."""
    from gpufabric.facts.gpg import check_fingerprint

    return check_fingerprint(colons, expected, key)


@_user
def host_facts(raw: dict[str, Any], hostname: str = "") -> dict[str, Any]:
    """Raw collector output -> the gpufabric_facts dict."""
    from gpufabric.facts.host import summarize

    return summarize(raw, hostname)


@_user
def decision(facts: dict[str, Any], kind: str, fabric: str = "lab", *args: Any) -> dict[str, Any]:
    """{'run': bool, 'reason': str} for kind in efa | doca_ofed | hugepages | cpu_tuning."""
    from gpufabric.facts import decisions

    if kind == "efa":
        return decisions.efa(facts, fabric)
    if kind == "doca_ofed":
        return decisions.doca_ofed(facts, fabric)
    if kind == "hugepages":
        return decisions.hugepages(facts, int(args[0]) if args else 0)
    if kind == "cpu_tuning":
        return decisions.cpu_tuning(facts)
    raise AnsibleFilterError(f"gpufabric_decision: unknown kind {kind!r}")


@_user
def fabric_mismatch(facts: dict[str, Any], fabric: str) -> str:
    from gpufabric.facts.decisions import fabric_mismatch as mismatch

    return mismatch(facts, fabric)


@_user
def fabric_nics(facts: dict[str, Any], instance_type: str) -> dict[str, Any]:
    """Which RDMA devices are the instance type's fabric NICs, up or not, and which are not."""
    from gpufabric.facts.cloud_nics import classify

    return classify(facts, instance_type)


@_user
def roce_fabric_ports(
    found: list[str], interfaces: list[str], devices: list[str], instance_type: str = ""
) -> list[str]:
    """roce_qos: the netdevs to configure from its probe lines ('netdev rdma-device')."""
    from gpufabric.facts.cloud_nics import roce_ports

    return roce_ports(found, interfaces, devices, instance_type)


@_user
def nccl_profile(facts: dict[str, Any], fabric: str, **kwargs: Any) -> dict[str, Any]:
    """The rendered NCCL profile (nccl.conf lines, env lines, sources) for this host."""
    from gpufabric.nccl.profiles import render

    return render(facts, fabric, **kwargs)


@_user
def sysctl_plan(wanted: list[dict[str, Any]], probe: str) -> dict[str, Any]:
    """What host_tuning applies, skips (and why) and finds different, from its probe."""
    from gpufabric.facts.sysctl import plan

    return plan(wanted, probe)


@_user
def ibstat_ports(text: str) -> list[dict[str, Any]]:
    """`ibstat` output -> [{device, port, state, link_layer, rate_gbps}] (doca_ofed verify)."""
    from gpufabric.facts.ibstat import parse

    return [
        {
            "device": d.name,
            "port": p.number,
            "state": p.state,
            "link_layer": p.link_layer,
            "rate_gbps": p.rate_gbps,
        }
        for d in parse(text)
        for p in d.ports
    ]


@_user
def efa_devices(text: str) -> list[str]:
    """`fi_info -p efa` output -> the EFA device names (efa verify)."""
    from gpufabric.facts import fi_info

    return list(fi_info.efa_devices(fi_info.parse(text)))


@_user
def run_summary(hostvars: Any, host: str) -> str:
    """One line per host: what tune-fabric found and configured."""
    from gpufabric.facts.report import run_summary as summary

    return summary(dict(hostvars), host)


# --- the ipsec role (gpufabric.ipsec) ----------------------------------------------------


@_user
def ipsec_proposal_problems(value: str, kind: str) -> list[str]:
    from gpufabric.ipsec import proposals

    return proposals.proposal_problems(value, kind)  # type: ignore[arg-type]


@_user
def ipsec_datapath_plan(facts: dict[str, Any]) -> dict[str, Any]:
    """facts: datapath, offload, per_cpu, vendor, device, ethtool_k, strongswan, kernel."""
    from gpufabric.ipsec import offload

    plan = offload.plan_datapath(
        datapath=facts["datapath"],
        offload=facts["offload"],
        per_cpu=facts["per_cpu"],
        model=offload.nic_model(facts.get("vendor", ""), facts.get("device", "")),
        esp_hw_offload=offload.esp_feature(facts.get("ethtool_k", "")),
        strongswan=facts["strongswan"],
        kernel=facts["kernel"],
    )
    return {"hw_offload": plan.hw_offload, "per_cpu_sas": plan.per_cpu_sas, "notes": plan.notes}


@_user
def ipsec_reissue_reason(
    cert: str,
    ca: str,
    pubkey: str,
    identity: str,
    addresses: list[str],
    renew_days: int,
    rotate: bool = False,
) -> str:
    """'' when the host certificate is still right, else why it must be re-issued."""
    from gpufabric.ipsec import certs

    if rotate:
        return "rotation requested (ipsec_rotate_certs)"
    return certs.reissue_reason(cert, ca, pubkey, identity, addresses, int(renew_days)) or ""


@_user
def ipsec_missing_peers(list_sas: str, peers: list[str]) -> list[str]:
    from gpufabric.ipsec import swanctl

    return swanctl.missing_peers(swanctl.parse_list_sas(list_sas), peers)


@_user
def swanctl_sas(list_sas: str) -> list[dict[str, Any]]:
    from gpufabric.ipsec import swanctl

    return [
        {
            "name": sa.name,
            "state": sa.state,
            "remote": sa.remote_addr,
            "up": sa.up,
            "children": [c.state for c in sa.children],
        }
        for sa in swanctl.parse_list_sas(list_sas)
    ]


@_user
def ipsec_capture_verdict(text: str, members: list[str]) -> dict[str, Any]:
    from gpufabric.ipsec import capture

    verdict = capture.classify(text, members)
    return {"esp": verdict.esp, "ike": verdict.ike, "plaintext": verdict.plaintext}


@_user
def ipsec_is_ipv4(value: Any) -> bool:
    """True for a plain IPv4 address literal (ansible_host may be a DNS name)."""
    from gpufabric.ipsec import members

    return members.plain_ipv4(value)


@_user
def ipsec_address(value: Any, what: str = "ipsec") -> str:
    from gpufabric.ipsec import members

    return members.ipv4(value, what)


@_user
def ipsec_fabric_network(cidr: Any, host_address: str) -> str:
    from gpufabric.ipsec import members

    return members.fabric_network(cidr, host_address, "ipsec_fabric_cidr")


@_user
def ipsec_guard_exempt(
    explicit: list[Any], found: list[Any], network: str, peers: list[str]
) -> list[str]:
    from gpufabric.ipsec import members

    return members.guard_exempt(explicit, found, network, peers)


@_user
def ipsec_guard_ipv6(own: list[Any], peers: list[Any]) -> list[str]:
    """IPv6 prefixes / addresses the guard blackholes (gpufabric.ipsec.members)."""
    from gpufabric.ipsec import members

    return members.guard_ipv6_networks(own, peers)


@_user
def ipsec_member_problems(names: list[str], hostvars: Any) -> list[str]:
    """Problems with the mesh members' addresses (gpufabric.ipsec.members), naming each host."""
    from gpufabric.ipsec import members

    found = []
    for name in names:
        host = hostvars[name]
        facts = host.get("ansible_facts") or {}
        reported = list(facts.get("all_ipv4_addresses") or [])
        default = (facts.get("default_ipv4") or {}).get("address")
        if default is not None and default not in reported:
            reported.append(default)  # the host's word too
        found.append(
            {"name": name, "address": host.get("__ipsec_address", ""), "reported": reported}
        )
    missing = [m["name"] for m in found if not m["address"] and not m["reported"]]
    problems = members.member_problems(m for m in found if m["name"] not in missing)
    return problems + [f"ipsec: {n} has no facts (was it in this play?)" for n in missing]


# --- the roce_qos role (gpufabric.qos) ---------------------------------------------------


def _qos_spec(spec: dict[str, Any]) -> Any:
    from gpufabric.qos import QosSpec

    return QosSpec(**{k: int(v) for k, v in spec.items()})


@_user
def roce_qos_plan(
    mlnx_qos_text: str, port: str, driver: str, spec: dict[str, Any]
) -> dict[str, Any]:
    """status (configured | change | unsupported), reasons, mlnx_qos argv, dcb argvs."""
    from gpufabric.errors import UserError
    from gpufabric.qos import parse_mlnx_qos, plan_qos

    qspec = _qos_spec(spec)
    try:
        state = parse_mlnx_qos(mlnx_qos_text) if mlnx_qos_text.strip() else None
    except UserError:  # not mlnx_qos output (tool error): the port is unsupported
        state = None
    plan = plan_qos(port, driver, state, qspec)
    return {
        "status": plan.status,
        "reasons": plan.reasons,
        "mlnx_qos_args": plan.mlnx_qos_args,
        "dcb_commands": plan.dcb_commands,
    }


@_user
def roce_qos_plans(
    texts: list[str], ports: list[str], spec: dict[str, Any]
) -> list[dict[str, Any]]:
    """roce_qos_plan for each (mlnx_qos output, port) of detected mlx5_core ports."""
    return [
        roce_qos_plan(text, port, "mlx5_core", spec)
        for text, port in zip(texts, ports, strict=True)
    ]


@_user
def roce_qos_commands(port: str, spec: dict[str, Any], tool: str) -> list[list[str]]:
    """The full set of commands that put `port` in the target state with `tool`."""
    from gpufabric.qos.plan import dcb_commands, mlnx_qos_args

    qspec = _qos_spec(spec)
    return [mlnx_qos_args(port, qspec)] if tool == "mlnx_qos" else dcb_commands(port, qspec)


@_user
def roce_qos_nccl_env(spec: dict[str, Any], show_gids: str, port: str) -> dict[str, Any]:
    """NCCL settings that match this QoS: NCCL_IB_TC, NCCL_IB_SL, NCCL_IB_GID_INDEX."""
    from gpufabric.qos import parse_show_gids, roce_v2_gid_index

    qspec = _qos_spec(spec)
    env: dict[str, Any] = {"NCCL_IB_TC": qspec.traffic_class_byte, "NCCL_IB_SL": qspec.pfc_priority}
    index = roce_v2_gid_index(parse_show_gids(show_gids), port)
    if index is not None:
        env["NCCL_IB_GID_INDEX"] = index
    return env


# --- node reports of the fabric position (gpufabric.topology.load) -----------------------


@_user
def topology_node_reports(
    answers: dict[str, Any], source: str, json_documents: bool = True
) -> dict[str, Any]:
    """Each node's metadata answer (node -> text), checked and parsed before it is written."""
    from gpufabric.topology.load import node_reports

    return node_reports(source, answers, json_documents=json_documents)


class FilterModule:
    """gpufabric filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "gpufabric_switch_problem": switch_problem,
            "gpufabric_encryption_problem": encryption_problem,
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
            "gpufabric_ipsec_proposal_problems": ipsec_proposal_problems,
            "gpufabric_ipsec_datapath_plan": ipsec_datapath_plan,
            "gpufabric_ipsec_reissue_reason": ipsec_reissue_reason,
            "gpufabric_ipsec_missing_peers": ipsec_missing_peers,
            "gpufabric_swanctl_sas": swanctl_sas,
            "gpufabric_ipsec_capture_verdict": ipsec_capture_verdict,
            "gpufabric_ipsec_is_ipv4": ipsec_is_ipv4,
            "gpufabric_ipsec_address": ipsec_address,
            "gpufabric_ipsec_fabric_network": ipsec_fabric_network,
            "gpufabric_ipsec_member_problems": ipsec_member_problems,
            "gpufabric_ipsec_guard_exempt": ipsec_guard_exempt,
            "gpufabric_ipsec_guard_ipv6": ipsec_guard_ipv6,
            "gpufabric_roce_qos_plan": roce_qos_plan,
            "gpufabric_roce_qos_plans": roce_qos_plans,
            "gpufabric_roce_qos_commands": roce_qos_commands,
            "gpufabric_roce_qos_nccl_env": roce_qos_nccl_env,
            "gpufabric_topology_node_reports": topology_node_reports,
        }
