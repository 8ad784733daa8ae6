"""Sixth's own rule: a project name without spaces."""

from __future__ import annotations

from gpufabric.catalog import InstanceType
from gpufabric.errors import ConfigError
from sixthcloud.settings import SixthStackConfig


def check(cfg: SixthStackConfig, itype: InstanceType) -> None:
    if " " in cfg.sixth.project:
        raise ConfigError("gpufabric:sixth.project", cfg.sixth.project, "no spaces")
