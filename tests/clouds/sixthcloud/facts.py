"""The catalog's `sixth:` block."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from gpufabric.catalog.model import InstanceType


class SixthFacts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rack_size: int = Field(gt=0)


FACTS = SixthFacts


def of(itype: InstanceType) -> SixthFacts:
    return itype.wiring_as(SixthFacts)
