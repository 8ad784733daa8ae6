"""Filters of the ipsec role: thin wrappers over the gpufabric library (decisions live there)."""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleFilterError


def _user(fn: Any) -> Any:
    """Import the library on first use (not at plugin load) and turn UserError into one line."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            from gpufabric.errors import UserError
        except ImportError as exc:  # the controller must run Ansible from the project's venv
            raise AnsibleFilterError(
                f"the gpufabric library is not importable ({exc}); run ansible-playbook from "
                "the project venv (.venv/bin/ansible-playbook)"
            ) from exc
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            raise AnsibleFilterError(str(exc)) from exc

    wrapped.__name__ = fn.__name__
    return wrapped


@_user
def catalog_encryption(instance_type: str) -> str:
    """'native' | 'none' | 'unconfirmed' for an instance type (gpufabric.catalog)."""
    from gpufabric.catalog import lookup

    return lookup(instance_type, key="gpufabric_instance_type").encryption_in_transit


@_user
def proposal_problems(value: str, kind: str) -> list[str]:
    from gpufabric.ipsec import proposals

    return proposals.proposal_problems(value, kind)  # type: ignore[arg-type]


@_user
def datapath_plan(facts: dict[str, Any]) -> dict[str, Any]:
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
def reissue_reason(cert: str, ca: str, pubkey: str, identity: str, addresses: list[str],
                   renew_days: int, rotate: bool = False) -> str:  # fmt: skip
    """'' when the host certificate is still right, else why it must be re-issued."""
    from gpufabric.ipsec import certs

    if rotate:
        return "rotation requested (ipsec_rotate_certs)"
    return certs.reissue_reason(cert, ca, pubkey, identity, addresses, int(renew_days)) or ""


@_user
def missing_peers(list_sas: str, peers: list[str]) -> list[str]:
    from gpufabric.ipsec import swanctl

    return swanctl.missing_peers(swanctl.parse_list_sas(list_sas), peers)


@_user
def swanctl_sas(list_sas: str) -> list[dict[str, Any]]:
    from gpufabric.ipsec import swanctl

    return [
        {"name": sa.name, "state": sa.state, "remote": sa.remote_addr, "up": sa.up,
         "children": [c.state for c in sa.children]}
        for sa in swanctl.parse_list_sas(list_sas)
    ]  # fmt: skip


@_user
def capture_verdict(text: str, members: list[str]) -> dict[str, Any]:
    from gpufabric.ipsec import capture

    verdict = capture.classify(text, members)
    return {"esp": verdict.esp, "ike": verdict.ike, "plaintext": verdict.plaintext}


@_user
def is_ipv4(value: Any) -> bool:
    """True for a plain IPv4 address literal (ansible_host may be a DNS name)."""
    from gpufabric.ipsec import members

    return members.plain_ipv4(value)


@_user
def address(value: Any, what: str = "ipsec") -> str:
    from gpufabric.ipsec import members

    return members.ipv4(value, what)


@_user
def fabric_network(cidr: Any, host_address: str) -> str:
    from gpufabric.ipsec import members

    return members.fabric_network(cidr, host_address, "ipsec_fabric_cidr")


@_user
def guard_exempt(explicit: list[Any], found: list[Any], network: str,
                 peers: list[str]) -> list[str]:  # fmt: skip
    from gpufabric.ipsec import members

    return members.guard_exempt(explicit, found, network, peers)


@_user
def member_problems(names: list[str], hostvars: Any) -> list[str]:
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
        found.append({"name": name, "address": host.get("__ipsec_address", ""),
                      "reported": reported})  # fmt: skip
    missing = [m["name"] for m in found if not m["address"] and not m["reported"]]
    problems = members.member_problems(m for m in found if m["name"] not in missing)
    return problems + [f"ipsec: {n} has no facts (was it in this play?)" for n in missing]


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "gpufabric_catalog_encryption": catalog_encryption,
            "gpufabric_ipsec_proposal_problems": proposal_problems,
            "gpufabric_ipsec_datapath_plan": datapath_plan,
            "gpufabric_ipsec_reissue_reason": reissue_reason,
            "gpufabric_ipsec_missing_peers": missing_peers,
            "gpufabric_swanctl_sas": swanctl_sas,
            "gpufabric_ipsec_capture_verdict": capture_verdict,
            "gpufabric_ipsec_is_ipv4": is_ipv4,
            "gpufabric_ipsec_address": address,
            "gpufabric_ipsec_fabric_network": fabric_network,
            "gpufabric_ipsec_member_problems": member_problems,
            "gpufabric_ipsec_guard_exempt": guard_exempt,
        }
