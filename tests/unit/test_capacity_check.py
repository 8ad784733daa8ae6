"""`capacity check`'s rule: a node is inside when a network node above it is the leaf of a
planned unit (constructed topologies in each cloud's path shape)."""

from __future__ import annotations

import pytest

from gpufabric.capacity.check import landed_outside
from gpufabric.capacity.model import Capacity, Unit
from gpufabric.errors import UserError
from gpufabric.topology.model import Host, Topology


def test_gcp_sub_block_leaf_is_the_hosts_last_path_node():
    cap = Capacity((Unit("path/s1", "c/b/s1", 4), Unit("path/s2", "c/b/s2", 4)), "gcp")
    topo = Topology(
        (
            Host("n1", ("c", "c/b", "c/b/s1")),
            Host("n2", ("c", "c/b", "c/b/s2")),
            Host("n3", ("c", "c/b", "c/b/s1")),
        ),
        source="gcp",
    )
    result = landed_outside(cap, ["path/s1"], topo)
    assert result.inside == ("n1", "n3")
    assert result.outside == (("n2", "c/b/s2"),)


def test_oci_network_block_is_the_middle_of_the_path_and_unplaced_nodes_are_outside():
    cap = Capacity((Unit("nb1", "nb1", 4, group="island"),), "oci")
    topo = Topology(
        (Host("n1", ("island", "nb1", "lb1")), Host("n2", ("island", "nb2", "lb7"))),
        source="oci",
        unplaced=("n3",),
    )
    result = landed_outside(cap, ["nb1"], topo)
    assert result.inside == ("n1",)
    assert result.outside == (("n2", "lb7"), ("n3", "no position reported"))
    assert result.to_dict()["outside"][1] == {"node": "n3", "landedOn": "no position reported"}


def test_a_planned_id_missing_from_the_capacity_read_is_one_line():
    cap = Capacity((Unit("nb1", "nb1", 4),), "hosts.json")
    topo = Topology((Host("n1", ("i", "nb1", "lb")),), source="oci")
    with pytest.raises(UserError) as err:
        landed_outside(cap, ["nb1", "nb9"], topo)
    assert str(err.value) == "hosts.json: nb9 (named by the stack) is not in the capacity read"
    with pytest.raises(UserError) as err:
        landed_outside(cap, [], topo)
    assert str(err.value) == (
        "the stack names no reservation or block to check against: set them first "
        "(gpufabric capacity plan --write)"
    )


def test_json_names_every_planned_unit_and_each_leaf_once():
    """`capacity check --json`: what was planned, the leaves it covers (sorted, each once), who is
    inside and where each node outside landed."""
    cap = Capacity(
        (Unit("r2", "leaf-b", 4), Unit("r1", "leaf-a", 4), Unit("r3", "leaf-b", 2)), "aws"
    )
    topo = Topology(
        (
            Host("n1", ("top", "mid", "leaf-a")),
            Host("n2", ("top", "mid", "leaf-b")),
            Host("n3", ("top", "mid", "leaf-c")),
        ),
        source="aws",
    )
    result = landed_outside(cap, ["r2", "r1", "r3"], topo)
    assert result.to_dict() == {
        "planned": ["r2", "r1", "r3"],
        "leaves": ["leaf-a", "leaf-b"],
        "inside": ["n1", "n2"],
        "outside": [{"node": "n3", "landedOn": "leaf-c"}],
        "notChecked": [],
    }
    assert result.lines() == [
        "2 node(s) inside the 3 planned unit(s) (2 leaf/leaves); 1 outside",
        "  outside: n3 on leaf-c",
    ]


def test_nodes_the_topology_left_out_are_named_as_not_checked():
    cap = Capacity((Unit("r1", "leaf-a", 4),), "aws")
    why = "n9 (g): instance i9 is not running (stopped); left out"
    topo = Topology(
        (Host("n1", ("top", "leaf-a")),),
        source="aws",
        skipped=(("discovery", why), ("i-7", "not in the names file")),
    )
    result = landed_outside(cap, ["r1"], topo)
    assert result.lines() == [
        "1 node(s) inside the 1 planned unit(s) (1 leaf/leaves); 0 outside",
        f"  not checked: discovery: {why}",
        "  not checked: i-7: not in the names file",
    ]
    assert result.to_dict()["notChecked"] == [
        {"name": "discovery", "why": why},
        {"name": "i-7", "why": "not in the names file"},
    ]
    assert result.outside == ()
