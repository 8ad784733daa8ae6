"""Stack configuration: parsed once into a typed, validated model and passed down.

`StackConfig` holds the keys every stack has; each cloud's package extends it with its own
section and storage types (gpufabric.clouds.<cloud>.settings.CONFIG), and `parse` picks that
model by the instance type's cloud, so another cloud's section is not a key of the model.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from gpufabric.config.model import StackConfig

__all__ = ["StackConfig", "from_pulumi", "parse"]


def parse(raw: Mapping[str, Any], stack: str, secret_keys: Collection[str] = ()) -> StackConfig:
    """Validate a stack's raw config (gpufabric.config.load.parse)."""
    from gpufabric.config.load import parse as load

    return load(raw, stack, secret_keys)


def from_pulumi(stacks_dir: Path | None = None) -> StackConfig:
    """Read and validate the running Pulumi program's config (gpufabric.config.load)."""
    from gpufabric.config.load import from_pulumi as load

    return load(stacks_dir)
