"""The catalog's `nebius:` block of a Nebius platform and preset: the cloud's own wiring facts.

The entry's shared facts (GPUs, fabric, its HCAs, line rates) are gpufabric.catalog's; these are
what only this cloud's code reads. Sources: each entry's `sources:` in the catalog.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gpufabric.catalog.model import InstanceType


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NebiusFacts(_Strict):
    platform: str  # resources.platform of ComputeV1Instance
    preset: str  # resources.preset (8-GPU presets only join an InfiniBand GPU cluster)
    frontend_ifname: str = "eth0"


FACTS = NebiusFacts


def of(itype: InstanceType) -> NebiusFacts:
    """The nebius facts of a nebius instance type (TypeError for another cloud's)."""
    return itype.wiring_as(NebiusFacts)
