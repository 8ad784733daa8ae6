"""Building blocks shared by every config section: the base model and common value types."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt
from pydantic.alias_generators import to_camel

from gpufabric.storage.sizing import Goal

_KMS_RE = re.compile(
    r"^(arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:(key|alias)/.+|alias/.+|[0-9a-f-]{36})$"
)


class ConfigModel(BaseModel):
    """Base for config sections: camelCase keys, unknown keys rejected, immutable."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


def _ipv4_network(value: str) -> str:
    try:
        net = ipaddress.IPv4Network(value, strict=True)
    except ValueError as exc:
        raise ValueError(f"must be an IPv4 network in CIDR form, e.g. 10.0.0.0/16 ({exc})") from exc
    return str(net)


Cidr = Annotated[str, AfterValidator(_ipv4_network)]


def _kms_key(value: str) -> str:
    if not _KMS_RE.match(value):
        raise ValueError("must be a KMS key id, key ARN or alias/NAME")
    return value


KmsKey = Annotated[str, AfterValidator(_kms_key)]


PositiveSeconds = Annotated[float, Field(strict=True, gt=0, le=86400, allow_inf_nan=False)]
PositiveRate = Annotated[float, Field(strict=True, gt=0, le=1e6, allow_inf_nan=False)]


class CheckpointGoal(ConfigModel):
    """`gpufabric:storage.checkpoint`: what the file system must sustain.

    sizeGiB written by all nodes together within writeSeconds; readGBps: the data loaders'
    aggregate read rate (optional). The file system is sized from it (gpufabric.storage)."""

    size_gib: StrictInt = Field(alias="sizeGiB", ge=1, le=100_000_000)
    write_seconds: PositiveSeconds
    read_gbps: PositiveRate | None = Field(default=None, alias="readGBps")

    def goal(self) -> Goal:
        return Goal(self.size_gib, self.write_seconds, self.read_gbps)
