"""The ibnetdiscover source on a small four-level fabric written the way ibnetdiscover prints
one (switches from the initiator's leaf outwards, then the HCAs; each link in both nodes'
entries): leaves sharing hosts are one group, each level above grouped by what it links,
groups named after their first switch in natural order, switches without a name by their
GUID, management hosts and switches never taken for compute hosts."""

from __future__ import annotations

import pytest

from gpufabric.errors import UserError
from gpufabric.topology.model import Host
from gpufabric.topology.sources import ib

SWITCHES = {  # guid -> node description, in the order ibnetdiscover reaches them
    "S-0109": "MF0;LEAF-9:MQM9700/U1",
    "S-0110": "MF0;LEAF-10:MQM9700/U1",
    "S-0111": "MF0;LEAF-11:MQM9700/U1",
    "S-0209": "MF0;SPINE-9:MQM9700/U1",
    "S-0210": "MF0;SPINE-10:MQM9700/U1",
    "S-0211": "ib-spine-X11",  # a plain name
    "S-0212": "Mellanox Technologies",  # no name: the GUID names it
    "S-0301": "MF0;AGG-1:MQM9700/U1",
    "S-0302": "MF0;AGG-2:MQM9700/U1",
    "S-0401": "MF0;CORE-1:MQM9700/U1",
}
CAS = {
    "H-a091": "node-9 mlx5_0",
    "H-a092": "node-9 mlx5_1",
    "H-a101": "node-10 mlx5_0",
    "H-a102": "node-10 mlx5_1",
    "H-a111": "node-11 mlx5_0",
    "H-f001": "ufm-01-mgmt mlx5_0",  # a management host of another name shape
    "H-5a01": "Mellanox Technologies Aggregation Node",  # SHARP, not a host
}
LINKS = [
    *[(leaf, ca) for leaf, ca in [("S-0109", "H-a091"), ("S-0110", "H-a092")]],
    ("S-0109", "H-a101"),
    ("S-0110", "H-a102"),
    ("S-0111", "H-a111"),
    ("S-0111", "H-f001"),
    ("S-0111", "H-5a01"),
    *[(leaf, spine) for leaf in ("S-0109", "S-0110") for spine in ("S-0209", "S-0210")],
    *[("S-0111", spine) for spine in ("S-0211", "S-0212")],
    ("S-0209", "S-0301"),
    ("S-0210", "S-0301"),
    ("S-0211", "S-0302"),
    ("S-0212", "S-0302"),
    ("S-0301", "S-0401"),
    ("S-0302", "S-0401"),
]


def ibnetdiscover(
    switches: dict[str, str], cas: dict[str, str], links: list[tuple[str, str]]
) -> str:
    """The text ibnetdiscover prints for this fabric (every link in both nodes' entries)."""
    desc = {**switches, **cas}
    lines = ["#", "# Topology file: generated for a test", "#", ""]
    for guid in [*switches, *cas]:
        peers = [b if a == guid else a for a, b in links if guid in (a, b)]
        if guid in switches:
            lines += ["vendid=0x2c9", f'Switch\t65 "{guid}"\t\t# "{desc[guid]}" enhanced port 0']
            lines += [
                f'[{i}]\t"{p}"[1]\t\t# "{desc[p]}" lid 1 4xNDR' for i, p in enumerate(peers, 1)
            ]
        else:
            lines += ["vendid=0x2c9", f'Ca\t1 "{guid}"\t\t# "{desc[guid]}"']
            lines += [
                f'[{i}]({guid[2:]}) \t"{p}"[1]\t\t# lid 2 lmc 0 "{desc[p]}" lid 1 4xNDR'
                for i, p in enumerate(peers, 1)
            ]
        lines.append("")
    return "\n".join(lines)


TEXT = ibnetdiscover(SWITCHES, CAS, LINKS)


def test_four_level_fabric_grouped_and_named() -> None:
    t = ib.parse(TEXT, "fabric.txt")
    left = ("CORE-1", "AGG-1", "SPINE-9-x2", "LEAF-9-x2")
    right = ("CORE-1", "AGG-2", "S-0212-x2", "LEAF-11")
    assert t.hosts == (  # natural order: node-9 before node-10
        Host("node-9", left, address="node-9"),
        Host("node-10", left, address="node-10"),
        Host("node-11", right, address="node-11"),
    )
    assert dict(t.labels) == {
        "LEAF-9-x2": "LEAF-9,LEAF-10",
        "LEAF-11": "LEAF-11",
        "SPINE-9-x2": "SPINE-9,SPINE-10",
        "S-0212-x2": "S-0212,ib-spine-X11",
        "AGG-1": "AGG-1",
        "AGG-2": "AGG-2",
        "CORE-1": "CORE-1",
    }
    assert t.skipped == (("ufm-01-mgmt", "name differs from the compute nodes' shape"),)
    assert t.source == "fabric.txt" and ib.parse(TEXT).source == "ib"


def test_the_most_common_name_shape_is_the_compute_nodes() -> None:
    """One management host against three compute hosts, whatever sorts first."""
    cas = {**CAS, "H-f001": "a-01 mlx5_0"}  # shape 'a-#', as node-9's
    t = ib.parse(ibnetdiscover(SWITCHES, cas, LINKS))
    assert [h.name for h in t.hosts] == ["a-01", "node-9", "node-10", "node-11"]
    first = {**SWITCHES, "S-0109": "Mellanox Technologies"}  # the first entry has no name
    t = ib.parse(ibnetdiscover(first, CAS, LINKS))
    assert t.by_name()["node-9"].leaf == "LEAF-10-x2"
    assert t.labels["LEAF-10-x2"] == "LEAF-10,S-0109"
    assert ib.name_shape("a08-p1-dgx-04-c01") == "a#-a#-a-#-a#"
    assert ib.name_shape("B11-P1-CUFM-02") == "a#-a#-a-#"


def test_lines_outside_an_entry_and_links_without_a_description() -> None:
    """A port line before the first entry or after a blank line belongs to no node; a link to
    a node with no entry and no description is dropped without a note."""
    stray = '[1]\t"S-0999"[1]\t\t# "MF0;STRAY:MQM9700/U1" lid 1 4xNDR\n'
    leaf = 'Switch\t65 "S-0111"\t\t# "MF0;LEAF-11:MQM9700/U1" enhanced port 0\n'
    text = stray + TEXT.replace(leaf, leaf + '[40]\t"H-dead"[1]\n') + "\n" + stray
    t = ib.parse(text, "fabric.txt")
    assert t.hosts == ib.parse(TEXT, "fabric.txt").hosts
    assert t.skipped == (("ufm-01-mgmt", "name differs from the compute nodes' shape"),)


def test_parse_nodes_alone_lists_entries_and_their_links() -> None:
    nodes = ib.parse_nodes(TEXT, "fabric.txt")
    assert len(nodes) == len(SWITCHES) + len(CAS)
    assert nodes["S-0111"].peers == {"H-a111", "H-f001", "H-5a01", "S-0211", "S-0212"}
    assert (nodes["H-a111"].kind, nodes["H-a111"].desc) == ("Ca", "node-11 mlx5_0")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("hello\nworld\n", "t: no Switch or Ca entries; is this ibnetdiscover output?"),
        (
            ibnetdiscover(SWITCHES, {}, LINKS[7:]),
            "t: no host HCAs ('<hostname> <device>') in ibnetdiscover output",
        ),
        (
            ibnetdiscover({}, {"H-a091": "node-9 mlx5_0"}, []),
            "t: no switches in ibnetdiscover output (isolated HCA?)",
        ),
    ],
)
def test_refusals_are_one_exact_line(text: str, line: str) -> None:
    with pytest.raises(UserError) as err:
        ib.parse(text, "t")
    assert str(err.value) == line
