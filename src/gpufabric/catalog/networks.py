"""The names NCCL prints for its inter-node transports, and the fabric each proves
(nccl_networks.yaml, with sources): data next to the instance types whose fabric they name."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpufabric.inputs import packaged
from gpufabric.vocabulary import CloudFabric


class NetworkName(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    """What NCCL prints: the X of 'Using network X' / 'via NET/X/...' (a prefix of it)."""
    transport: Literal["ofi", "ib", "gib", "tcpx", "tcpxo", "fastsocket", "socket"]
    fabric: CloudFabric | Literal["none"]
    """The fabric that transport proves ('none': a kernel socket path, no fabric)."""


class NetworkNames(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    networks: tuple[NetworkName, ...]
    sources: tuple[str, ...] = Field(min_length=1)


@cache
def networks() -> tuple[NetworkName, ...]:
    """Every name, in match order (first match wins)."""
    data = packaged.load_yaml("gpufabric.catalog", "nccl_networks.yaml")
    return NetworkNames.model_validate(data).networks
