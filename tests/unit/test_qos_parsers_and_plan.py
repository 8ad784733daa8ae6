"""The QoS readers (`mlnx_qos -i`, `show_gids`) and the plan, edge by edge, on inline text.

The inline texts follow the real captures in mlnx_qos/ (ConnectX-5): same rows, same spacing.
"""

from __future__ import annotations

import re

import pytest

from gpufabric.errors import UserError
from gpufabric.qos import (
    Gid,
    QosSpec,
    QosState,
    TrafficClass,
    parse_mlnx_qos,
    parse_show_gids,
    plan_qos,
    roce_v2_gid_index,
)
from gpufabric.qos.plan import dcb_commands, mlnx_qos_args

PFC_ROWS = (
    "PFC configuration:\n"
    "        priority    0   1   2   3   4   5   6   7\n"
    "        enabled     0   0   0   1   0   0   0   0   \n"
    "        buffer      0   0   0   1   0   0   0   0   \n"
)
TCS = (
    "tc: 0 ratelimit: unlimited, tsa: ets, bw: 50%\n"
    "         priority:  0\n"
    "         priority:  1\n"
    "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%\n"
    "         priority:  3\n"
    "tc: 6 ratelimit: unlimited, tsa: vendor\n"
    "         priority:  6\n"
)
SMALL = "Priority trust state: dscp\n" + PFC_ROWS + TCS


# --- mlnx_qos -i ------------------------------------------------------------------------------


def test_minimal_output_parses_each_part() -> None:
    text = "DCBX mode: OS controlled\nPriority trust state: PCP\n" + PFC_ROWS + TCS
    state = parse_mlnx_qos(text)
    assert state == QosState(
        dcbx_mode="OS controlled",
        trust="pcp",
        dscp2prio={},
        pfc_enabled=(0, 0, 0, 1, 0, 0, 0, 0),
        tcs=(
            TrafficClass(tc=0, tsa="ets", bw_percent=50, priorities=(0, 1)),
            TrafficClass(tc=3, tsa="ets", bw_percent=50, priorities=(3,)),
            TrafficClass(tc=6, tsa="vendor", bw_percent=None, priorities=(6,)),
        ),
    )


def test_values_keep_what_follows_their_first_colon() -> None:
    state = parse_mlnx_qos("DCBX mode: vendor: fw 2\n" + SMALL)
    assert state.dcbx_mode == "vendor: fw 2"
    assert parse_mlnx_qos(SMALL).dcbx_mode is None


def test_tsa_is_read_in_lower_case() -> None:
    state = parse_mlnx_qos(SMALL.replace("tsa: vendor", "tsa: STRICT"))
    assert state.tcs[-1].tsa == "strict"


def test_dscp_rows_map_each_listed_dscp() -> None:
    rows = "dscp2prio mapping:\n        prio:3 dscp:27,26,\n        prio:6 dscp:48\n"
    assert parse_mlnx_qos(rows + SMALL).dscp2prio == {27: 3, 26: 3, 48: 6}


def test_lines_it_does_not_know_are_ignored_wherever_they_are() -> None:
    text = (
        "priority: 5\n"  # before any traffic class: belongs to none
        + SMALL
        + "Tail-drop: off\nenabled     1   1\nbuffer_size: 1024\n"
    )
    state = parse_mlnx_qos(text)
    assert state.pfc_enabled == (0, 0, 0, 1, 0, 0, 0, 0)  # the first 'enabled' row counts
    assert [tc.priorities for tc in state.tcs] == [(0, 1), (3,), (6,)]


@pytest.mark.parametrize(
    "row",
    [
        "        enabled     0   0   0   1   0   0   0\n",  # 7 flags
        "        enabled     0   0   0   1   0   0   0   0   1\n",  # 9 flags
        "        enabled     0   0   0   2   0   0   0   0\n",  # not a flag
        "        enabled     0   0   0   x   0   0   0   0\n",  # not a number
    ],
)
def test_a_pfc_row_without_eight_flags_is_a_user_error(row: str) -> None:
    text = SMALL.replace("        enabled     0   0   0   1   0   0   0   0   \n", row)
    with pytest.raises(UserError) as err:
        parse_mlnx_qos(text)
    assert str(err.value) == f"mlnx_qos output: expected 8 PFC flags, got {row.strip()!r}"


def test_a_priority_row_is_read_with_or_without_spaces() -> None:
    text = SMALL.replace("         priority:  3\n", "priority:3\n")
    assert parse_mlnx_qos(text).tc_of(3) == TrafficClass(3, "ets", 50, (3,))


@pytest.mark.parametrize(
    "row",
    ["priority: x", "priority:  3:4", "priority:", "priority: 8", "priority: 99999999999999999999"],
)
def test_a_priority_row_that_is_no_number_is_a_user_error(row: str) -> None:
    text = SMALL.replace("         priority:  3\n", f"         {row}\n")
    with pytest.raises(UserError) as err:
        parse_mlnx_qos(text)
    assert str(err.value) == f"mlnx_qos output: expected a priority number 0-7, got {row!r}"


def test_all_pfc_flags_on_parse() -> None:
    text = SMALL.replace("enabled     0   0   0   1   0   0   0   0", "enabled " + " 1" * 8)
    assert parse_mlnx_qos(text).pfc_priorities() == list(range(8))


@pytest.mark.parametrize(
    "text",
    [
        PFC_ROWS + TCS,  # no trust row
        "Priority trust state: dscp\n" + TCS,  # no PFC row
        "",
    ],
)
def test_output_missing_trust_or_pfc_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(UserError) as err:
        parse_mlnx_qos(text)
    assert str(err.value) == (
        "not mlnx_qos output: no 'Priority trust state' or PFC 'enabled' row "
        "(is the NIC a ConnectX with the mlx5 driver?)"
    )


def test_tc_of_finds_the_class_of_a_priority() -> None:
    state = parse_mlnx_qos(SMALL)
    assert state.tc_of(3) == TrafficClass(3, "ets", 50, (3,))
    assert state.tc_of(1) == TrafficClass(0, "ets", 50, (0, 1))
    assert state.tc_of(7) is None


# --- show_gids --------------------------------------------------------------------------------

GIDS = (
    "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n"
    "---     ----    -----   ---                                     ------------    ---     ---\n"
    "mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:c0a8:0684 192.168.6.132   v2      mce0\n"
    "mlx5_0  1       5       0000:0000:0000:0000:0000:ffff:c0a8:0687 192.168.6.135   v3      mce0\n"
    "mlx5_2  2       7       fe80:0000:0000:0000:9640:c9ff:fe8c:a09c                 v1\n"
    "mlx5_0  x       4       0000:0000:0000:0000:0000:ffff:c0a8:0685 192.168.6.133   v2      mce0\n"
    "mlx5_0  1       y       0000:0000:0000:0000:0000:ffff:c0a8:0686 192.168.6.134   v2      mce0\n"
    "mlx5_0  1       6       fe80:0000:0000:0000:9640:c9ff:fe8c:a09c\n"
    "n_gids_found=2\n"
)


def test_show_gids_rows_are_read_whole_and_other_rows_skipped() -> None:
    assert parse_show_gids(GIDS) == [
        Gid(
            "mlx5_0", 1, 3, "0000:0000:0000:0000:0000:ffff:c0a8:0684", "192.168.6.132", "v2", "mce0"
        ),
        Gid("mlx5_2", 2, 7, "fe80:0000:0000:0000:9640:c9ff:fe8c:a09c", None, "v1", None),
    ]


def test_an_ipv4_column_alone_is_not_a_gid_row() -> None:
    assert parse_show_gids("mlx5_0 1 3 fe80::1 10.0.0.1\n") == []


def test_the_gid_index_wants_v2_ipv4_on_the_netdev() -> None:
    def gid(index: int, version: str, ipv4: str | None, netdev: str | None) -> Gid:
        return Gid("mlx5_0", 1, index, "g", ipv4, version, netdev)

    gids = [
        gid(0, "v2", "10.0.0.1", "mce1"),  # another port
        gid(1, "v1", "10.0.0.2", "mce0"),  # RoCE v1
        gid(2, "v2", None, "mce0"),  # no IPv4 (link-local)
        gid(4, "v2", "10.0.0.2", "mce0"),
    ]
    assert roce_v2_gid_index(gids, "mce0") == 4
    assert roce_v2_gid_index(gids[:3], "mce0") is None
    assert roce_v2_gid_index([], "mce0") is None


# --- the spec ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"pfc_priority": 7},
        {"pfc_priority": 1},
        {"cnp_priority": 7},
        {"cnp_priority": 1},
        {"roce_dscp": 0},
        {"roce_dscp": 63},
        {"cnp_dscp": 0},
        {"cnp_dscp": 63},
        {"roce_bw_percent": 1},
        {"roce_bw_percent": 99},
    ],
)
def test_spec_edges_are_valid(kwargs: dict[str, int]) -> None:
    spec = QosSpec(**kwargs)
    for name, value in kwargs.items():
        assert getattr(spec, name) == value


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pfc_priority": 8}, "roce_qos_pfc_priority: 8 is not valid; use 0..7"),
        ({"pfc_priority": -1}, "roce_qos_pfc_priority: -1 is not valid; use 0..7"),
        ({"cnp_priority": 8}, "roce_qos_cnp_priority: 8 is not valid; use 0..7"),
        ({"cnp_priority": -1}, "roce_qos_cnp_priority: -1 is not valid; use 0..7"),
        ({"roce_dscp": 64}, "roce_qos_roce_dscp: 64 is not valid; use 0..63"),
        ({"roce_dscp": -1}, "roce_qos_roce_dscp: -1 is not valid; use 0..63"),
        ({"cnp_dscp": 64}, "roce_qos_cnp_dscp: 64 is not valid; use 0..63"),
        ({"cnp_dscp": -1}, "roce_qos_cnp_dscp: -1 is not valid; use 0..63"),
        (
            {"pfc_priority": 0},
            "roce_qos_pfc_priority: 0 is not valid; it must differ from 0 (default traffic) "
            "and from roce_qos_cnp_priority (6)",
        ),
        (
            {"pfc_priority": 5, "cnp_priority": 5},
            "roce_qos_pfc_priority: 5 is not valid; it must differ from 0 (default traffic) "
            "and from roce_qos_cnp_priority (5)",
        ),
        (
            {"cnp_priority": 0},
            "roce_qos_cnp_priority/cnp_dscp: CNP needs its own priority and DSCP",
        ),
        ({"cnp_dscp": 26}, "roce_qos_cnp_priority/cnp_dscp: CNP needs its own priority and DSCP"),
        ({"roce_bw_percent": 0}, "roce_qos_roce_bw_percent: 0 is not valid; use 1..99"),
        ({"roce_bw_percent": 100}, "roce_qos_roce_bw_percent: 100 is not valid; use 1..99"),
    ],
)
def test_bad_spec_names_the_setting(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(UserError, match=f"^{re.escape(message)}$"):
        QosSpec(**kwargs)


def test_default_spec_is_the_documented_target() -> None:
    spec = QosSpec()
    assert (spec.pfc_priority, spec.roce_dscp, spec.cnp_dscp, spec.cnp_priority) == (3, 26, 48, 6)
    assert spec.roce_bw_percent == 50
    assert spec.traffic_class_byte == 106


def test_spec_tables_for_ets() -> None:
    spec = QosSpec(pfc_priority=2, cnp_priority=5, roce_bw_percent=30)
    assert spec.prio_tc() == [0, 0, 2, 0, 0, 5, 0, 0]
    assert spec.tsa() == ["ets"] * 5 + ["strict"] + ["ets"] * 2
    assert spec.tc_bw() == [70, 0, 30, 0, 0, 0, 0, 0]


# --- the commands -----------------------------------------------------------------------------


def test_commands_for_the_default_spec() -> None:
    spec = QosSpec()
    assert mlnx_qos_args("mce0", spec) == [
        "mlnx_qos",
        "-i",
        "mce0",
        "--trust",
        "dscp",
        "--pfc",
        "0,0,0,1,0,0,0,0",
        "--dscp2prio",
        "set,26,3",
        "--dscp2prio",
        "set,48,6",
        "--prio_tc",
        "0,0,0,3,0,0,6,0",
        "--tsa",
        "ets,ets,ets,ets,ets,ets,strict,ets",
        "--tc_bw",
        "50,0,0,50,0,0,0,0",
    ]
    assert dcb_commands("mce0", spec) == [
        ["dcb", "app", "replace", "dev", "mce0", "dscp-prio", "26:3", "48:6"],
        ["dcb", "pfc", "set", "dev", "mce0", "prio-pfc", "all:off", "3:on"],
        [
            "dcb", "ets", "set", "dev", "mce0",
            "prio-tc", "0:0", "1:0", "2:0", "3:3", "4:0", "5:0", "6:6", "7:0",
            "tc-tsa", "0:ets", "1:ets", "2:ets", "3:ets", "4:ets", "5:ets", "6:strict", "7:ets",
            "tc-bw", "0:50", "1:0", "2:0", "3:50", "4:0", "5:0", "6:0", "7:0",
        ],
    ]  # fmt: skip


# --- the plan ---------------------------------------------------------------------------------


def _state(**changes: object) -> QosState:
    """The target state of the default spec, with `changes`."""
    base: dict[str, object] = {
        "dcbx_mode": None,
        "trust": "dscp",
        "dscp2prio": {26: 3, 48: 6},
        "pfc_enabled": (0, 0, 0, 1, 0, 0, 0, 0),
        "tcs": (
            TrafficClass(0, "ets", 50, (0, 1, 2, 4, 5, 7)),
            TrafficClass(3, "ets", 50, (3,)),
            TrafficClass(6, "strict", None, (6,)),
        ),
    }
    return QosState(**{**base, **changes})  # type: ignore[arg-type]


def test_target_state_with_strict_or_vendor_cnp_class_is_configured() -> None:
    assert plan_qos("mce0", "mlx5_core", _state(), QosSpec()).status == "configured"
    vendor = _state(tcs=(TrafficClass(3, "ets", 50, (3,)), TrafficClass(6, "vendor", None, (6,))))
    plan = plan_qos("mce0", "mlx5_core", vendor, QosSpec())
    assert (plan.status, plan.reasons, plan.mlnx_qos_args, plan.dcb_commands) == (
        "configured",
        [],
        [],
        [],
    )


def test_every_difference_is_a_reason() -> None:
    state = _state(
        trust="pcp",
        dscp2prio={26: 0},
        pfc_enabled=(0, 0, 0, 1, 1, 0, 0, 0),
        tcs=(TrafficClass(0, "ets", 100, (0, 1, 2, 3, 4, 5, 6, 7)),),
    )
    plan = plan_qos("mce0", "mlx5_core", state, QosSpec())
    assert plan.status == "change"
    assert plan.reasons == [
        "trust is pcp, want dscp",
        "PFC on priorities [3, 4], want [3]",
        "DSCP 26 maps to priority 0, want 3",
        "DSCP 48 maps to priority None, want 6",
        "priority 3 is not alone in its own traffic class",
        "CNP priority 6 is not in a strict-priority class",
    ]
    assert plan.mlnx_qos_args == mlnx_qos_args("mce0", QosSpec())
    assert plan.dcb_commands == dcb_commands("mce0", QosSpec())


@pytest.mark.parametrize(
    ("tcs", "reasons"),
    [
        (  # the RoCE and CNP priorities in no class at all
            (TrafficClass(0, "ets", 100, (0, 1)),),
            [
                "priority 3 is not alone in its own traffic class",
                "CNP priority 6 is not in a strict-priority class",
            ],
        ),
        (  # RoCE class strict, bandwidth right
            (TrafficClass(3, "strict", 50, (3,)), TrafficClass(6, "vendor", None, (6,))),
            ["RoCE tc 3 is strict 50%, want ets 50%"],
        ),
        (  # RoCE class ets, bandwidth wrong; CNP class ets
            (TrafficClass(3, "ets", 40, (3,)), TrafficClass(6, "ets", 10, (6,))),
            [
                "RoCE tc 3 is ets 40%, want ets 50%",
                "CNP priority 6 is not in a strict-priority class",
            ],
        ),
    ],
)
def test_traffic_class_differences(tcs: tuple[TrafficClass, ...], reasons: list[str]) -> None:
    plan = plan_qos("mce0", "mlx5_core", _state(tcs=tcs), QosSpec())
    assert (plan.status, plan.reasons) == ("change", reasons)


def test_port_without_mlx5_or_state_is_unsupported_with_its_reason() -> None:
    plan = plan_qos("eth0", None, _state(), QosSpec())
    assert (plan.status, plan.reasons) == (
        "unsupported",
        ["eth0: driver unknown is not mlx5_core (ConnectX)"],
    )
    assert plan.mlnx_qos_args == [] and plan.dcb_commands == []
    plan = plan_qos("eth0", "virtio_net", _state(), QosSpec())
    assert plan.reasons == ["eth0: driver virtio_net is not mlx5_core (ConnectX)"]
    plan = plan_qos("mce0", "mlx5_core", None, QosSpec())
    assert (plan.status, plan.reasons) == (
        "unsupported",
        ["mce0: mlnx_qos could not read the port's QoS state"],
    )
