"""Load and validate thresholds.yaml (the gate's numbers, with their sources)."""

from __future__ import annotations

import math
from functools import cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from gpufabric.catalog import InstanceType
from gpufabric.inputs import packaged
from gpufabric.inputs.formats import parse_yaml


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Efficiency(_Strict):
    ring: float = Field(gt=0, le=1.5)
    tree: float = Field(gt=0, le=1.5)
    intra_node: float = Field(gt=0, le=1.5)


class PartialEfficiency(_Strict):
    ring: float | None = Field(default=None, gt=0, le=1.5)
    tree: float | None = Field(default=None, gt=0, le=1.5)
    intra_node: float | None = Field(default=None, gt=0, le=1.5)


class FabricRule(_Strict):
    transports: list[str] = Field(min_length=1)
    expect: str
    net_devices: Literal["nics", "min_nics_gpus"]
    require_gdr: bool


class InstanceOverride(_Strict):
    efficiency: PartialEfficiency = PartialEfficiency()
    net_devices: int | None = Field(default=None, gt=0)
    sources: list[str] = Field(min_length=1)


SizeTimes = dict[int, Annotated[float, Field(gt=0, allow_inf_nan=False)]]


def at_size(table: dict[int, float], size: int) -> float:
    """The figure of `size`: its own, else the next larger listed size's, else the largest's."""
    larger = [s for s in table if s >= size]
    return table[min(larger)] if larger else table[max(table)]


class FabricLatency(_Strict):
    two_nodes_us: SizeTimes = Field(min_length=1)  # size (bytes) -> us on 2 nodes
    sources: list[str] = Field(min_length=1)


class Latency(_Strict):
    min_bytes: int = Field(ge=0)
    max_bytes: int = Field(gt=0)
    collectives: list[str] = Field(min_length=1)
    one_node_us: SizeTimes = Field(min_length=1)  # size (bytes) -> us on 1 node
    per_doubling: float = Field(ge=1.0)
    tolerance: float = Field(ge=1.0)
    spread_max: float = Field(gt=1.0)
    fabrics: dict[str, FabricLatency]
    instances: dict[str, FabricLatency] = {}

    def expected_us(self, fabric: str, instance_type: str, nodes: int, size: int) -> float | None:
        """Expected time of `size` bytes on `nodes` nodes, or None without a published figure."""
        if nodes <= 1:
            return at_size(self.one_node_us, size)
        base = self.instances.get(instance_type) or self.fabrics.get(fabric)
        if base is None:
            return None
        return at_size(base.two_nodes_us, size) * self.per_doubling ** math.log2(nodes / 2)


class Thresholds(_Strict):
    max_nodes: int = Field(gt=0)
    large_message_bytes: int = Field(gt=0)
    efficiency: Efficiency
    ceiling_tolerance: float = Field(ge=1.0)
    advisory_collectives: list[str] = []
    fabrics: dict[str, FabricRule]
    socket_fallbacks: list[str]
    fatal_warnings: list[str]
    latency: Latency
    instances: dict[str, InstanceOverride] = {}

    def efficiency_for(self, instance_type: str) -> Efficiency:
        """The defaults with the instance type's overrides applied."""
        override = self.instances.get(instance_type)
        if override is None:
            return self.efficiency
        changes = override.efficiency.model_dump(exclude_none=True)
        return self.efficiency.model_copy(update=changes)


def parse_thresholds(text: str) -> Thresholds:
    return Thresholds.model_validate(parse_yaml(text, where="thresholds.yaml"))


@cache
def thresholds() -> Thresholds:
    """The packaged thresholds.yaml (a broken file is a bug in the repo: it raises)."""
    text = packaged.read_text("gpufabric.nccl.gate", "thresholds.yaml")
    return parse_thresholds(text)


def expected_net_devices(facts: InstanceType, limits: Thresholds | None = None) -> int:
    """How many net devices NCCL should list / use on one node of `facts`."""
    limits = limits or thresholds()
    override = limits.instances.get(facts.name)
    if override is not None and override.net_devices is not None:
        return override.net_devices
    rule = limits.fabrics.get(facts.fabric)
    if rule is not None and rule.net_devices == "min_nics_gpus":
        return min(facts.fabric_nics, facts.gpu.count)
    return facts.fabric_nics
