"""The placement score's arithmetic, on hand-made groups: which groups count, each metric
summed over them, each bound, and the ratios (bound 0 included)."""

from __future__ import annotations

import pytest

from gpufabric.topology.model import Host, Topology
from gpufabric.topology.score import Score, _score, min_leaves, ring_edges, score_order

A1, A2 = Host("a1", ("spine", "A")), Host("a2", ("spine", "A"))
B1, B2 = Host("b1", ("spine", "B")), Host("b2", ("spine", "B"))


def test_ratios_are_value_over_bound_and_one_when_both_are_zero() -> None:
    score = Score("ring", 1, 3, 2, 0, 0, 5.0, 0.0)
    assert score.ratios() == {
        "leaves_touched": 1.5,
        "cross_leaf_edges": 1.0,
        "spine_bytes": float("inf"),
    }
    assert Score("dp", 2, 3, 1, 4, 4, 0.0, 2.0).ratios() == {
        "leaves_touched": 3.0,
        "cross_leaf_edges": 1.0,
        "spine_bytes": 0.0,
    }


def test_min_leaves_stops_at_the_leaf_that_fits_exactly() -> None:
    assert min_leaves([2, 2], 2) == 1
    assert min_leaves([1, 3, 2], 4) == 2  # the biggest first: 3 + 2
    assert min_leaves([1, 1], 5) == 2  # more than the allocation holds: every leaf


def test_ring_edges_count_each_change_of_leaf_around_the_ring() -> None:
    assert ring_edges([]) == 0
    assert ring_edges(["A"]) == 0
    assert ring_edges(["A", "B"]) == 2  # there and back
    assert ring_edges(["A", "A"]) == 0
    assert ring_edges(["A", "A", "B"]) == 2


def test_a_score_sums_every_group_of_two_or_more_nodes() -> None:
    # leaves A and B, two nodes each; 8 bytes per rank
    groups = [
        [A1],  # one node: no network, not counted
        [A1, A2],  # one leaf: 1 leaf (bound 1), no edge (bound 0)
        [A1, B1, A2],  # 3 nodes need 2 leaves: 2 edges, bound 2
        [A1, B1],  # 2 nodes fit one leaf: 2 edges where 0 would do
    ]
    per_edge_3 = 2 * 2 / 3 * 8  # a ring all-reduce of 8 bytes over 3 ranks, per edge
    assert _score("dp", groups, [2, 2], 8) == Score(
        "dp",
        3,
        1 + 2 + 2,
        1 + 2 + 1,
        0 + 2 + 2,
        0 + 2 + 0,
        pytest.approx(2 * per_edge_3 + 2 * 8),  # type: ignore[arg-type]
        pytest.approx(2 * per_edge_3),  # type: ignore[arg-type]
    )


def test_the_whole_job_is_scored_as_one_ring() -> None:
    topology = Topology((A1, A2, B1, B2))
    (score,) = score_order(topology, [A1, B1, A2, B2], message_bytes=4)
    assert score == Score("ring", 1, 2, 2, 4, 2, 4 * 1.5 * 4, 2 * 1.5 * 4)
