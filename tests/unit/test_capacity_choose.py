"""The capacity chooser: equal to a brute-force optimum on small cases, the bound on large ones.

Every input here is constructed (synthetic): no real capacity is claimed.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufabric.capacity.choose import choose
from gpufabric.capacity.model import Capacity, CapacityError, Choice, Unit
from gpufabric.capacity.synthetic import synthetic_units
from gpufabric.topology.score import min_leaves


def brute_force(cap: Capacity, nodes: int, max_leaves: int | None) -> tuple[int, int] | None:
    """(leaves, slack) of the best subset, trying every subset of the healthy units."""
    usable = [u for u in cap.units if u.healthy and u.free > 0]
    best: tuple[int, int] | None = None
    for size in range(1, len(usable) + 1):
        for subset in itertools.combinations(usable, size):
            if len({u.group for u in subset}) > 1:
                continue
            total = sum(u.free for u in subset)
            leaves = len({u.leaf for u in subset})
            if total < nodes or (max_leaves is not None and leaves > max_leaves):
                continue
            if best is None or (leaves, total - nodes) < best:
                best = (leaves, total - nodes)
    return best


def assert_valid(choice: Choice, cap: Capacity, nodes: int) -> None:
    assert all(u.healthy for u in choice.units)
    assert len({u.group for u in choice.units}) == 1
    assert sum(choice.counts) == nodes
    assert all(1 <= n <= u.free for u, n in zip(choice.units, choice.counts, strict=True))
    assert choice.leaves == len({u.leaf for u in choice.units})
    assert choice.slack == sum(u.free for u in choice.units) - nodes
    assert set(choice.units) <= set(cap.units)


units_st = st.lists(
    st.builds(
        lambda leaf, free, healthy, group: (leaf, free, healthy, group),
        st.integers(0, 3),
        st.integers(0, 8),
        st.booleans(),
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=9,
)


def make(rows: list[tuple[int, int, bool, int]]) -> Capacity:
    units = tuple(
        Unit(id=f"u{i}", leaf=f"g{g}-l{leaf}", free=free, healthy=ok, group=f"g{g}")
        for i, (leaf, free, ok, g) in enumerate(rows)
    )
    return Capacity(units, source="test")


@settings(max_examples=400, deadline=None)
@given(units_st, st.integers(1, 30), st.one_of(st.none(), st.integers(1, 4)))
def test_equals_brute_force(rows: list[tuple[int, int, bool, int]], nodes: int, limit: int | None):
    cap = make(rows)
    expected = brute_force(cap, nodes, limit)
    if expected is None:
        with pytest.raises(CapacityError):
            choose(cap, nodes, limit)
        return
    choice = choose(cap, nodes, limit)
    assert (choice.leaves, choice.slack) == expected
    assert_valid(choice, cap, nodes)


# (hosts per leaf, units per leaf, groups): several reservations on one network leaf; one
# sub-block per leaf; network blocks dealt to HPC islands
SHAPES = {
    "reservations-on-leaves": (32, 4, 1),
    "sub-blocks": (18, 1, 1),
    "network-blocks-in-islands": (64, 1, 4),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_large_cases_meet_the_bound(shape: str):
    leaf_size, per_leaf, groups = SHAPES[shape]
    met = cases = 0
    for seed in range(40):
        hosts = 1000 + (seed * 3000) // 39  # 1,000 .. 4,000 hosts
        cap = synthetic_units(hosts, leaf_size, per_leaf, groups, unhealthy=0.08, seed=seed)
        healthy = [u for u in cap.units if u.healthy and u.free > 0]
        per_group: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for u in healthy:
            per_group[u.group][u.leaf] += u.free
        most = max(sum(leaves.values()) for leaves in per_group.values())
        nodes = max(1, (most * (seed % 10 + 1)) // 12)
        bound = min(
            min_leaves(list(leaves.values()), nodes)
            for leaves in per_group.values()
            if sum(leaves.values()) >= nodes
        )
        choice = choose(cap, nodes)
        assert_valid(choice, cap, nodes)
        assert not {u.id for u in choice.units} & {u.id for u in cap.units if not u.healthy}
        cases += 1
        met += choice.leaves == bound
    assert met / cases >= 0.99


def test_never_takes_an_unhealthy_unit_even_when_it_fits_best():
    cap = Capacity(
        (
            Unit("bad", "l1", 16, healthy=False, note="degraded"),
            Unit("a", "l2", 10),
            Unit("b", "l3", 10),
        ),
        source="test",
    )
    choice = choose(cap, 16)
    assert [u.id for u in choice.units] == ["a", "b"]
    assert choice.counts == (10, 6)
    assert choice.bound == 2 and choice.leaves == 2
    assert [u.id for u in choice.left_out] == ["bad"]


def test_tightest_fit_among_equal_leaf_counts():
    cap = Capacity((Unit("big", "l1", 16), Unit("exact", "l2", 8), Unit("mid", "l3", 9)), "t")
    assert [u.id for u in choose(cap, 8).units] == ["exact"]


def test_too_small_is_one_line_naming_the_source():
    cap = Capacity((Unit("a", "l1", 4), Unit("b", "l2", 4, healthy=False)), "file.json", "block")
    with pytest.raises(CapacityError) as err:
        choose(cap, 8)
    assert str(err.value) == (
        "file.json: 8 nodes do not fit: 4 free hosts on 1 healthy blocks; "
        "1 unhealthy blocks left out"
    )


def test_past_the_users_limit_is_refused():
    cap = Capacity(tuple(Unit(f"u{i}", f"l{i}", 4) for i in range(4)), "t", leaf_kind="leaf")
    assert choose(cap, 8, max_leaves=2).leaves == 2
    with pytest.raises(CapacityError, match="need at least 3 leaves here, past the limit of 2"):
        choose(cap, 9, max_leaves=2)


def test_groups_are_never_mixed():
    cap = Capacity(
        (Unit("a", "l1", 5, group="i1"), Unit("b", "l2", 5, group="i2")), source="islands"
    )
    with pytest.raises(CapacityError, match="5 free hosts in one group"):
        choose(cap, 8)


def test_duplicate_ids_are_refused():
    from gpufabric.errors import UserError

    with pytest.raises(UserError, match="appears twice"):
        Capacity((Unit("a", "l1", 1), Unit("a", "l2", 1)), "dup")


def test_too_small_without_unhealthy_units_and_with_none_healthy():
    cap = Capacity((Unit("a", "l1", 4), Unit("b", "l2", 3)), "file.json", "reservation")
    with pytest.raises(CapacityError) as err:
        choose(cap, 8)
    assert str(err.value) == "file.json: 8 nodes do not fit: 7 free hosts on 2 healthy reservations"
    sick = Capacity(
        (Unit("a", "l1", 4, healthy=False), Unit("b", "l2", 4, healthy=False)), "live", "block"
    )
    with pytest.raises(CapacityError) as err:
        choose(sick, 1)
    assert str(err.value) == (
        "live: 1 nodes do not fit: 0 free hosts on 0 healthy blocks; 2 unhealthy blocks left out"
    )


def test_a_leaf_is_filled_with_the_fewest_units_that_fit():
    """One reservation of 4 rather than two of 2 on the same leaf: the same leaves and slack,
    but one less reservation to name (and no `nodeGroup: instances` for it)."""
    cap = Capacity((Unit("a", "l1", 4), Unit("b", "l1", 2), Unit("c", "l1", 2)), "t")
    choice = choose(cap, 4)
    assert [u.id for u in choice.units] == ["a"] and choice.counts == (4,)
    cap = Capacity((Unit("b", "l1", 2), Unit("c", "l1", 2), Unit("d", "l1", 3)), "t")
    choice = choose(cap, 5)
    assert [u.id for u in choice.units] == ["d", "b"] and choice.counts == (3, 2)


def test_equal_units_on_one_leaf_are_taken_in_id_order():
    cap = Capacity((Unit("r2", "l1", 4), Unit("r1", "l1", 4), Unit("r3", "l1", 4)), "t")
    assert [u.id for u in choose(cap, 4).units] == ["r1"]
    assert [u.id for u in choose(cap, 8).units] == ["r1", "r2"]


def test_the_bound_is_the_fewest_leaves_over_every_group():
    """The bound (and a --max-leaves refusal) comes from the group that needs fewest leaves,
    whichever group is read last."""
    cap = Capacity(
        (
            Unit("a", "l1", 8, group="g1"),
            Unit("b", "l2", 4, group="g2"),
            Unit("c", "l3", 4, group="g2"),
        ),
        "islands",
    )
    choice = choose(cap, 8, max_leaves=1)
    assert (choice.bound, choice.leaves, choice.group) == (1, 1, "g1")
    cap = Capacity(
        (
            Unit("b", "l2", 4, group="g1"),
            Unit("c", "l3", 4, group="g1"),
            Unit("a", "l1", 8, group="g2"),
        ),
        "islands",
    )
    assert choose(cap, 8).bound == 1


def test_equal_units_on_two_leaves_go_to_the_leaf_that_sorts_first():
    cap = Capacity((Unit("r1", "leaf-b", 4), Unit("r2", "leaf-a", 4)), "t")
    assert [u.id for u in choose(cap, 4).units] == ["r2"]


def test_fewer_than_one_node_is_one_line():
    cap = Capacity((Unit("a", "l1", 4),), "t")
    for nodes in (0, -3):
        with pytest.raises(CapacityError) as err:
            choose(cap, nodes)
        assert str(err.value) == f"nodes must be at least 1, got {nodes}"


def test_equal_choices_in_two_groups_go_to_the_group_that_sorts_first():
    cap = Capacity((Unit("a", "l1", 4, group="i2"), Unit("b", "l2", 4, group="i1")), "t")
    choice = choose(cap, 4)
    assert (choice.group, [u.id for u in choice.units]) == ("i1", ["b"])


def test_the_fullest_unit_of_a_leaf_is_filled_first_and_the_last_holds_the_rest():
    cap = Capacity((Unit("small", "l1", 2), Unit("big", "l1", 4), Unit("x", "l2", 9)), "t")
    choice = choose(cap, 5, max_leaves=1)
    assert choice.nodes == 5
    assert [(u.id, n) for u, n in zip(choice.units, choice.counts, strict=True)] == [
        ("big", 4),
        ("small", 1),
    ]
