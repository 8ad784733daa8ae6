"""The instance catalog: facts per GPU instance type, read from instances.yaml."""

from __future__ import annotations

import difflib
from functools import cache
from importlib import resources

import yaml
from pydantic import ValidationError

from gpufabric.catalog.model import (
    AwsFacts,
    AzureFacts,
    GcpFacts,
    InstanceType,
    NebiusFacts,
    OciFacts,
)
from gpufabric.errors import ConfigError

__all__ = [
    "AwsFacts",
    "AzureFacts",
    "GcpFacts",
    "InstanceType",
    "NebiusFacts",
    "OciFacts",
    "catalog",
    "lookup",
]


@cache
def catalog() -> dict[str, InstanceType]:
    """All instance types, by name. Loaded once, on first use."""
    text = resources.files("gpufabric.catalog").joinpath("instances.yaml").read_text()
    raw = yaml.safe_load(text)["instances"]
    try:
        entries = {name: InstanceType(name=name, **fields) for name, fields in raw.items()}
    except ValidationError as exc:  # a broken catalog is a bug in the repo, not user input
        raise RuntimeError(f"instances.yaml is invalid: {exc}") from exc
    for entry in entries.values():
        if getattr(entry, entry.cloud) is None:
            raise RuntimeError(f"instances.yaml: {entry.name} lacks its '{entry.cloud}' block")
    return entries


def lookup(name: str, key: str = "gpufabric:instanceType") -> InstanceType:
    """The entry for `name`, or a ConfigError naming `key` with a did-you-mean."""
    entries = catalog()
    if name in entries:
        return entries[name]
    near = difflib.get_close_matches(name, entries, n=1, cutoff=0.6)
    hint = f"did you mean '{near[0]}'? " if near else ""
    raise ConfigError(key, name, f"{hint}known types: {', '.join(sorted(entries))}")
