"""`gpufabric:sixth`: the project every node lives in (required)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gpufabric.config.base import ConfigModel
from gpufabric.config.model import NoStorage, StackConfig


class SixthSettings(ConfigModel):
    project: str = Field(min_length=1, description="the Sixth project of every resource")


class SixthScratch(ConfigModel):
    type: Literal["sixth-scratch"]
    size_gib: int = Field(gt=0)


SixthStorage = Annotated[SixthScratch | NoStorage, Field(discriminator="type")]
"""The file systems a Sixth stack can have; the `type` key picks the model."""


class SixthStackConfig(StackConfig):
    sixth: SixthSettings
    storage: SixthStorage = NoStorage(type="none")  # pyright: ignore[reportIncompatibleVariableOverride]


CONFIG = SixthStackConfig
