"""certify's collectives judge, case by case: which algorithm's bound applies (NCCL_ALGO from
the log, else the default table), what to do by a reason's first word, a run that passes only
with its transport proven, and the failures named word for word (no table, no row, node count
unknown, under the floor, a transport other than the fabric's). Real nccl-tests tables and
NCCL_DEBUG logs (the shared captures, tests/conftest.py)."""

from __future__ import annotations

import pytest
from tests.conftest import capture

from gpufabric.certify.limits import advice, algorithm, judge, table
from gpufabric.errors import UserError
from gpufabric.nccl.model import DebugInfo

P4DE = "nccl-tests/all_reduce_perf_2x_p4de_efa_srun_prefix.txt"
IB_LOG = "nccl-debug/net_ib_8hca_ib.txt"


def algo(env: str | None, collective: str = "all_reduce", nodes: int = 2) -> str:
    debug = DebugInfo(env={} if env is None else {"NCCL_ALGO": env})
    return algorithm(debug, collective, nodes)


def test_the_default_algorithm_is_tree_for_a_two_node_all_reduce_only() -> None:
    assert algo(None) == "tree"
    assert algo(None, nodes=3) == "ring"
    assert algo(None, "all_gather") == "ring"
    assert algo(None, nodes=1) == algo("Ring", nodes=1) == "intra_node"
    assert algo(None, nodes=0) == "intra_node"


@pytest.mark.parametrize(
    ("env", "two_node_all_reduce", "four_node_all_gather"),
    [
        ("Ring", "ring", "ring"),
        ("ring", "ring", "ring"),
        (" Ring , ", "ring", "ring"),
        ("Tree", "tree", "tree"),
        ("NVLSTree", "tree", "tree"),
        ("Tree,NVLSTree", "tree", "tree"),
        ("tree;nvlstree", "tree", "tree"),
        ("Ring,Tree", "tree", "ring"),  # NCCL picks among them: the default table
        ("NVLS", "tree", "ring"),
        ("CollnetDirect", "tree", "ring"),
        ("", "tree", "ring"),
        (",", "tree", "ring"),
    ],
)
def test_nccl_algo_from_the_log_picks_the_bound(env, two_node_all_reduce, four_node_all_gather):
    assert algo(env) == two_node_all_reduce
    assert algo(env, "all_gather", 4) == four_node_all_gather


def test_what_to_do_by_the_reasons_first_word() -> None:
    t = table()["advice"]
    assert advice("mtu: eth0 mtu 9000, the peers' 1500") == t["mtu"]
    assert advice("MTU: eth0") == t["mtu"]
    assert advice("slow link: fwd 0.02 Gbit/s") == t["slow"]
    assert advice("dcgm: Error: GPU 3") == t["dcgm"]
    assert advice("storage-goal: write 2 nodes") == t["storage-goal"]
    assert advice("nothing we know: x") == "see docs/certify.md"
    assert advice("") == "see docs/certify.md"


def test_a_run_with_its_transport_proven_passes() -> None:
    """The p4de table (tree 0.84, 78 GB/s) with a real InfiniBand log, on an InfiniBand
    fabric: every check met."""
    text = capture(IB_LOG).read_text() + "\n" + capture(P4DE).read_text()
    [c] = judge(text, "all_reduce leaf1", "infiniband", "p4de.24xlarge", 2, "all_reduce")
    assert c.ok and c.reason == ""
    assert (c.name, c.collective, c.nodes, c.algorithm, c.transport) == (
        "all_reduce leaf1",
        "all_reduce",
        2,
        "tree",
        "ib",
    )
    assert c.size == 2 << 30 and c.peak_gbytes == pytest.approx(78.33, abs=0.01)
    assert c.bound_gbytes == pytest.approx(93.75) and round(c.efficiency or 0, 2) == 0.84
    assert c.to_dict()["efficiency"] == c.efficiency and c.to_dict()["ok"] is True
    # the same run on the EFA fabric: InfiniBand is not its transport
    [efa] = judge(text, "x", "efa", "p4de.24xlarge", 2, "all_reduce")
    assert efa.reason == (
        "transport ib, the efa fabric uses NET/OFI (aws-ofi-nccl) with the efa provider"
    )


def test_a_forced_ring_is_held_to_the_ring_bound() -> None:
    """The same table under NCCL_ALGO=Ring: 78.33 of the 50 GB/s ring bound (1.57), passes;
    the bound follows the algorithm NCCL was told to use."""
    log = (
        capture(IB_LOG).read_text()
        + "\nnode1:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
    )
    [c] = judge(
        log + capture(P4DE).read_text(), "x", "infiniband", "p4de.24xlarge", 2, "all_reduce"
    )
    assert c.algorithm == "ring" and c.bound_gbytes == pytest.approx(50.0) and c.ok


def test_one_node_is_judged_against_nvlink_without_a_transport_or_floor() -> None:
    """A real, healthy single-node A100 run: 235.59 GB/s of the 300 GB/s NVLink bound (0.785)
    passes the 0.75 asked of one node; no transport is asked of NVLink. The same run 6% slower
    fails."""
    text = capture("nccl-tests/all_reduce_perf_oci_bm_gpu4_8_1node_10G.txt").read_text()
    [c] = judge(text, "one", "roce", "BM.GPU4.8", 1, "all_reduce")
    assert (c.algorithm, c.bound_gbytes, c.transport) == ("intra_node", 300.0, None)
    assert (c.ok, c.reason, round(c.efficiency or 0, 3)) == (True, "", 0.785)
    slow = text.replace("235.43", "221.30").replace("235.59", "221.45")
    [c] = judge(slow, "one", "roce", "BM.GPU4.8", 1, "all_reduce")
    assert c.reason == "efficiency 0.74 < 0.75 of the intra_node bound 300.0 GB/s"


def test_no_result_table_fails_with_what_was_asked() -> None:
    [c] = judge("", "all_gather cluster", "efa", "p5.48xlarge", 4, "all_gather")
    assert c.to_dict() == {
        "name": "all_gather cluster",
        "collective": "?",
        "nodes": 4,
        "peak_gbytes": None,
        "size": None,
        "algorithm": "?",
        "bound_gbytes": None,
        "efficiency": None,
        "transport": None,
        "ok": False,
        "reason": "no result table",
    }
    [c] = judge("no table here\n", "x", "efa", "p5.48xlarge")
    assert (c.nodes, c.ok, c.reason) == (0, False, "no result table")


def test_a_table_without_a_measured_row_fails() -> None:
    """The p4de table with every bandwidth figure zeroed: nothing measured."""
    lines = []
    for line in capture(P4DE).read_text().splitlines():
        parts = line.split()
        if len(parts) == 14 and parts[1].isdigit():
            for i in (7, 8, 11, 12):
                parts[i] = "0.00"
            line = "  ".join(parts)
        lines.append(line)
    [c] = judge("\n".join(lines), "x", "efa", "p4de.24xlarge", 2, "all_reduce")
    assert c.reason == (
        "no measured row; transport not proven: the log names none (NCCL_DEBUG=INFO)"
    )
    assert c.peak_gbytes is None and c.efficiency is None and c.bound_gbytes is None


def test_an_unknown_node_count_fails() -> None:
    """A node count of 0 (no node count the judge can use): it says so, judges nothing."""
    text = capture("nccl-tests/all_reduce_perf_oci_bm_gpu4_8_1node_10G.txt").read_text()
    [c] = judge(text, "x", "roce", "BM.GPU4.8", 0, "all_reduce")
    assert (c.ok, c.reason, c.efficiency, c.transport) == (False, "node count unknown", None, None)


def test_the_efficiency_limit_is_inclusive_and_the_floor_strict() -> None:
    t = table()
    assert t["efficiency"]["tree"]["min"] == 0.60 and t["floor_gbytes"]["value"] == 40
    # the OCI 2-node RoCE run: 225.05 of the 375 GB/s tree bound = 0.6001, just over 0.60
    text = capture("nccl-tests/all_reduce_perf_oci_bm_gpu4_8_2node_roce_10G.txt").read_text()
    log = capture("nccl-debug/net_ib_8hca_plus_bond_roce.txt").read_text()
    [c] = judge(log + "\n" + text, "x", "roce", "BM.GPU4.8", 2, "all_reduce")
    assert c.efficiency == pytest.approx(0.6001, abs=1e-4) and c.ok, c.reason


def with_top_row(busbw: str, algbw: str, time_us: str) -> str:
    """The p4de table with its largest row (2 GiB) replaced by these figures."""
    lines = []
    for line in capture(P4DE).read_text().splitlines():
        parts = line.split()
        if len(parts) == 14 and parts[1] == str(2 << 30):
            parts[6] = parts[10] = time_us
            parts[7] = parts[11] = algbw
            parts[8] = parts[12] = busbw
            line = "  ".join(parts)
        lines.append(line)
    return "\n".join(lines)


def ring_log() -> str:
    """A real InfiniBand NCCL_DEBUG log with NCCL_ALGO=Ring set."""
    return (
        capture(IB_LOG).read_text()
        + "\nnode1:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
    )


def test_exactly_the_efficiency_limit_and_exactly_the_floor_pass() -> None:
    """40.00 GB/s on the 50 GB/s ring bound: 0.80, the ring limit, and 40, the floor."""
    text = ring_log() + with_top_row("40.00", "21.33", "100678")
    [c] = judge(text, "x", "infiniband", "p4de.24xlarge", 2, "all_reduce")
    assert (c.peak_gbytes, c.bound_gbytes, c.efficiency) == (40.0, 50.0, 0.8)
    assert c.ok and c.reason == ""
    text = ring_log() + with_top_row("39.99", "21.33", "100678")
    [c] = judge(text, "x", "infiniband", "p4de.24xlarge", 2, "all_reduce")
    assert c.reason == (
        "efficiency 0.80 < 0.80 of the ring bound 50.0 GB/s; "
        "busbw 40.0 GB/s under the 40 GB/s floor (TCP-class)"
    )


def test_a_figure_under_one_gb_per_second_is_still_a_measurement() -> None:
    text = ring_log() + with_top_row("0.50", "0.27", "7953643")
    [c] = judge(text, "x", "infiniband", "p4de.24xlarge", 2, "all_reduce")
    assert c.peak_gbytes == 0.5 and c.size == 2 << 30
    assert "busbw 0.5 GB/s under the 40 GB/s floor (TCP-class)" in c.reason


def test_one_node_is_not_held_to_the_network_floor() -> None:
    """The single-node A100 capture with its one row slowed to 18.67 GB/s: far under 40 GB/s,
    judged on NVLink only."""
    text = capture("nccl-tests/all_reduce_perf_oci_bm_gpu4_8_1node_10G.txt").read_text()
    row = " 10737418240    2684354560     float     sum      -1    79813  134.53  235.43      0    79759  134.62  235.59      0"
    assert row in text
    slow = row.replace("79813  134.53  235.43", "1006318  10.67  18.67").replace(
        "79759  134.62  235.59", "1006318  10.67  18.67"
    )
    [c] = judge(text.replace(row, slow), "one", "roce", "BM.GPU4.8", 1, "all_reduce")
    assert c.peak_gbytes == 18.67
    assert c.reason == "efficiency 0.06 < 0.75 of the intra_node bound 300.0 GB/s"


def test_the_node_count_is_read_from_the_table_when_not_given() -> None:
    [c] = judge(capture(P4DE).read_text(), "x", "infiniband", "p4de.24xlarge", None, "all_reduce")
    assert c.nodes == 2 and c.algorithm == "tree"


def test_a_table_of_no_known_collective_is_named_so() -> None:
    [c] = judge(capture(P4DE).read_text(), "x", "infiniband", "p4de.24xlarge", 2)
    assert c.collective == "?" and not c.ok
    assert c.reason.startswith("collective unknown: name the file <collective>_perf*.txt")


def test_an_unknown_instance_type_names_the_inventory_variable() -> None:
    with pytest.raises(UserError) as err:
        judge(capture(P4DE).read_text(), "x", "infiniband", "p9.nope", 2, "all_reduce")
    assert str(err.value).startswith(
        "gpufabric_instance_type: 'p9.nope' is not valid; known types: "
    )


def test_advice_goes_by_the_first_word_of_a_longer_head() -> None:
    assert advice("slow link fwd: 0.02 Gbit/s") == table()["advice"]["slow"]


def test_a_log_without_a_table_still_reports_its_transport() -> None:
    [c] = judge(capture(IB_LOG).read_text(), "x", "infiniband", "p4de.24xlarge", 2, "all_reduce")
    assert (c.reason, c.transport, c.ok) == ("no result table", "ib", False)
