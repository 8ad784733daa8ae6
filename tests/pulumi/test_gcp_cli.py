"""`gpufabric plan -s gcp-*` from the outside: the promised behaviour and exit 2 on bad values."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def gpufabric(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def resources(doc: dict, token: str) -> list[dict]:
    return [r for r in doc["resources"] if r["type"] == token]


@pytest.mark.parametrize(
    ("stack", "override", "key"),
    [
        ("gcp-a3-mega", "gpufabric:nodes=0", "gpufabric:nodes"),
        (
            "gcp-a3-mega",
            "gpufabric:storage.perUnitStorageThroughput=300",
            "gpufabric:storage.perUnitStorageThroughput",
        ),
        ("gcp-a3-ultra", "gpufabric:zone=us-east5-a", "gpufabric:zone"),
        ("gcp-a3-ultra", "gcp:project=someone-else", "gpufabric:gcp.project"),
        (
            "gcp-a3-mega",
            'gpufabric:capacity={"type": "reservation", "reservationId": "a3m-res"}',
            "gpufabric:gcp.maxDistance",
        ),
    ],
)
def test_bad_value_exits_2_with_one_line_naming_the_key(
    stack: str, override: str, key: str
) -> None:
    result = gpufabric("plan", "-s", stack, "-c", override)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert key in lines[0]
    assert "Traceback" not in result.stderr


def test_a3_mega_json_shows_nine_vpcs_every_node_in_each_collocated_and_storage_in_zone() -> None:
    result = gpufabric("plan", "-s", "gcp-a3-mega", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    networks = {n["id"] for n in resources(doc, "gcp:compute/network:Network")}
    assert len(networks) == 9
    subnet_net = {
        s["id"]: s["inputs"]["network"] for s in resources(doc, "gcp:compute/subnetwork:Subnetwork")
    }
    nodes = resources(doc, "gcp:compute/instance:Instance")
    assert len(nodes) == 16
    for node in nodes:
        reached = [subnet_net[n["subnetwork"]] for n in node["inputs"]["networkInterfaces"]]
        assert sorted(reached) == sorted(networks)
    (policy,) = resources(doc, "gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy["inputs"]["groupPlacementPolicy"]["collocation"] == "COLLOCATED"
    (lustre,) = resources(doc, "gcp:lustre/instance:Instance")
    assert {n["inputs"]["zone"] for n in nodes} == {lustre["inputs"]["location"]}


def test_a3_ultra_json_shows_the_rdma_network_on_its_profile_with_mrdma_nics() -> None:
    result = gpufabric("plan", "-s", "gcp-a3-ultra", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    (rdma,) = [
        n
        for n in resources(doc, "gcp:compute/network:Network")
        if n["inputs"].get("networkProfile", "").endswith("-vpc-roce")
    ]
    rdma_subnets = {
        s["id"]
        for s in resources(doc, "gcp:compute/subnetwork:Subnetwork")
        if s["inputs"]["network"] == rdma["id"]
    }
    (template,) = resources(doc, "gcp:compute/instanceTemplate:InstanceTemplate")
    mrdma = [n for n in template["inputs"]["networkInterfaces"] if n["nicType"] == "MRDMA"]
    assert len(mrdma) == 8
    assert {n["subnetwork"] for n in mrdma} == rdma_subnets
