"""Rank order and scores: lower bounds reached where they are reachable, on real and synthetic
(fragmented) topologies."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from tests.conftest import capture

from gpufabric.cli.conventions import error_line
from gpufabric.clouds.aws import topology as aws
from gpufabric.errors import UserError
from gpufabric.topology.model import Host, Topology
from gpufabric.topology.order import address_order, topology_order
from gpufabric.topology.parallel import Parallelism
from gpufabric.topology.score import min_leaves, ring_edges, score_order
from gpufabric.topology.sources import ib
from gpufabric.topology.synthetic import synthetic

REPO = Path(__file__).resolve().parents[2]
IB_SUPERPOD = "infiniband/ibnetdiscover_dgx_h100_superpod_ndr_fattree.txt"
MIXED = REPO / "tests" / "fixtures_topology" / "aws_mixed_p5_p6b200_pages.json"  # constructed


def _runs(order: list[Host]) -> int:
    """Number of maximal runs of one leaf (cyclic)."""
    return max(1, ring_edges([h.leaf for h in order]))


TOPOLOGIES = {
    "aws-mixed": lambda: aws.parse(json.loads(MIXED.read_text())),
    "ib-superpod": lambda: ib.parse(capture(IB_SUPERPOD).read_text()),
    "synthetic-64": lambda: synthetic(64, levels=3, seed=1),
    "synthetic-300-nvlink": lambda: synthetic(300, levels=4, nvlink=4, seed=2),
    "synthetic-500-fragmented": lambda: synthetic(500, levels=2, leaf_size=32, fill=0.3, seed=3),
}


@pytest.mark.parametrize("name", list(TOPOLOGIES))
def test_ring_order_reaches_the_lower_bound(name: str) -> None:
    topology = TOPOLOGIES[name]()
    order = topology_order(topology)
    assert sorted(h.name for h in order) == sorted(h.name for h in topology.hosts)
    (score,) = score_order(topology, order)
    assert score.cross_leaf_edges == score.cross_leaf_bound == len(topology.leaves())
    assert score.spine_bytes == score.spine_bytes_bound
    # each leaf is one contiguous run, and so is each higher-level switch
    for level in range(topology.depth - 1):
        ids = [h.path[level] for h in order if len(h.path) > level]
        runs = sum(ids[i] != ids[i - 1] for i in range(1, len(ids))) + 1
        assert runs == len(set(ids))


@pytest.mark.parametrize("seed", range(5))
def test_topology_order_beats_shuffled_and_address_sorted(seed: int) -> None:
    t = synthetic(256, levels=3, seed=seed)
    shuffled = list(t.hosts)
    random.Random(seed).shuffle(shuffled)
    best = score_order(t, topology_order(t))[0].cross_leaf_edges
    assert best < score_order(t, shuffled)[0].cross_leaf_edges
    assert best < score_order(t, address_order(t))[0].cross_leaf_edges


def test_nvlink_domain_members_are_consecutive_within_a_leaf() -> None:
    t = synthetic(200, levels=3, leaf_size=16, nvlink=4, seed=5)
    order = topology_order(t)
    seen: list[tuple[str, str | None]] = []
    for h in order:
        key = (h.leaf, h.nvlink_domain)
        if not seen or seen[-1] != key:
            assert key not in seen, f"domain {key} split into two runs"
            seen.append(key)


def test_groups_use_the_fewest_leaves_on_an_uneven_allocation() -> None:
    """Leaves of 5, 3, 4 and 4 nodes; stages of 4 nodes (tp=8, dp=4 on 8-GPU nodes)."""
    hosts = []
    for leaf, count in (("l1", 5), ("l2", 3), ("l3", 4), ("l4", 4)):
        hosts += [Host(f"{leaf}n{i}", ("spine", leaf)) for i in range(count)]
    t = Topology(tuple(hosts))
    p = Parallelism(tp=8, dp=4, pp=4, gpus_per_node=8)
    order = topology_order(t, p)
    stages = [order[i : i + 4] for i in range(0, 16, 4)]
    touched = sorted(len({h.leaf for h in s}) for s in stages)
    # l3 and l4 each hold a stage; l1+l2 (8 nodes) hold the other two, one of which must span 2
    assert touched == [1, 1, 1, 2]
    (dp,) = score_order(t, order, p)
    assert dp.group == "dp"
    assert dp.leaves_touched == 5 * 8  # 8 rails (tp ranks) per stage ring
    assert dp.leaves_bound == 4 * 8


def test_parallel_groups_follow_megatron_order() -> None:
    p = Parallelism(tp=4, cp=2, dp=2, pp=2, gpus_per_node=8)
    # 4 nodes x 8 GPUs; tp*cp = 8 = one node; dp groups stride 8 ranks = one node
    assert p.groups(4, "dp") == [[0, 1]] * 8 + [[2, 3]] * 8
    assert p.groups(4, "cp") == [[0]] * 4 + [[1]] * 4 + [[2]] * 4 + [[3]] * 4
    assert p.groups(4, "pp") == [[0, 2]] * 8 + [[1, 3]] * 8
    assert p.block_sizes(4) == [2]


@pytest.mark.parametrize(
    ("p", "nodes", "match"),
    [
        (Parallelism(tp=3), 3, "does not divide 8 GPUs per node"),
        (Parallelism(tp=4, cp=3), 3, "not a whole number"),
        (Parallelism(tp=8, dp=3), 4, "does not equal 4 nodes"),
        (Parallelism(tp=0), 4, "error: --tp must be at least 1"),
        (Parallelism(gpus_per_node=0), 4, "error: --gpus-per-node must be at least 1"),
    ],
)
def test_bad_parallel_layout_is_one_clear_error(p: Parallelism, nodes: int, match: str) -> None:
    with pytest.raises(UserError) as err:
        p.block_sizes(nodes)
    assert match in error_line(err.value)


def test_min_leaves_and_ring_edges() -> None:
    assert min_leaves([5, 3, 4], 6) == 2
    assert min_leaves([5, 3, 4], 12) == 3
    assert min_leaves([8], 2) == 1
    assert ring_edges(["a", "a", "b", "b"]) == 2
    assert ring_edges(["a", "b", "a", "b"]) == 4
    assert ring_edges(["a", "a"]) == 0


def test_scores_report_the_bound_beside_the_value() -> None:
    t = synthetic(128, levels=3, seed=9)
    shuffled = list(t.hosts)
    random.Random(1).shuffle(shuffled)
    (s,) = score_order(t, shuffled, message_bytes=1000)
    assert s.cross_leaf_edges > s.cross_leaf_bound
    per_edge = 2 * 127 / 128 * 1000
    assert s.spine_bytes == pytest.approx(s.cross_leaf_edges * per_edge)
    assert s.ratios()["cross_leaf_edges"] == pytest.approx(s.cross_leaf_edges / s.cross_leaf_bound)


def test_inner_groups_are_cut_inside_each_stage() -> None:
    """Stages of 6 nodes (tp=16 on 8-GPU nodes: tp groups of 2 nodes; dp=3; pp=2). Stage one
    sits on leaves of 3, 1 and 2 nodes: cutting the stage whole would put two tp groups across
    two leaves; cutting its tp groups by best fit leaves only one across."""
    hosts = []
    for spine, leaves in (("s1", (("a", 3), ("b", 1), ("c", 2))), ("s2", (("d", 6),))):
        hosts += [Host(f"{leaf}{i}", (spine, leaf)) for leaf, count in leaves for i in range(count)]
    t = Topology(tuple(hosts))
    p = Parallelism(tp=16, dp=3, pp=2, gpus_per_node=8)
    assert p.block_sizes(12) == [6, 2]
    order = topology_order(t, p)
    assert sorted(h.name for h in order) == sorted(h.name for h in hosts)
    assert {h.leaf for h in order[:6]} == {"a", "b", "c"}  # the stage stays on its spine
    pairs = [{h.leaf for h in order[i : i + 2]} for i in range(0, 12, 2)]
    assert sorted(len(leaves) for leaves in pairs) == [1, 1, 1, 1, 1, 2]
