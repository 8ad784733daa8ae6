"""roce_qos decisions on real `mlnx_qos -i` output (real captures, mlnx_qos/)."""

from __future__ import annotations

import pytest
from tests.conftest import FIXTURES, needs_captures

from gpufabric.errors import UserError
from gpufabric.qos import QosSpec, parse_mlnx_qos, plan_qos

CX5 = "mlnx_qos/mlnx_qos_cx5_dcbx_fw_dscp_pfc3.txt"


@pytest.fixture(scope="module")
def cx5_text() -> str:
    return (FIXTURES / CX5).read_text()  # its tests are marked needs_captures


@needs_captures
def test_parse_real_cx5_output(cx5_text: str) -> None:
    state = parse_mlnx_qos(cx5_text)
    assert state.dcbx_mode == "Firmware controlled"
    assert state.trust == "dscp"
    assert state.pfc_priorities() == [3]
    assert len(state.dscp2prio) == 64
    assert state.dscp2prio[26] == 3 and state.dscp2prio[48] == 6 and state.dscp2prio[0] == 0
    assert [(tc.tc, tc.tsa, tc.bw_percent) for tc in state.tcs] == [
        (0, "ets", 50),
        (3, "ets", 50),
        (6, "vendor", None),
    ]
    assert state.tcs[0].priorities == (0, 1, 2, 4, 5, 7)


@needs_captures
def test_already_configured_port_needs_nothing(cx5_text: str) -> None:
    plan = plan_qos("mce0", "mlx5_core", parse_mlnx_qos(cx5_text), QosSpec())
    assert plan.status == "configured"
    assert plan.mlnx_qos_args == [] and plan.dcb_commands == []


@needs_captures
def test_port_needs_change_for_another_priority(cx5_text: str) -> None:
    spec = QosSpec(pfc_priority=4, roce_bw_percent=60)
    plan = plan_qos("mce0", "mlx5_core", parse_mlnx_qos(cx5_text), spec)
    assert plan.status == "change"
    assert any("PFC on priorities [3], want [4]" in r for r in plan.reasons)
    assert any("DSCP 26 maps to priority 3, want 4" in r for r in plan.reasons)
    args = plan.mlnx_qos_args
    assert args[:3] == ["mlnx_qos", "-i", "mce0"]
    assert args[args.index("--pfc") + 1] == "0,0,0,0,1,0,0,0"
    assert args[args.index("--prio_tc") + 1] == "0,0,0,0,4,0,6,0"
    assert args[args.index("--tc_bw") + 1] == "40,0,0,0,60,0,0,0"
    assert args[args.index("--tsa") + 1].split(",")[6] == "strict"
    assert ["dcb", "pfc", "set", "dev", "mce0", "prio-pfc", "all:off", "4:on"] in plan.dcb_commands


@needs_captures
def test_pcp_trust_and_bandwidth_are_changes(cx5_text: str) -> None:
    text = cx5_text.replace("Priority trust state: dscp", "Priority trust state: pcp")
    plan = plan_qos("mce0", "mlx5_core", parse_mlnx_qos(text), QosSpec(roce_bw_percent=70))
    assert plan.status == "change"
    assert "trust is pcp, want dscp" in plan.reasons
    assert any("want ets 70%" in r for r in plan.reasons)


@needs_captures
def test_unsupported_nic_is_skipped(cx5_text: str) -> None:
    plan = plan_qos("eth0", "virtio_net", None, QosSpec())
    assert plan.status == "unsupported"
    assert "virtio_net" in plan.reasons[0]
    plan = plan_qos("eth0", "mlx5_core", None, QosSpec())
    assert plan.status == "unsupported"


def test_other_tool_output_is_rejected() -> None:
    with pytest.raises(UserError, match="not mlnx_qos output"):
        parse_mlnx_qos("Netlink error: Operation not supported\n")


def test_nccl_traffic_class_matches_dscp() -> None:
    assert QosSpec().traffic_class_byte == 106  # docs/sources.md E.1: DSCP 26 -> TC 106
    assert QosSpec(roce_dscp=24).traffic_class_byte == 98


@pytest.mark.parametrize(
    "kwargs",
    [{"pfc_priority": 8}, {"pfc_priority": 6}, {"roce_dscp": 64}, {"roce_bw_percent": 100},
     {"cnp_dscp": 26}],
)  # fmt: skip
def test_bad_spec_is_a_user_error(kwargs: dict[str, int]) -> None:
    with pytest.raises(UserError):
        QosSpec(**kwargs)


@needs_captures
def test_show_gids_real_output_gives_the_roce_v2_ipv4_index() -> None:
    from gpufabric.qos import parse_show_gids, roce_v2_gid_index

    gids = parse_show_gids((FIXTURES / "mlnx_qos" / "show_gids_cx5_roce_v1_v2.txt").read_text())
    assert len(gids) == 5  # n_gids_found=5
    assert [(g.index, g.version, g.ipv4) for g in gids if g.netdev == "mce0"] == [
        (0, "v1", None),
        (1, "v2", None),
        (2, "v1", "192.168.6.132"),
        (3, "v2", "192.168.6.132"),
    ]
    assert gids[-1].hca == "mlx5_1" and gids[-1].netdev is None
    assert roce_v2_gid_index(gids, "mce0") == 3
    assert roce_v2_gid_index(gids, "eth9") is None
