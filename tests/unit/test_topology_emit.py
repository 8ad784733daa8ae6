"""Emitters: Slurm files checked against the real formats in the real captures (slurm-topology/),
hostfiles, Kubernetes labels, JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from tests.conftest import FIXTURES, needs_captures

from gpufabric.cli.conventions import error_line
from gpufabric.clouds.aws import topology as aws
from gpufabric.errors import UserError
from gpufabric.topology.emit import hostfile, kubernetes, slurm, topology_file
from gpufabric.topology.emit.names import label_value, slurm_names
from gpufabric.topology.hostlist import compress, expand, natural_key
from gpufabric.topology.model import Host, Topology
from gpufabric.topology.order import topology_order
from gpufabric.topology.sources import ib
from gpufabric.topology.synthetic import synthetic

REPO = Path(__file__).resolve().parents[2]
SLURM = FIXTURES / "slurm-topology"
MIXED = REPO / "tests" / "fixtures_topology" / "aws_mixed_p5_p6b200_pages.json"  # constructed
ULTRA = REPO / "tests" / "fixtures_topology" / "aws_ultraserver_p6e_gb200.json"  # constructed
IB_SUPERPOD = FIXTURES / "infiniband" / "ibnetdiscover_dgx_h100_superpod_ndr_fattree.txt"
_LINE = re.compile(r"^(\w+)=(\S+)((?:\s+\w+=\S+)*)\s*$")


def parse_conf(text: str) -> list[dict[str, str]]:
    """topology.conf lines as dicts (keys lower-cased, comments dropped)."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        assert _LINE.match(line), f"not key=value pairs: {line!r}"
        out.append({k.lower(): v for k, v in (p.split("=", 1) for p in line.split())})
    return out


def tree_of(text: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    switches: dict[str, set[str]] = {}
    nodes: dict[str, set[str]] = {}
    for entry in parse_conf(text):
        assert set(entry) <= {"switchname", "switches", "nodes", "linkspeed"}
        name = entry["switchname"]
        assert name not in switches, f"switch {name} twice"
        switches[name] = set(expand(entry.get("switches", "")))
        nodes[name] = set(expand(entry.get("nodes", "")))
    return switches, nodes


@needs_captures
def test_tree_parser_reads_every_real_tree_fixture() -> None:
    paths = sorted(SLURM.glob("topology_tree_*.conf"))
    assert paths, f"no topology_tree_*.conf in {SLURM}"
    for path in paths:
        switches, nodes = tree_of(path.read_text())
        assert switches and any(nodes.values()), path.name
        children = set().union(*switches.values())
        assert children <= set(switches), path.name  # every child switch is defined


def _check_tree(t: Topology, text: str) -> None:
    switches, nodes = tree_of(text)
    # same shape as the fixtures: one root, every switch reachable, each host under its leaf
    children = set().union(*switches.values())
    roots = set(switches) - children - {slurm.NO_TOPOLOGY}
    assert len(roots) == 1
    assert all(len(n) <= 64 for n in switches)
    names = slurm_names(t.parents())
    for host in t.hosts:
        assert host.name in nodes[names[host.leaf]]
    # nodes without topology stay in the file, under their own switch (as topograph does)
    assert nodes.get(slurm.NO_TOPOLOGY, set()) == set(t.unplaced)
    assert sum(len(n) for n in nodes.values()) == len(t.hosts) + len(t.unplaced)
    for name, kids in switches.items():
        assert not (kids and nodes[name]), f"{name} has both switches and nodes"


def test_tree_conf_for_mixed_3_and_4_level_aws() -> None:
    t = aws.parse(json.loads(MIXED.read_text()))
    text = slurm.tree_conf(t)
    _check_tree(t, text)
    _, nodes = tree_of(text)
    by_leaf: dict[str, set[str]] = {}
    for h in t.hosts:
        by_leaf.setdefault(h.leaf, set()).add(h.name)
    placed = {frozenset(v) for k, v in nodes.items() if v and k != slurm.NO_TOPOLOGY}
    assert placed == {frozenset(v) for v in by_leaf.values()}
    assert nodes[slurm.NO_TOPOLOGY] == {"i-09f8e7d6c5b4a3f12"}


@needs_captures
def test_tree_conf_for_ib_superpod_and_synthetic_4_level() -> None:
    for t in (ib.parse(IB_SUPERPOD.read_text()), synthetic(300, levels=4, seed=4)):
        _check_tree(t, slurm.tree_conf(t))


def test_tree_conf_adds_one_root_over_several_top_nodes() -> None:
    t = Topology((Host("a1", ("top1", "l1")), Host("b1", ("top2", "l2"))))
    switches, _ = tree_of(slurm.tree_conf(t))
    assert switches[slurm.ROOT] == {"top1", "top2"}


@needs_captures
def test_block_conf_matches_the_fixture_format_and_slurm_rules() -> None:
    fixture = parse_conf((SLURM / "topology_block_topograph_nvl_racks.conf").read_text())
    assert {tuple(sorted(e)) for e in fixture} == {("blockname", "nodes"), ("blocksizes",)}
    t = aws.parse(json.loads(ULTRA.read_text()))
    entries = parse_conf(slurm.block_conf(t))
    assert {tuple(sorted(e)) for e in entries} == {("blockname", "nodes"), ("blocksizes",)}
    assert "blocksizes" in entries[-1]
    blocks = {e["blockname"]: set(expand(e["nodes"])) for e in entries if "blockname" in e}
    assert {len(v) for v in blocks.values()} == {18, 7}
    sizes = [int(s) for s in entries[-1]["blocksizes"].split(",")]
    assert sizes == [7, 14]  # base = smallest (partly allocated) block, doubled once (2 blocks)
    assert all(len(v) >= sizes[0] for v in blocks.values())


def test_block_sizes_rules() -> None:
    assert slurm.block_sizes([8] * 12) == [8, 16, 32, 64]  # topograph: D * 2^floor(log2 N)
    assert slurm.block_sizes([18, 18], [18, 36]) == [18, 36]
    with pytest.raises(UserError, match="larger than the smallest block"):
        slurm.block_sizes([18, 7], [18, 36])
    with pytest.raises(UserError, match="not a power-of-two multiple"):
        slurm.block_sizes([8, 8], [8, 24])
    with pytest.raises(UserError, match="not a power-of-two multiple"):
        slurm.block_sizes([8, 8], [8, 8])


def test_block_conf_without_nvlink_domains_is_a_user_error() -> None:
    with pytest.raises(UserError, match="no NVLink domains"):
        slurm.block_conf(synthetic(16, seed=1))
    partly = Topology((Host("a", ("l",), "d1"), Host("b", ("l",))))
    with pytest.raises(UserError, match="1 hosts have no NVLink domain"):
        slurm.block_conf(partly)


def test_blocks_follow_network_order() -> None:
    """Slurm pairs neighbouring blocks: neighbours in the file should share a leaf."""
    t = synthetic(64, levels=3, leaf_size=16, nvlink=4, seed=2)
    entries = [e for e in parse_conf(slurm.block_conf(t)) if "blockname" in e]
    leaf_of = {h.name: h.leaf for h in t.hosts}
    leaves = [leaf_of[expand(e["nodes"])[0]] for e in entries]
    runs = sum(leaves[i] != leaves[i - 1] for i in range(1, len(leaves))) + 1
    assert runs == len(set(leaves))


@needs_captures
def test_topology_yaml_has_the_manpage_shape() -> None:
    example = yaml.safe_load((SLURM / "topology_yaml_slurm_manpage_example.yaml").read_text())
    t = aws.parse(json.loads(ULTRA.read_text()))
    doc = yaml.safe_load(slurm.topology_yaml(t))
    kinds = {next(k for k in e if k in ("tree", "block", "flat")): e for e in example}
    ours = {next(k for k in e if k in ("tree", "block")): e for e in doc}
    assert set(ours) == {"tree", "block"}
    for kind, entry in ours.items():
        assert next(iter(entry)) == "topology"  # "Must be the first attribute"
        assert set(entry) == set(kinds[kind])
        assert set(entry[kind]) == set(kinds[kind][kind])
    switch_keys = {k for s in kinds["tree"]["tree"]["switches"] for k in s}
    assert {k for s in ours["tree"]["tree"]["switches"] for k in s} <= switch_keys
    assert {k for b in ours["block"]["block"]["blocks"] for k in b} == {"block", "nodes"}
    assert sum(e["cluster_default"] is True for e in doc) == 1
    tree_nodes = set()
    for s in ours["tree"]["tree"]["switches"]:
        tree_nodes |= set(expand(s.get("nodes", "")))
    assert tree_nodes == {h.name for h in t.hosts}


def test_hostfile_styles() -> None:
    order = topology_order(synthetic(6, seed=1))
    names = [h.name for h in order]
    assert hostfile.hostfile(order).split() == names
    assert hostfile.hostfile(order, "torchrun").split() == names
    assert hostfile.hostfile(order, "mpirun", 4).splitlines() == [f"{n} slots=4" for n in names]
    assert hostfile.hostfile(order, "srun", 2).split() == [n for n in names for _ in range(2)]
    with pytest.raises(UserError) as err:
        hostfile.hostfile(order, "pbs")
    assert error_line(err.value).startswith("error: --hostfile-style 'pbs': choose one of ")


def test_k8s_labels_one_per_level_valid_values_and_kueue_levels() -> None:
    t = aws.parse(json.loads(MIXED.read_text()))
    labels = yaml.safe_load(kubernetes.k8s_labels(t))["labels"]
    keys = kubernetes.label_keys(t)
    assert [k.rsplit("/", 1)[1] for k in keys] == ["core", "spine", "aggregation", "leaf"]
    value = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
    for host in t.hosts:
        mine = labels[host.name]
        assert set(mine) == set(keys)
        assert all(value.match(v) and len(v) <= 63 for v in mine.values())
        assert mine[keys[-1]] == host.leaf  # the leaf label is the host's own leaf
    p5 = [h for h in t.hosts if len(h.path) == 3]
    assert labels[p5[0].name][keys[2]] == labels[p5[0].name][keys[3]] == p5[0].leaf
    kueue = yaml.safe_load(kubernetes.kueue_topology(t))
    assert kueue["kind"] == "Topology"
    assert [lv["nodeLabel"] for lv in kueue["spec"]["levels"]] == [*keys, "kubernetes.io/hostname"]


def test_label_and_switch_names_are_sanitized() -> None:
    assert label_value("c1/b2/s3") == "c1-b2-s3"
    long = "x" * 100
    assert len(label_value(long)) <= 63 and label_value(long) != label_value(long + "y")
    names = slurm_names(["a b", "a_b", "y" * 80])
    assert len(set(names.values())) == 3 and all(len(n) <= 64 for n in names.values())


def test_hostlist_round_trip() -> None:
    names = [f"node{i:03d}" for i in (1, 2, 3, 7, 10)] + ["ip-10-0-0-5", "gpu-x"]
    expr = compress(names)
    assert "node[001-003,007,010]" in expr
    assert sorted(expand(expr)) == sorted(names)


def test_hostlist_ranges_only_a_trailing_number_of_a_plain_name() -> None:
    # a number followed by more text stays whole (Slurm ranges only the trailing number)
    assert compress(["n1a", "n2a"]) == "n1a,n2a"
    # a name holding a bracket or a comma would break the expression: kept whole, unranged
    assert compress(["x[1", "x[2"]) == "x[1,x[2"
    # any other letter is an ordinary prefix
    assert compress(["X1", "X2", "X3"]) == "X[1-3]"


def test_natural_order_puts_numbers_before_other_scripts_digits() -> None:
    # a switch id may hold digits of another script ("٣" is Arabic-Indic 3): they sort as
    # text, after every ASCII number at the same place
    assert sorted(["n٣", "n10", "n2"], key=natural_key) == ["n2", "n10", "n٣"]


def test_json_round_trip_keeps_order() -> None:
    t = synthetic(20, levels=4, nvlink=4, seed=3)
    order = topology_order(t)
    doc = json.loads(topology_file.topology_json(t, order))
    assert doc["order"] == [h.name for h in order]
    assert doc["levels"] == ["core", "spine", "aggregation", "leaf"]
    assert {h["name"]: tuple(h["path"]) for h in doc["hosts"]} == {h.name: h.path for h in t.hosts}
