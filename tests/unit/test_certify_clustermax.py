"""ClusterMAX's three networking checks as certify applies them to one /etc/nccl.conf, case by
case and word for word: how the file is read (comments, quotes, spaces, the last line
winning), the pins named, the GID index on RoCE v2 hosts only, and the queue pairs judged only
on a multi-tier RDMA fabric, the job environment first."""

from __future__ import annotations

import pytest

from gpufabric.certify.clustermax import Finding, autoconfig, gid_index, parse_conf, qps


def test_nccl_conf_is_read_as_platform_config_reads_it() -> None:
    text = (
        "# header = ignored\n"
        "NCCL_A=1\n"
        "  NCCL_B = two  # trailing comment\n"
        'NCCL_C="quoted"\n'
        "NCCL_D='single'\n"
        "no equals sign here\n"
        "=empty key\n"
        "NCCL_A=last wins\n"
        "NCCL_E==mlx5_0:1\n"
        "\n"
    )
    assert parse_conf(text) == {
        "NCCL_A": "last wins",
        "NCCL_B": "two",
        "NCCL_C": "quoted",
        "NCCL_D": "single",
        "": "empty key",
        "NCCL_E": "=mlx5_0:1",
    }
    assert parse_conf("") == {}


def test_autoconfig_names_every_pin_once_in_order() -> None:
    found = autoconfig(
        "NCCL_PROTO=Simple\nNCCL_ALGO=Ring\n# NCCL_ALGO was Tree\nNCCL_MIN_NCHANNELS=4\n"
    )
    assert found == Finding(
        "nccl-autoconfig",
        "fail",
        "/etc/nccl.conf names NCCL_ALGO, NCCL_MIN_NCHANNELS, NCCL_PROTO (pins NCCL's tuning for "
        "every job): move a vendor-required pin to the job environment",
    )
    assert autoconfig("") == Finding(
        "nccl-autoconfig", "pass", "no algorithm, protocol or channel pin"
    )
    assert autoconfig("MY_NCCL_ALGO_NOTE=x\n").status == "fail"  # a substring, as cmax greps


def test_the_gid_index_is_judged_on_roce_v2_hosts_only() -> None:
    assert gid_index("", roce_v2=False) == Finding(
        "nccl-gid-index", "not_applicable", "no RoCE v2 port"
    )
    assert gid_index("NCCL_IB_GID_INDEX=5\n", roce_v2=False).status == "not_applicable"
    assert gid_index("", roce_v2=True) == Finding(
        "nccl-gid-index", "fail", "NCCL_IB_GID_INDEX not set on a RoCE v2 host"
    )
    assert gid_index("NCCL_IB_GID_INDEX=3\n", roce_v2=True) == Finding(
        "nccl-gid-index", "pass", "NCCL_IB_GID_INDEX=3"
    )
    assert gid_index("x=1\n  NCCL_IB_GID_INDEX = 3\n", roce_v2=True).status == "pass"
    assert gid_index("NCCL_IB_GID_INDEX=7\nNCCL_IB_GID_INDEX=3\n", roce_v2=True) == Finding(
        "nccl-gid-index",
        "warning",
        "NCCL_IB_GID_INDEX=7, ClusterMAX expects 3 on RoCE v2 (right only if this host's RoCE "
        "v2 GID sits at that index: show_gids)",
    )  # the first line, as grep -oP ... | head reads it


def test_an_unset_gid_index_is_no_fault_where_the_profile_leaves_it_to_the_net_plugin() -> None:
    """A plugin such as gIB picks its RoCE v2 GID itself; its profile writes no index."""
    assert gid_index("", roce_v2=True, profile_sets_it=False) == Finding(
        "nccl-gid-index", "not_applicable", "the profile leaves the GID to its net plugin"
    )
    assert gid_index("", roce_v2=False, profile_sets_it=False).detail == "no RoCE v2 port"
    assert gid_index("", roce_v2=True, profile_sets_it=True).status == "fail"
    assert gid_index("# NCCL_IB_GID_INDEX=3\n", roce_v2=True).status == "fail"


@pytest.mark.parametrize(
    ("conf", "env", "rdma", "nodes", "tiers", "want"),
    [
        ("", {}, False, 128, 3, ("not_applicable", "no RDMA device")),
        ("", {}, True, 8, 1, ("not_applicable", "single-tier fabric (8 node(s), 1 tier(s))")),
        (
            "",
            {},
            True,
            64,
            0,
            ("not_applicable", "single-tier fabric (64 node(s), unknown tier(s))"),
        ),
        (
            "",
            {},
            True,
            65,
            0,
            (
                "warning",
                "NCCL_IB_QPS_PER_CONNECTION=1 on a multi-tier fabric: set 2 (up to 4) on every rank",
            ),
        ),
        (
            "NCCL_IB_QPS_PER_CONNECTION=2\n",
            {},
            True,
            8,
            2,
            ("pass", "NCCL_IB_QPS_PER_CONNECTION=2"),
        ),
        (
            "NCCL_IB_QPS_PER_CONNECTION=4\n",
            {},
            True,
            8,
            3,
            ("pass", "NCCL_IB_QPS_PER_CONNECTION=4"),
        ),
        (
            "NCCL_IB_QPS_PER_CONNECTION=4\n",
            {"NCCL_IB_QPS_PER_CONNECTION": "1"},
            True,
            8,
            2,
            (
                "warning",
                "NCCL_IB_QPS_PER_CONNECTION=1 on a multi-tier fabric: set 2 (up to 4) on every rank",
            ),
        ),
        (
            "",
            {"NCCL_IB_QPS_PER_CONNECTION": "2"},
            True,
            8,
            2,
            ("pass", "NCCL_IB_QPS_PER_CONNECTION=2"),
        ),
        ("NCCL_IB_QPS_PER_CONNECTION=0\n", {}, True, 8, 2, ("warning", None)),
        ("NCCL_IB_QPS_PER_CONNECTION=two\n", {}, True, 8, 2, ("warning", None)),
        ("NCCL_IB_QPS_PER_CONNECTION=-2\n", {}, True, 8, 2, ("warning", None)),
        ("# NCCL_IB_QPS_PER_CONNECTION=2\n", {}, True, 8, 2, ("warning", None)),
    ],
)
def test_queue_pairs_on_a_multi_tier_rdma_fabric(conf, env, rdma, nodes, tiers, want) -> None:
    got = qps(conf, env, rdma, nodes, tiers)
    assert got.criterion == "nccl-ib-qps-entropy"
    assert got.status == want[0]
    if want[1] is not None:
        assert got.detail == want[1]
    else:  # not a positive number: NCCL's default, 1
        assert got.detail.startswith("NCCL_IB_QPS_PER_CONNECTION=1 on a multi-tier fabric")
