"""Where `capacity check` places each node found live: the cloud's live topology source (by
instance id), else the node's own path or leaf, else the host the capacity read lists under its
instance id; a node with none of these is unplaced (outside), and a stack's outputs of another
stack are refused. Discovery and the topology source are stand-ins returning constructed nodes:
what is tested is landed.py's own rule."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from gpufabric import discovery
from gpufabric.capacity import landed as landed_mod
from gpufabric.capacity.landed import landed, stack_outputs
from gpufabric.cli.conventions import error_line
from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.topology.model import Host, Topology


def _outputs(cloud: str, stack: str = "s1") -> Any:
    return cast(Any, SimpleNamespace(cluster=SimpleNamespace(cloud=cloud, stack=stack)))


def _discovered(
    monkeypatch: pytest.MonkeyPatch, nodes: list[Node], warnings: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def live(outputs: Any, client: Any = None, *, topology: bool = True) -> Found:
        calls.append({"cloud": outputs.cluster.cloud, "client": client, "topology": topology})
        return Found(nodes=list(nodes), warnings=list(warnings))

    monkeypatch.setattr(discovery, "live", live)
    return calls


def test_without_a_live_source_each_node_is_placed_by_its_path_its_leaf_or_the_capacity_read(
    monkeypatch: pytest.MonkeyPatch,
):
    nodes = [
        Node("n1", "10.0.0.1", "g", instance_id="i1", path=("isl", "nb1", "lb1")),
        Node("n2", "10.0.0.2", "g", instance_id="i2", leaf="lb2"),
        Node("n3", "10.0.0.3", "g", instance_id="i3"),
        Node("n4", "10.0.0.4", "g", instance_id="i4"),
        Node("n5", "10.0.0.5", "g", path=("isl", "nb9", "lb9")),
    ]
    calls = _discovered(monkeypatch, nodes)
    positions = {"i3": ("isl", "nb3", "lb3"), "i1": ("other", "x", "y"), "i2": ("a", "b", "c")}
    client = object()
    topo = landed(_outputs("oci"), "us-ashburn-1", client, positions=positions)
    assert calls == [{"cloud": "oci", "client": client, "topology": True}]
    assert topo.source == "the oci API"
    assert topo.hosts == (
        Host("n1", ("isl", "nb1", "lb1"), address="10.0.0.1", instance_id="i1"),
        Host("n2", ("lb2",), address="10.0.0.2", instance_id="i2"),
        Host("n3", ("isl", "nb3", "lb3"), address="10.0.0.3", instance_id="i3"),
        Host("n5", ("isl", "nb9", "lb9"), address="10.0.0.5", instance_id=None),
    )
    assert topo.unplaced == ("n4",)
    # no capacity positions given: the node without a path or leaf is unplaced
    assert landed(_outputs("oci"), None).unplaced == ("n3", "n4")


def test_no_node_with_a_position_names_the_option_and_the_clouds_input(
    monkeypatch: pytest.MonkeyPatch,
):
    _discovered(monkeypatch, [Node("n1", "10.0.0.1", "g"), Node("n2", "10.0.0.2", "g")])
    with pytest.raises(UserError) as err:
        landed(_outputs("gcp"), None)
    assert error_line(err.value) == (
        "error: discovery in the gcp API: 2 node(s) found, none with a network position; pass "
        "--landed FILE (`gcloud compute instances list --format=json` or physical_host values)"
    )
    with pytest.raises(UserError) as err:
        landed(_outputs("azure"), None)
    assert error_line(err.value).endswith("; pass --landed FILE (a recorded topology)")


def _live_source(monkeypatch: pytest.MonkeyPatch, topology: Topology) -> list[dict[str, Any]]:
    from gpufabric.topology import load as load_mod

    calls: list[dict[str, Any]] = []

    def load(cloud: str, *args: Any, **kw: Any) -> Topology:
        calls.append({"cloud": cloud, "args": args, **kw})
        return topology

    monkeypatch.setattr(load_mod, "load", load)
    return calls


def test_a_live_source_places_the_nodes_by_instance_id_and_the_rest_are_unplaced(
    monkeypatch: pytest.MonkeyPatch,
):
    nodes = [
        Node("ip-10-0-0-1", "10.0.0.1", "g", instance_id="i-2"),
        Node("ip-10-0-0-2", "10.0.0.2", "g", instance_id="i-1"),
        Node("ip-10-0-0-3", "10.0.0.3", "g", instance_id="i-3"),
        Node("ip-10-0-0-4", "10.0.0.4", "g", instance_id="i-4"),
        Node("ip-10-0-0-5", "10.0.0.5", "g"),  # no instance id: the source cannot place it
    ]
    calls = _discovered(monkeypatch, nodes)
    source = Topology(
        (
            Host("i-1", ("t", "m", "leaf-a"), instance_id="i-1"),
            Host("i-2", ("t", "m", "leaf-b"), instance_id="i-2"),
        ),
        source="aws",
        unplaced=("i-3",),
    )
    load_calls = _live_source(monkeypatch, source)
    topo = landed(_outputs("aws"), "us-east-1")
    assert calls[0]["topology"] is False  # the source places them, not discovery
    assert load_calls == [
        {"cloud": "aws", "args": (), "region": "us-east-1", "instance_ids": ["i-1", "i-2", "i-3", "i-4"]}
    ]  # fmt: skip
    assert [(h.name, h.leaf) for h in topo.hosts] == [
        ("ip-10-0-0-2", "leaf-a"),
        ("ip-10-0-0-1", "leaf-b"),
    ]
    assert topo.unplaced == ("ip-10-0-0-3", "ip-10-0-0-4", "ip-10-0-0-5")


def test_a_live_source_with_no_instance_ids_is_one_line(monkeypatch: pytest.MonkeyPatch):
    _discovered(monkeypatch, [Node("n1", "10.0.0.1", "g")])
    _live_source(monkeypatch, Topology((Host("x", ("a",)),)))
    with pytest.raises(UserError) as err:
        landed(_outputs("aws"), None)
    assert str(err.value) == "discovery in the aws API: the nodes found have no instance ids"


def test_outputs_of_another_stack_are_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    from gpufabric.inventory import outputs as outputs_mod

    asked: list[tuple[str, Path]] = []

    def load_stack(stack: str, cwd: Path) -> Any:
        asked.append((stack, cwd))
        return _outputs("aws", stack="other")

    monkeypatch.setattr(outputs_mod, "load_stack", load_stack)
    with pytest.raises(UserError) as err:
        stack_outputs("s1", None, tmp_path)
    assert str(err.value) == "stack outputs: of stack other, not s1"
    assert asked == [("s1", tmp_path)]
    monkeypatch.setattr(outputs_mod, "load_file", lambda path: _outputs("aws", stack=""))
    assert stack_outputs("s1", tmp_path / "o.json", tmp_path).cluster.stack == ""  # not recorded
    same = _outputs("aws", stack="s1")
    monkeypatch.setattr(outputs_mod, "load_file", lambda path: same)
    assert stack_outputs("s1", tmp_path / "o.json", tmp_path) is same


def test_only_a_cloud_whose_topology_source_reads_live_is_asked_by_instance_id():
    assert landed_mod._topology_reads_live("aws")
    assert not landed_mod._topology_reads_live("gcp")
    assert not landed_mod._topology_reads_live("oci")


LEFT_OUT = "n9 (g): instance i9 is not running (stopped); left out"


def test_the_nodes_discovery_left_out_are_kept_with_why(monkeypatch: pytest.MonkeyPatch):
    """A node discovery leaves out (not running, outside the stack's network) is not checked:
    it is named with discovery's reason, not dropped without a word."""
    _discovered(monkeypatch, [Node("n1", "10.0.0.1", "g", leaf="lb1")], (LEFT_OUT,))
    topo = landed(_outputs("oci"), None)
    assert topo.skipped == (("discovery", LEFT_OUT),)
    _discovered(monkeypatch, [Node("n1", "10.0.0.1", "g", instance_id="i-1")], (LEFT_OUT,))
    source = Topology(
        (Host("i-1", ("t", "leaf"), instance_id="i-1"),),
        source="aws",
        skipped=(("i-7", "not in the names file"),),
    )
    _live_source(monkeypatch, source)
    topo = landed(_outputs("aws"), "us-east-1")
    assert topo.skipped == (("i-7", "not in the names file"), ("discovery", LEFT_OUT))
