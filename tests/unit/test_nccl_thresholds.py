"""thresholds.yaml is checked when loaded: every bound of every number, at its edge."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from gpufabric.catalog import lookup
from gpufabric.inputs.errors import FormatError
from gpufabric.nccl.gate.thresholds import expected_net_devices, parse_thresholds, thresholds


def _shipped() -> dict[str, Any]:
    from importlib import resources

    text = resources.files("gpufabric.nccl.gate").joinpath("thresholds.yaml").read_text()
    return yaml.safe_load(text)


def _with(path: str, value: Any) -> str:
    doc = copy.deepcopy(_shipped())
    node = doc
    *parents, last = path.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    return yaml.safe_dump(doc)


# (path, accepted edge, refused value just past it)
EDGES = [
    ("max_nodes", 1, 0),
    ("large_message_bytes", 1, 0),
    ("efficiency.ring", 1.5, 1.51),
    ("efficiency.ring", 0.01, 0),
    ("efficiency.tree", 1.5, 1.51),
    ("efficiency.tree", 0.01, 0),
    ("efficiency.intra_node", 1.5, 1.51),
    ("efficiency.intra_node", 0.01, 0),
    ("ceiling_tolerance", 1.0, 0.99),
    ("latency.min_bytes", 0, -1),
    ("latency.max_bytes", 1, 0),
    ("latency.one_node_us", {8: 0.1}, {8: 0}),
    ("latency.one_node_us", {8: 0.1}, {}),
    ("latency.one_node_us", {8: 0.1}, {8: float("nan")}),
    ("latency.per_doubling", 1.0, 0.99),
    ("latency.tolerance", 1.0, 0.99),
    ("latency.spread_max", 1.01, 1.0),
    ("latency.collectives", ["all_reduce"], []),
    ("latency.fabrics.efa.two_nodes_us", {8: 0.1}, {8: 0}),
    ("latency.fabrics.efa.two_nodes_us", {8: 0.1}, {8: -5.0}),
    ("latency.fabrics.efa.two_nodes_us", {8: 0.1}, {}),
    ("latency.fabrics.efa.sources", ["x"], []),
    ("instances.a3-highgpu-8g.efficiency.ring", 1.5, 1.51),
    ("instances.a3-highgpu-8g.efficiency.ring", 0.01, 0),
    ("instances.a3-highgpu-8g.sources", ["x"], []),
    ("fabrics.efa.transports", ["efa"], []),
    ("fabrics.efa.net_devices", "nics", "all"),
]


@pytest.mark.parametrize(("path", "edge", "past"), EDGES, ids=[f"{p}={v}" for p, _, v in EDGES])
def test_each_bound_holds_at_its_edge(path: str, edge: Any, past: Any) -> None:
    parse_thresholds(_with(path, edge))
    with pytest.raises((ValidationError, FormatError)):  # .nan: refused by the strict reader
        parse_thresholds(_with(path, past))


@pytest.mark.parametrize("field", ["tree", "intra_node"])
def test_partial_overrides_have_the_same_bounds(field: str) -> None:
    doc = copy.deepcopy(_shipped())
    doc["instances"]["a3-highgpu-8g"]["efficiency"] = {field: 1.51}
    with pytest.raises(ValidationError):
        parse_thresholds(yaml.safe_dump(doc))
    doc["instances"]["a3-highgpu-8g"]["efficiency"] = {field: 1.5}
    assert (
        getattr(parse_thresholds(yaml.safe_dump(doc)).efficiency_for("a3-highgpu-8g"), field) == 1.5
    )


def test_net_device_override_must_be_positive() -> None:
    doc = copy.deepcopy(_shipped())
    doc["instances"]["a3-highgpu-8g"]["net_devices"] = 0
    with pytest.raises(ValidationError):
        parse_thresholds(yaml.safe_dump(doc))
    doc["instances"]["a3-highgpu-8g"]["net_devices"] = 3
    limits = parse_thresholds(yaml.safe_dump(doc))
    assert expected_net_devices(lookup("a3-highgpu-8g"), limits) == 3


def test_efficiency_for_applies_only_the_override_given() -> None:
    limits = thresholds()
    high = limits.efficiency_for("a3-highgpu-8g")
    assert high.ring == 0.45 and high.tree == limits.efficiency.tree
    assert limits.efficiency_for("p5.48xlarge") == limits.efficiency


def test_expected_net_devices_per_fabric_rule() -> None:
    assert expected_net_devices(lookup("p5.48xlarge")) == 8  # min(32 EFA, 8 GPUs)
    assert expected_net_devices(lookup("p4d.24xlarge")) == 4  # min(4 EFA, 8 GPUs)
    assert expected_net_devices(lookup("Standard_ND96isr_H100_v5")) == 8  # every HCA


def test_expected_latency_per_size_fabric_instance_and_nodes() -> None:
    lat = thresholds().latency
    assert lat.expected_us("efa", "p5.48xlarge", 1, 8) == 12.87
    assert lat.expected_us("efa", "p5.48xlarge", 2, 8) == 69.12
    assert lat.expected_us("efa", "p5.48xlarge", 2, 65536) == 103.8
    assert lat.expected_us("efa", "p4d.24xlarge", 2, 8) == 176.3  # per-instance figure wins
    assert lat.expected_us("efa", "p5.48xlarge", 8, 8) == pytest.approx(69.12 * 1.35**2)
    assert lat.expected_us("tcpx", "a3-highgpu-8g", 2, 8) is None


def test_a_size_not_listed_takes_the_next_larger_listed_figure() -> None:
    lat = thresholds().latency
    assert lat.expected_us("roce", "a3-ultragpu-8g", 2, 8) == 54.07  # roce starts at 1 KiB
    assert lat.expected_us("efa", "p5.48xlarge", 2, 1536) == 71.29  # 2 KiB's
    assert lat.expected_us("efa", "p5.48xlarge", 2, 1 << 20) == 103.8  # past the table
