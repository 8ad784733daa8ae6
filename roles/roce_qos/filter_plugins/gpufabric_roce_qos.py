"""Filters of the roce_qos role: thin wrappers over gpufabric.qos (decisions live there)."""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleFilterError


def _spec(spec: dict[str, Any]) -> Any:
    """The validated QosSpec; a bad value is one clear line (AnsibleFilterError)."""
    from gpufabric.errors import UserError
    from gpufabric.qos import QosSpec

    try:
        return QosSpec(**{k: int(v) for k, v in spec.items()})
    except UserError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def qos_plan(mlnx_qos_text: str, port: str, driver: str, spec: dict[str, Any]) -> dict[str, Any]:
    """status (configured | change | unsupported), reasons, mlnx_qos argv, dcb argvs."""
    from gpufabric.errors import UserError
    from gpufabric.qos import parse_mlnx_qos, plan_qos

    qspec = _spec(spec)
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


def qos_plans(texts: list[str], ports: list[str], spec: dict[str, Any]) -> list[dict[str, Any]]:
    """qos_plan for each (mlnx_qos output, port) of detected mlx5_core ports."""
    return [
        qos_plan(text, port, "mlx5_core", spec) for text, port in zip(texts, ports, strict=True)
    ]


def qos_commands(port: str, spec: dict[str, Any], tool: str) -> list[list[str]]:
    """The full set of commands that put `port` in the target state with `tool`."""
    from gpufabric.qos.plan import dcb_commands, mlnx_qos_args

    qspec = _spec(spec)
    return [mlnx_qos_args(port, qspec)] if tool == "mlnx_qos" else dcb_commands(port, qspec)


def nccl_env(spec: dict[str, Any], show_gids: str, port: str) -> dict[str, Any]:
    """NCCL settings that match this QoS: NCCL_IB_TC, NCCL_IB_SL, NCCL_IB_GID_INDEX."""
    from gpufabric.qos import parse_show_gids, roce_v2_gid_index

    qspec = _spec(spec)
    env: dict[str, Any] = {"NCCL_IB_TC": qspec.traffic_class_byte, "NCCL_IB_SL": qspec.pfc_priority}
    index = roce_v2_gid_index(parse_show_gids(show_gids), port)
    if index is not None:
        env["NCCL_IB_GID_INDEX"] = index
    return env


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {
            "gpufabric_roce_qos_plan": qos_plan,
            "gpufabric_roce_qos_plans": qos_plans,
            "gpufabric_roce_qos_commands": qos_commands,
            "gpufabric_roce_qos_nccl_env": nccl_env,
        }
