"""`gpufabric topology` from the outside, including the promised behaviour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, needs_captures

from gpufabric.topology.hostlist import expand
from gpufabric.topology.score import ring_edges

REPO = Path(__file__).resolve().parents[2]
# Constructed DescribeInstanceTopology pages (see tests/fixtures_topology/README.md): 3-level
# p5.48xlarge and 4-level p6-b200.48xlarge instances under one top network node.
MIXED = REPO / "tests" / "fixtures_topology" / "aws_mixed_p5_p6b200_pages.json"
IB_SUPERPOD = FIXTURES / "infiniband" / "ibnetdiscover_dgx_h100_superpod_ndr_fattree.txt"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "topology", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _leaves() -> dict[str, str]:
    pages = json.loads(MIXED.read_text())
    return {
        i["InstanceId"]: i["NetworkNodes"][-1]
        for page in pages
        for i in page["Instances"]
        if i["NetworkNodes"]
    }


def test_done_when_render_slurm_tree_groups_by_last_network_node() -> None:
    result = run("render", "--source", "aws", "--input", str(MIXED), "--format", "slurm-tree")
    assert result.returncode == 0, result.stderr
    leaf_of = _leaves()
    switch_of: dict[str, str] = {}
    for line in result.stdout.splitlines():
        if line.startswith("SwitchName=") and " Nodes=" in line:
            switch = line.split()[0].split("=", 1)[1]
            for node in expand(line.split(" Nodes=", 1)[1]):
                switch_of[node] = switch
    # the stopped instance has no topology: kept under no-topology (as topograph does)
    assert switch_of.pop("i-09f8e7d6c5b4a3f12") == "no-topology"
    assert set(switch_of) == set(leaf_of)
    for a in leaf_of:
        for b in leaf_of:
            assert (switch_of[a] == switch_of[b]) == (leaf_of[a] == leaf_of[b]), (a, b)
    assert "i-09f8e7d6c5b4a3f12" in result.stderr  # the stopped instance is reported, one line


def test_done_when_order_hostfile_reaches_the_cross_leaf_lower_bound() -> None:
    result = run("order", "--source", "aws", "--input", str(MIXED), "--format", "hostfile")
    assert result.returncode == 0, result.stderr
    names = result.stdout.split()
    leaf_of = _leaves()
    assert sorted(names) == sorted(leaf_of)
    leaves_touched = len(set(leaf_of.values()))
    assert ring_edges([leaf_of[n] for n in names]) == leaves_touched  # the lower bound


@needs_captures
def test_order_with_a_layout_and_mpirun_style() -> None:
    result = run(
        "order",
        "--source",
        "ib",
        "-i",
        str(IB_SUPERPOD),
        "--layout",
        "--tp",
        "8",
        "--pp",
        "7",
        "--hostfile-style",
        "mpirun",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 119 and all(line.endswith(" slots=8") for line in lines)


def test_score_prints_values_beside_bounds(tmp_path: Path) -> None:
    hostfile = tmp_path / "hosts"
    hostfile.write_text("\n".join(sorted(_leaves())) + "\n")
    result = run("score", "--source", "aws", "-i", str(MIXED), "--order-file", str(hostfile))
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if "ring x1" in line]
    assert len(rows) == 3  # topology, address-sorted, the given file
    topology_row = [c.strip() for c in rows[0].split("│") if c.strip()]
    assert topology_row[:6] == ["topology", "ring x1", "5", "5", "5", "5"]


@needs_captures
def test_discover_then_file_source_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "topo.json"
    assert run("discover", "--source", "ib", "-i", str(IB_SUPERPOD), "-o", str(out)).returncode == 0
    a = run("render", "--source", "ib", "-i", str(IB_SUPERPOD))
    b = run("render", "--source", "file", "-i", str(out))
    strip = lambda s: [x for x in s.splitlines() if not x.startswith("# Slurm")]  # noqa: E731
    assert strip(a.stdout) == strip(b.stdout)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["render", "--source", "azure", "-i", str(MIXED)], "--source 'azure'"),
        (["render", "--source", "aws", "-i", "/nonexistent.json"], "no such file"),
        (["render", "--source", "aws", "-i", str(MIXED), "-f", "pbs"], "--format 'pbs'"),
        (["render", "--source", "aws", "-i", str(MIXED), "-f", "slurm-block"], "no NVLink"),
        (["render", "--source", "ib", "-i", str(MIXED)], "ibnetdiscover output"),
        (["render", "--source", "gcp"], "needs --input"),
        (["order", "--source", "aws", "-i", str(MIXED), "--tp", "8"], "need --layout"),
        (["order", "--source", "aws", "-i", str(MIXED), "--layout", "--tp", "3"], "does not"),
        (["render", "--source", "file", "-i", str(MIXED), "--block-sizes", "a"], "--block-sizes"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], needle: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if not line.startswith("note:")]
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert "Traceback" not in result.stderr
