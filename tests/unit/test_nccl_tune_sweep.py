"""The sweep planner's rules at their edges: which points are pruned, why, and the trials left.

Everything here is computed from the packaged sweep.yaml and the catalog; no NCCL run.
"""

from __future__ import annotations

import copy

import pytest

from gpufabric.catalog import lookup
from gpufabric.errors import UserError
from gpufabric.nccl.tune.sweep import (
    Bucket,
    Choice,
    Plan,
    Trial,
    algorithm_pruned,
    bucket_pruned,
    nccl_ignores,
    plan_sweep,
    sweep_space,
)

P5 = "p5.48xlarge"  # EFA, H100: no CollNet
AZ = "Standard_ND96isr_H100_v5"  # InfiniBand, H100: CollNet (SHARP) possible
A100 = "p4d.24xlarge"


def test_bucket_holds_both_ends() -> None:
    b = Bucket("x", 10, 20)
    assert b.holds(10) and b.holds(20)
    assert not b.holds(9) and not b.holds(21)


def test_choice_label() -> None:
    assert Choice("ring", "simple", 16).label() == "ring/simple/16ch"


def test_sizes_measured_counts_factor_two_sizes_from_eight_bytes() -> None:
    def plan(*trials: Trial) -> Plan:
        return Plan("t", 1, 8, 8, (), (), trials)

    assert plan(Trial("a", "all_reduce", 8, 1 << 20)).sizes_measured() == 18  # 8 B .. 1 MiB
    assert plan(Trial("a", "all_reduce", 1, 1 << 20)).sizes_measured() == 18  # starts at 8 B
    assert plan(Trial("a", "all_reduce", 1 << 20, 1 << 20)).sizes_measured() == 1
    assert plan(Trial("a", "all_reduce", 1 << 20, 8)).sizes_measured() == 1  # never below one
    both = plan(Trial("a", "all_reduce", 8, 1 << 20), Trial("b", "all_reduce", 1 << 20, 1 << 21))
    assert both.sizes_measured() == 20


@pytest.mark.parametrize(
    ("algo", "coll", "nodes", "itype", "reason"),
    [
        ("ring", "all_gather", 1, A100, None),
        ("tree", "all_gather", 2, AZ, "tree does not implement all_gather"),
        ("tree", "all_reduce", 1, A100, "tree needs more than one node"),
        ("tree", "all_reduce", 2, P5, None),
        (
            "nvls",
            "all_reduce",
            2,
            P5,
            "nvls across nodes needs CollNet (SHARP); NCCL turns it off without",
        ),
        ("nvls", "all_reduce", 2, AZ, None),
        ("nvls", "all_reduce", 1, P5, None),
        ("nvls", "all_reduce", 1, A100, "nvls needs NVLink SHARP (Hopper or later), not A100"),
        (
            "nvls_tree",
            "all_reduce",
            2,
            "p4de.24xlarge",
            "nvls_tree needs NVLink SHARP (Hopper or later), not A100",
        ),
        ("nvls_tree", "all_reduce", 2, P5, None),
        (
            "collnet_direct",
            "all_reduce",
            2,
            P5,
            "collnet_direct needs SHARP in an InfiniBand fabric, not efa",
        ),
        (
            "collnet_chain",
            "all_reduce",
            2,
            P5,
            "collnet_chain needs SHARP in an InfiniBand fabric, not efa",
        ),
        ("collnet_direct", "all_gather", 2, AZ, None),
        ("collnet_direct", "all_reduce", 1, AZ, "collnet_direct needs more than one node"),
        ("pat", "all_gather", 2, P5, "pat runs with one rank per node only (8 GPUs per node)"),
    ],
)
def test_algorithm_pruned_says_why(algo, coll, nodes, itype, reason) -> None:
    assert algorithm_pruned(algo, coll, nodes, lookup(itype), sweep_space()) == reason


def test_pat_is_kept_at_one_gpu_per_node_only() -> None:
    facts = lookup(P5)
    one = facts.model_copy(update={"gpu": facts.gpu.model_copy(update={"count": 1})})
    two = facts.model_copy(update={"gpu": facts.gpu.model_copy(update={"count": 2})})
    assert algorithm_pruned("pat", "all_gather", 2, one, sweep_space()) is None
    assert algorithm_pruned("pat", "all_gather", 2, two, sweep_space()) == (
        "pat runs with one rank per node only (2 GPUs per node)"
    )


LATENCY = "ll is latency-optimised: loses on bandwidth above its size range"
TINY = "simple loses to LL/LL128 on tiny messages"
FEW = "fewer channels than net devices cannot fill every NIC at large sizes"
MANY = "more than 2 channels per net device only adds sync cost on tiny messages"


@pytest.mark.parametrize(
    ("proto", "channels", "lo", "hi", "reason"),
    [
        ("ll", 8, 1048575, 1048575, None),  # LL's last byte count
        ("ll", 8, 1048576, 1048576, LATENCY),
        ("ll", 8, 0, 0, None),  # no lower limit for LL
        ("ll128", 8, 268435455, 268435455, None),
        (
            "ll128",
            8,
            268435456,
            268435456,
            "ll128 is latency-optimised: loses on bandwidth above its size range",
        ),
        ("simple", 8, 16383, 16383, TINY),
        ("simple", 8, 16384, 16384, None),
        ("simple", 8, 1 << 40, 1 << 40, None),  # no upper limit for Simple
        ("simple", 7, 16777216, 16777216, FEW),
        ("simple", 7, 16777215, 16777215, None),
        ("simple", 8, 16777216, 1 << 30, None),  # as many channels as devices
        ("ll", 17, 65535, 65535, MANY),
        ("ll", 17, 65536, 65536, None),
        ("ll", 16, 0, 65535, None),  # exactly 2 per device
    ],
)
def test_bucket_pruned_at_the_edges(proto, channels, lo, hi, reason) -> None:
    assert bucket_pruned(proto, channels, Bucket("b", lo, hi), 8, sweep_space()) == reason


def test_plan_counts_every_pruned_point_by_reason() -> None:
    """The counts the user reads: 3 protocols x 4 channel counts per algorithm, 4 per protocol,
    one per bucket."""
    assert plan_sweep(lookup(P5), 2).pruned == {
        "collnet_chain does not implement all_gather": 12,
        "collnet_chain does not implement reduce_scatter": 12,
        "collnet_chain needs SHARP in an InfiniBand fabric, not efa": 12,
        "collnet_direct needs SHARP in an InfiniBand fabric, not efa": 36,
        "fewer channels than net devices cannot fill every NIC at large sizes": 14,
        "ll is latency-optimised: loses on bandwidth above its size range": 48,
        "ll128 is latency-optimised: loses on bandwidth above its size range": 16,
        "more than 2 channels per net device only adds sync cost on tiny messages": 13,
        "nvls across nodes needs CollNet (SHARP); NCCL turns it off without": 36,
        "nvls_tree does not implement all_gather": 12,
        "nvls_tree does not implement reduce_scatter": 12,
        "nvls_tree runs the simple protocol only, not ll": 4,
        "nvls_tree runs the simple protocol only, not ll128": 4,
        "pat does not implement all_reduce": 12,
        "pat runs with one rank per node only (8 GPUs per node)": 24,
        "tree does not implement all_gather": 12,
        "tree does not implement reduce_scatter": 12,
    }


def test_plan_trials_span_their_live_buckets_with_the_env_nccl_reads() -> None:
    trials = {t.id: t for t in plan_sweep(lookup(P5), 2).trials}
    assert trials["all_reduce.default"] == Trial("all_reduce.default", "all_reduce", 8, 1 << 33)
    # LL: every bucket below 1 MiB; its env spelled as NCCL reads it
    assert trials["all_reduce.ring-ll-c4"] == Trial(
        "all_reduce.ring-ll-c4",
        "all_reduce",
        8,
        1048575,
        (
            ("NCCL_ALGO", "Ring"),
            ("NCCL_MAX_NCHANNELS", "4"),
            ("NCCL_MIN_NCHANNELS", "4"),
            ("NCCL_PROTO", "LL"),
        ),
        "choice",
        Choice("ring", "ll", 4),
    )
    # 32 channels on 8 devices: the tiny bucket pruned, so the sweep starts at 64 KiB
    c32 = trials["all_reduce.ring-ll128-c32"]
    assert (c32.min_bytes, c32.max_bytes) == (65536, 268435455)
    # the open-ended last bucket is capped at the largest size nccl-tests runs
    assert trials["all_reduce.tree-simple-c16"].max_bytes == 1 << 33
    assert trials["all_reduce.tree-simple-c16"].env_dict["NCCL_ALGO"] == "Tree"


def test_plan_global_candidates_run_on_every_collective_from_one_mib() -> None:
    plan = plan_sweep(lookup(P5), 2)
    guards = [t for t in plan.trials if t.collective in ("alltoall", "sendrecv")]
    assert [t.id for t in guards if t.stage == "default"] == [
        "alltoall.default",
        "sendrecv.default",
    ]
    globals_ = [t for t in plan.trials if t.stage == "global"]
    # 3 candidates for every fabric + EFA's tuner-plugin switch, on 3 swept + 2 guard collectives
    assert len(globals_) == 4 * 5
    assert all((t.min_bytes, t.max_bytes) == (1 << 20, 1 << 33) for t in guards + globals_)
    assert {t.id: t.env for t in globals_ if t.collective == "alltoall"} == {
        "alltoall.global0": (("NCCL_BUFFSIZE", "8388608"),),
        "alltoall.global1": (("NCCL_BUFFSIZE", "16777216"),),
        "alltoall.global2": (("NCCL_NCHANNELS_PER_NET_PEER", "4"),),
        "alltoall.global3": (("NCCL_TUNER_PLUGIN", "none"),),
    }
    ib = [t for t in plan_sweep(lookup(AZ), 2).trials if t.stage == "global"]
    assert ib[-1].env == (("NCCL_IB_QPS_PER_CONNECTION", "4"), ("NCCL_IB_SPLIT_DATA_ON_QPS", "1"))


def test_plan_only_the_collectives_asked_for() -> None:
    plan = plan_sweep(lookup(P5), 2, ["all_gather"])
    assert plan.collectives == ("all_gather",)
    assert {t.collective for t in plan.trials} == {"all_gather", "alltoall", "sendrecv"}
    assert (plan.instance_type, plan.nodes, plan.gpus_per_node) == (P5, 2, 8)
    assert [b.name for b in plan.buckets] == ["<64K", "64K-1M", "1M-16M", "16M-256M", ">=256M"]


def test_a_choice_with_no_live_bucket_is_not_planned() -> None:
    space = copy.deepcopy(sweep_space())
    space["buckets"] = [{"name": "big", "min": 1 << 30, "max": 1 << 31}]
    space["protocols"] = ["ll"]
    plan = plan_sweep(lookup(P5), 2, space=space)
    assert not [t for t in plan.trials if t.stage == "choice"]
    # ring and tree for all_reduce, ring for the other two: 4 x 4 channel counts
    assert plan.pruned[LATENCY] == 4 * 4


def test_plan_refuses_bad_input_with_one_line() -> None:
    with pytest.raises(UserError) as err:
        plan_sweep(lookup(P5), 2, ["all_reduce", "alltoall"])
    assert str(err.value) == (
        "collective: 'alltoall' is not tunable; the tuner plugin steers "
        "all_reduce, all_gather, reduce_scatter, broadcast, reduce"
    )
    with pytest.raises(UserError) as err:
        plan_sweep(lookup(P5), -1)
    assert str(err.value) == "nodes: -1 is not valid; must be 1 or more"
    assert plan_sweep(lookup(P5), 1).nodes == 1


@pytest.mark.parametrize(
    ("coll", "algo", "proto", "itype", "reason"),
    [
        ("all_reduce", "collnet_direct", "simple", AZ, None),  # InfiniBand: CollNet on
        (
            "all_reduce",
            "collnet_direct",
            "simple",
            P5,
            "collnet_direct needs CollNet (SHARP in the network and its plugin)",
        ),
        ("all_reduce", "nvls", "simple", AZ, None),
        ("all_gather", "pat", "simple", P5, "pat needs one rank per node (16 ranks on 2 nodes)"),
        ("all_gather", "ring", "ll", P5, None),
    ],
)
def test_nccl_ignores_on_two_nodes_asks_with_the_clusters_ranks_and_collnet(
    coll, algo, proto, itype, reason
) -> None:
    assert nccl_ignores(coll, algo, proto, 2, lookup(itype), sweep_space()) == reason
