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
    with pytest.raises(UserError, match=r"hosts.json: nb9 \(named by the stack\) is not in"):
        landed_outside(cap, ["nb9"], topo)
    with pytest.raises(UserError, match="names no reservation or block"):
        landed_outside(cap, [], topo)
