"""Typed shape of one instance-type entry in instances.yaml."""

from __future__ import annotations

from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from gpufabric.clouds.registry import CloudName
from gpufabric.vocabulary import CloudFabric

InTransit = Literal["native", "none", "unconfirmed"]
Wiring = TypeVar("Wiring", bound=BaseModel)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Gpu(_Strict):
    model: str
    count: int = Field(gt=0)
    memory_gib: int = Field(gt=0)


class InstanceType(_Strict):
    name: str
    cloud: CloudName
    gpu: Gpu
    nvlink_gbytes_per_gpu: int = Field(gt=0)
    fabric: CloudFabric
    fabric_nics: int = Field(gt=0)
    fabric_nic_gbps: int = Field(gt=0)
    total_gbps: int = Field(gt=0)
    encryption_in_transit: InTransit
    topology_levels: int | None = None
    fabric_hcas: list[str] = []
    """The fabric's HCAs in NCCL_IB_HCA order, where a source names them (RoCE, InfiniBand)."""
    nccl_topology_file: str | None = None
    """The NCCL topology file the cloud's image ships (NCCL_TOPO_FILE), where it has one."""
    wiring: SerializeAsAny[BaseModel]
    """The cloud's own facts: the catalog's `<cloud>:` block, typed by the cloud's package
    (gpufabric.clouds.<cloud>.facts; read them with its `of(itype)`)."""
    sources: list[str] = Field(min_length=1)

    def wiring_as(self, model: type[Wiring]) -> Wiring:
        """The cloud's own facts as `model` (its package's FACTS); TypeError for another cloud's."""
        if not isinstance(self.wiring, model):
            raise TypeError(f"{self.name} is a {self.cloud} type, not one with {model.__name__}")
        return self.wiring

    @property
    def fabric_gbps(self) -> int:
        """Aggregate GPU-fabric line rate of one node, Gbit/s."""
        return self.fabric_nics * self.fabric_nic_gbps
