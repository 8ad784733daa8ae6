"""The names NCCL prints for its inter-node transports, and the fabric each proves, and what
its device lines print for each fabric's NICs (nccl_networks.yaml, with sources): data next to
the instance types whose fabric they name."""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gpufabric.inputs import packaged
from gpufabric.vocabulary import CloudFabric


class NetworkName(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    """What NCCL prints: the X of 'Using network X' / 'via NET/X/...' (a prefix of it)."""
    transport: Literal["ofi", "ib", "gib", "tcpx", "tcpxo", "fastsocket", "socket"]
    fabric: CloudFabric | Literal["none"]
    """The fabric that transport proves ('none': a kernel socket path, no fabric)."""


class FabricDevices(BaseModel):
    """What NCCL's device lines print for one fabric's NICs, where the gate holds them to it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hca_link: str | None = None
    """The link layer NET/IB prints after each of the fabric's HCAs ('[0]mlx5_0:1/IB'): a device
    of another link layer among them is not the fabric's. None: the list is not held to one."""
    ofi_provider: str | None = None
    """The libfabric provider of the fabric's devices, whose devices a libfabric net plugin
    counts in its '(found N nics)' line (every one of the instance's must be found); the
    transport over it is named after the fabric. None: no libfabric provider of its own."""
    devices: str = "fabric"
    """What the fabric calls its devices in a verdict ('EFA devices')."""


class NetworkNames(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    networks: tuple[NetworkName, ...]
    ib_links: frozenset[str] = Field(min_length=1)
    fabric_devices: dict[CloudFabric, FabricDevices]
    sources: tuple[str, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _hca_links_are_printed(self) -> NetworkNames:
        for fabric, shows in self.fabric_devices.items():
            if shows.hca_link is not None and shows.hca_link not in self.ib_links:
                raise ValueError(f"fabric_devices.{fabric}.hca_link: not one of ib_links")
        return self


@cache
def _table() -> NetworkNames:
    data = packaged.load_yaml("gpufabric.catalog", "nccl_networks.yaml")
    return NetworkNames.model_validate(data)


def networks() -> tuple[NetworkName, ...]:
    """Every name, in match order (first match wins)."""
    return _table().networks


def fabric_devices() -> dict[str, FabricDevices]:
    """Per fabric, what NCCL's device lines print for its NICs."""
    return {str(f): d for f, d in _table().fabric_devices.items()}


def devices_of(fabric: str) -> FabricDevices:
    """What NCCL's device lines print for `fabric`'s NICs (nothing known: the defaults)."""
    return fabric_devices().get(fabric, FabricDevices())


def ib_links() -> frozenset[str]:
    """Every link layer NET/IB prints after a device."""
    return _table().ib_links
