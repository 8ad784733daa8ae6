"""How nodes are cut into scale sets (= InfiniBand partitions) at the smallest sizes, and
what the cut refuses: the component calls it on configs the CLI never validated."""

from __future__ import annotations

import pytest

from gpufabric.clouds.azure.partitions import Partition, partitions, scale_set_sizes


@pytest.mark.parametrize(
    ("nodes", "per_set", "sizes"),
    [(1, 100, [1]), (1, 1, [1]), (2, 1, [1, 1]), (3, 2, [2, 1]), (2, 2, [2]), (99, 100, [99])],
)
def test_the_smallest_clusters_and_limits_are_cut_exactly(
    nodes: int, per_set: int, sizes: list[int]
) -> None:
    assert scale_set_sizes(nodes, per_set) == sizes


@pytest.mark.parametrize(("nodes", "per_set"), [(0, 100), (-1, 100), (16, 0), (16, -3), (0, 0)])
def test_a_cut_of_no_nodes_or_no_room_is_refused_naming_both_values(
    nodes: int, per_set: int
) -> None:
    with pytest.raises(ValueError) as err:
        scale_set_sizes(nodes, per_set)
    assert str(err.value) == (f"nodes ({nodes}) and max_per_set ({per_set}) must be positive")


def test_one_node_is_one_partition_named_after_the_cluster() -> None:
    assert partitions("train-a", 1, 100) == [Partition(0, "train-a-ib0", 1)]


def test_a_limit_of_one_vm_gives_one_partition_per_node() -> None:
    assert partitions("c", 3, 1) == [
        Partition(0, "c-ib0", 1),
        Partition(1, "c-ib1", 1),
        Partition(2, "c-ib2", 1),
    ]
