"""`gpufabric topology sources`: every source and how it is gathered come from the registry,
so a cloud registered from outside (the test tree's sixth) is listed with what its package
declares, and its label schemes join gpufabric's and topograph's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpufabric.cli.conventions import error_line
from gpufabric.clouds import registry
from gpufabric.clouds.spec import LabelScheme
from gpufabric.errors import UserError
from gpufabric.topology.emit import kubernetes
from gpufabric.topology.load import describe, gather_of
from gpufabric.topology.model import Host, Topology

REPO = Path(__file__).resolve().parents[2]


def test_each_source_says_how_it_is_gathered() -> None:
    by_name = {s["name"]: s for s in describe()}
    assert {k: v["gather"] for k, v in by_name.items()} == {
        "aws": "controller",
        "gcp": "node-metadata",
        "oci": "node-metadata",
        "nebius": "node-metadata",
        "ib": "ibnetdiscover",
        "file": "recorded",
    }
    gcp = by_name["gcp"]["metadata"]
    assert gcp is not None and gcp["document"] == "text"
    assert by_name["file"]["input"] == "JSON/YAML topology"


def test_a_registered_cloud_is_listed_from_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(REPO / "tests" / "clouds"))
    monkeypatch.setenv(registry.ENVIRONMENT, "sixth=sixthcloud")
    sixth = next(s for s in describe() if s["name"] == "sixth")
    assert sixth["gather"] == "node-metadata" and gather_of("sixth") == "node-metadata"
    metadata = sixth["metadata"]
    assert metadata is not None and metadata["headers"] == {"Sixth-Metadata": "yes"}


def test_the_cli_prints_the_same_as_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "topology", "sources", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    doc = json.loads(proc.stdout)
    assert doc["sources"] == describe()
    assert doc["label_schemes"] == ["gpufabric", "eks", "topograph"]


def test_label_schemes_come_from_the_clouds(monkeypatch: pytest.MonkeyPatch) -> None:
    t = Topology((Host("n1", ("s", "l1")), Host("n2", ("s", "l2"))), source="x")
    assert kubernetes.label_keys(t, "eks") == [
        "topology.k8s.aws/network-node-layer-1",
        "topology.k8s.aws/network-node-layer-2",
    ]
    spec = registry.get("aws")
    mine = LabelScheme(name="mine", key="example.com/level-{n}-{level}")
    monkeypatch.setattr(
        registry, "specs", lambda: (spec.__class__(**{**spec.__dict__, "label_schemes": (mine,)}),)
    )
    assert kubernetes.label_keys(t, "mine") == [
        "example.com/level-1-spine",
        "example.com/level-2-leaf",
    ]
    with pytest.raises(UserError) as err:
        kubernetes.label_keys(t, "eks")
    assert error_line(err.value) == (
        "error: --label-scheme 'eks': choose one of gpufabric, mine, topograph"
    )
