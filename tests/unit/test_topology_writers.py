"""What the topology writers put in files other programs read (Slurm's topology.conf and
topology.yaml, Kubernetes labels, hostfiles): ids a node reported are refused or made into
names the program reads as one name, never two switches of one name."""

from __future__ import annotations

import pytest

from gpufabric.cli.conventions import error_line
from gpufabric.errors import UserError
from gpufabric.topology.emit import slurm
from gpufabric.topology.emit.names import _short_hash, slurm_names
from gpufabric.topology.model import Host, Topology


def _line(exc: pytest.ExceptionInfo[UserError]) -> str:
    return error_line(exc.value)


@pytest.mark.parametrize(
    ("host", "line"),
    [
        (
            Host("n1", ("s", "l\nSwitchName=evil")),
            "error: topology from f.json: host 'n1': path[1] 'l\\nSwitchName=evil' holds the "
            "control character '\\n'",
        ),
        (
            Host("n1", ("s", "l"), "d\n1"),
            "error: topology from f.json: host 'n1': nvlink_domain 'd\\n1' holds the control "
            "character '\\n'",
        ),
    ],
)
def test_a_reported_id_with_a_newline_is_refused_naming_host_and_field(
    host: Host, line: str
) -> None:
    with pytest.raises(UserError) as err:
        Topology((host,), source="f.json")
    assert _line(err) == line


def test_leaves_hold_their_hosts_in_natural_order() -> None:
    n2, n10, n1 = Host("n2", ("s", "l2")), Host("n10", ("s", "l1")), Host("n1", ("s", "l1"))
    assert Topology((n2, n10, n1)).leaves() == {"l1": [n1, n10], "l2": [n2]}


def _switches(text: str) -> list[str]:
    return [ln.split()[0].split("=", 1)[1] for ln in text.splitlines() if ln.startswith("Switch")]


def test_a_renamed_id_never_takes_the_name_of_another_switch() -> None:
    """'a/b' becomes 'a_b' and then 'a_b-<hash>' since 'a_b' is taken: a node that reports
    exactly that name must not get a second switch of it (slurmctld stops on one)."""
    taken = f"a_b-{_short_hash('a/b')}"
    t = Topology(
        tuple(Host(f"n{i}", ("top", leaf)) for i, leaf in enumerate([taken, "a_b", "a/b"]))
    )
    names = _switches(slurm.tree_conf(t))
    assert len(names) == len(set(names)) == 4
    assert {taken, "a_b", "top"} <= set(names)  # safe ids keep their names
    blocks = Topology(tuple(Host(f"n{i}", ("l",), d) for i, d in enumerate(["a/b", "a_b", taken])))
    conf = slurm.block_conf(blocks)
    bnames = [ln.split()[0] for ln in conf.splitlines() if ln.startswith("BlockName=")]
    assert len(set(bnames)) == 3 and {f"BlockName={taken}", "BlockName=a_b"} <= set(bnames)


def test_slurm_names_keep_safe_ids_and_cut_long_ones_to_64() -> None:
    long = "y" * 80
    names = slurm_names(["a/b", "a_b", "c.d-e_1", long, long + "z"])
    assert names["a_b"] == "a_b" and names["c.d-e_1"] == "c.d-e_1"
    assert names["a/b"] == f"a_b-{_short_hash('a/b')}"
    assert names[long] == f"{'y' * 55}-{_short_hash(long)}"
    assert len(set(names.values())) == 5 and max(map(len, names.values())) == 64
    assert slurm_names(["x" * 64]) == {"x" * 64: "x" * 64}


def test_a_node_named_like_the_added_root_is_refused() -> None:
    t = Topology((Host("n1", ("fabric", "l1")), Host("n2", ("top2", "l2"))), source="f.json")
    for render in (slurm.tree_conf, slurm.topology_yaml):
        with pytest.raises(UserError) as err:
            render(t)
        assert _line(err) == (
            "error: topology from f.json: network node 'fabric' has the name of the switch "
            "added above the 2 top nodes"
        )
    one_top = Topology((Host("n1", ("fabric", "l1")), Host("n2", ("fabric", "l2"))))
    assert _switches(slurm.tree_conf(one_top))[0] == "fabric"
