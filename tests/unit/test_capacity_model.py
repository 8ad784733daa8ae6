"""What a capacity reader hands over and what a choice turns into: units refused at their edges,
the choice as `capacity plan --json` prints it, and the stack settings that name it (clearing
the other spelling where the stack set it)."""

from __future__ import annotations

import pytest

from gpufabric.capacity.model import Capacity, Choice, Unit, present, targets
from gpufabric.errors import UserError

ONE, MANY = "gpufabric:capacity.reservationId", "gpufabric:capacity.reservations"


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"id": "", "leaf": "l1", "free": 1}, "capacity unit '': empty id or leaf"),
        ({"id": "r1", "leaf": "", "free": 1}, "capacity unit 'r1': empty id or leaf"),
        ({"id": "r1", "leaf": "l1", "free": -1}, "capacity unit r1: free hosts -1 < 0"),
    ],
)
def test_a_unit_without_id_or_leaf_or_with_negative_free_hosts_is_refused(kw, message):
    with pytest.raises(UserError) as err:
        Unit(**kw)
    assert str(err.value) == message


def test_a_full_unit_is_kept_but_not_usable():
    full, sick = Unit("r0", "l1", 0), Unit("r2", "l1", 3, healthy=False, note="degraded")
    cap = Capacity((full, Unit("r1", "l1", 1), sick), "f.json", unit_kind="reservation")
    assert [u.id for u in cap.units] == ["r0", "r1", "r2"]
    assert [u.id for u in cap.usable()] == ["r1"]


def test_an_id_given_twice_names_the_source_and_the_kind():
    with pytest.raises(UserError) as err:
        Capacity((Unit("b1", "l1", 1), Unit("b1", "l2", 2)), "blocks.json", unit_kind="block")
    assert str(err.value) == "blocks.json: block b1 appears twice"


def _choice(**kw: object) -> Choice:
    units = (Unit("r1", "l1", 8), Unit("r2", "l2", 6))
    base: dict[str, object] = {
        "nodes": 12,
        "group": "g",
        "units": units,
        "counts": (8, 4),
        "leaves": 2,
        "bound": 1,
        "slack": 2,
    }
    return Choice(**{**base, **kw})  # type: ignore[arg-type]


def test_choice_as_json():
    left = (Unit("r3", "l3", 4, healthy=False, note="state pending"), Unit("r4", "l4", 2, False))
    choice = _choice(leaves=4, bound=3, left_out=left)
    assert choice.to_dict() == {
        "nodes": 12,
        "group": "g",
        "leaves": 4,
        "bound": 3,
        "ratio": 1.333,
        "slack": 2,
        "units": [
            {"id": "r1", "leaf": "l1", "free": 8, "nodes": 8},
            {"id": "r2", "leaf": "l2", "free": 6, "nodes": 4},
        ],
        "leftOut": [
            {"id": "r3", "reason": "state pending"},
            {"id": "r4", "reason": "unhealthy"},
        ],
    }
    assert _choice().ratio == 2.0
    assert _choice(bound=0).ratio == 1.0  # no bound: nothing to compare with


@pytest.mark.parametrize(
    ("raw", "key", "expected"),
    [
        ({"gpufabric:capacity": {"reservationId": "r"}}, ONE, True),
        ({"gpufabric:capacity": {"reservationId": None}}, ONE, False),  # YAML `key:` (null)
        ({"gpufabric:capacity": {"type": "reservation"}}, ONE, False),
        ({"gpufabric:capacity": "reservation"}, ONE, False),  # not a mapping
        ({"gpufabric:capacity": {"reservationId": {"x": 1}}}, ONE + ".x", True),
        ({"gpufabric:capacity": {"reservationId": "r"}}, ONE + ".x", False),
        ({"gpufabric:nodeGroup": "instances"}, "gpufabric:nodeGroup", True),
        ({"gpufabric:nodeGroup": None}, "gpufabric:nodeGroup", False),
        ({}, "gpufabric:nodeGroup", False),
    ],
)
def test_present(raw: dict[str, object], key: str, expected: bool):
    assert present(raw, key) is expected


def test_one_unit_is_named_by_the_one_key_and_clears_a_list_the_stack_set():
    one = _choice(units=(Unit("r1", "l1", 8),), counts=(8,), leaves=1)
    assert targets(one, ONE, MANY, {}) == {ONE: "r1"}
    raw: dict[str, object] = {"gpufabric:capacity": {"reservations": [{"id": "r9", "nodes": 8}]}}
    assert targets(one, ONE, MANY, raw) == {ONE: "r1", MANY: None}


def test_several_units_are_listed_with_their_nodes_and_clear_a_single_id():
    shares = [{"id": "r1", "nodes": 8}, {"id": "r2", "nodes": 4}]
    assert targets(_choice(), ONE, MANY, {}) == {MANY: shares}
    raw: dict[str, object] = {"gpufabric:capacity": {"reservationId": "r9"}}
    assert targets(_choice(), ONE, MANY, raw) == {MANY: shares, ONE: None}
