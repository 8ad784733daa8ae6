"""The catalog's `azure:` block of an Azure VM size: the cloud's own wiring facts.

The entry's shared facts (GPUs, fabric, its HCAs, line rates) are gpufabric.catalog's; these are
what only this cloud's code reads. Sources: each entry's `sources:` in the catalog.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpufabric.catalog.model import InstanceType


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AzureFacts(_Strict):
    infiniband: Literal["HDR", "NDR"]
    ethernet_gbps: int | None = Field(default=None, gt=0)  # the accelerated-networking NIC


FACTS = AzureFacts


def of(itype: InstanceType) -> AzureFacts:
    """The azure facts of a azure instance type (TypeError for another cloud's)."""
    return itype.wiring_as(AzureFacts)


def storage_path(itype: InstanceType, efa: bool) -> tuple[float, str] | None:
    """(Gbit/s per node, what carries it) to the file system: the accelerated-networking
    Ethernet NIC (Managed Lustre is reached over the VNet, not InfiniBand); None where the
    catalog has no Ethernet figure."""
    gbps = of(itype).ethernet_gbps
    return (gbps, f"Ethernet NIC {gbps} Gbps") if gbps is not None else None
