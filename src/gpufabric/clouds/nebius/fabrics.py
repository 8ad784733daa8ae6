"""Which InfiniBand fabric holds which GPU platform in which region (fabrics.yaml, with its
sources), and the fabric a stack's GPU cluster goes on."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel, ConfigDict

from gpufabric.clouds.nebius.settings import NebiusStackConfig
from gpufabric.errors import ConfigError
from gpufabric.inputs import packaged

KEY = "gpufabric:nebius.infinibandFabric"


class Fabric(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    platform: str
    region: str
    sources: tuple[str, ...]


@cache
def fabrics() -> dict[str, Fabric]:
    rows = packaged.load_yaml("gpufabric.clouds.nebius", "fabrics.yaml")["fabrics"]
    return {name: Fabric(**row) for name, row in rows.items()}


def fabric_for(cfg: NebiusStackConfig, platform: str) -> str:
    """The stack's fabric: the one it names, checked against the table, or the table's only
    fabric for this platform in the stack's region. Refusals name the key."""
    table = fabrics()
    named = cfg.nebius.infiniband_fabric
    if named is not None:
        known = table.get(named)
        if known is not None and known.region != cfg.region:
            raise ConfigError(
                KEY,
                named,
                f"this fabric is in {known.region}, not in the stack's region {cfg.region}",
            )
        if known is not None and known.platform != platform:
            choices = _choices(platform, cfg.region)
            raise ConfigError(
                KEY,
                named,
                f"this fabric holds {known.platform} VMs, not {platform}"
                + (f"; {platform} in {cfg.region}: {choices}" if choices else ""),
            )
        return named
    candidates = [n for n, f in table.items() if f.platform == platform and f.region == cfg.region]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise ConfigError(
            KEY,
            None,
            f"no published fabric holds {platform} in {cfg.region}: name the one Nebius gave "
            "you for your capacity",
        )
    raise ConfigError(
        KEY,
        None,
        f"{platform} in {cfg.region} is on several fabrics ({_choices(platform, cfg.region)}): "
        "name the one that holds your capacity",
    )


def _choices(platform: str, region: str) -> str:
    return ", ".join(
        n for n, f in fabrics().items() if f.platform == platform and f.region == region
    )
