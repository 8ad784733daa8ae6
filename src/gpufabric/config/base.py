"""Building blocks shared by every config section: the base model and common value types."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt
from pydantic.alias_generators import to_camel

from gpufabric.storage.sizing import Goal


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


# A Lustre client NID that keeps root on a file system that squashes it: an IPv4 address whose
# octets are numbers or [low-high] ranges, then the LNet network (10.0.1.6@tcp,
# 10.0.[2-10].[1-255]@tcp). Source: the NID formats of the providers' root squash inputs.
_OCTET = r"(\d{1,3}|\[\d{1,3}-\d{1,3}\])"
_NID_RE = re.compile(rf"^{_OCTET}(\.{_OCTET}){{3}}@(tcp|o2ib|efa)\d{{0,3}}$")


def _lustre_nid(value: str) -> str:
    numbers = [int(n) for n in re.findall(r"\d+", value.split("@", 1)[0])]
    ranges = re.findall(r"\[(\d+)-(\d+)\]", value)
    if (
        not _NID_RE.match(value)
        or any(n > 255 for n in numbers)
        or any(int(lo) > int(hi) for lo, hi in ranges)
    ):
        raise ValueError(
            "must be a Lustre client NID: an IPv4 address (octets 0-255 or [low-high] ranges) "
            "and its LNet network, e.g. 10.0.1.6@tcp or 10.0.[2-10].[1-255]@tcp"
        )
    return value


LustreNid = Annotated[str, AfterValidator(_lustre_nid)]


def no_squash_needs_squash(nids: list[str], root_squash: object) -> list[str]:
    """Clients exempt from root squash mean nothing when root is not squashed: refused."""
    if nids and root_squash is False:
        raise ValueError("lists clients that keep root, but rootSquash is false (none is squashed)")
    return nids


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


def _no_check(_storage: Any) -> None:
    return None


def _same(number: int) -> Any:
    return number


@dataclass(frozen=True)
class StorageSizing:
    """How a storage model is sized from a checkpoint goal (its class's SIZING): where it
    keeps its tier and capacity (python name, stack-file key), and what else the goal sets."""

    tier: tuple[str, str]
    capacity: tuple[str, str]
    tier_number: Callable[[Any], int] = int
    """The config's tier as the sizing table's number (e.g. a tier name -> 250)."""
    tier_value: Callable[[int], Any] = _same
    """The sizing table's tier number as the config writes it."""
    variant_flag: str = ""
    """A boolean field that picks the steps table's variant of that name over tcp (its clients
    reach the file system over the fabric); '' : tcp only."""
    variant_label: str = ""
    """How error lines name the file system in that variant."""
    check: Callable[[Any], None] = _no_check
    """Refuses (ConfigError) a configuration the steps table does not size."""
