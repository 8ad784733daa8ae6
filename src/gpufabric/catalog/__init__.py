"""The instance catalog: facts per GPU instance type, read from instances.yaml."""

from __future__ import annotations

import difflib
from functools import cache
from importlib import resources

from pydantic import ValidationError

from gpufabric.catalog.model import InstanceType
from gpufabric.clouds import registry
from gpufabric.errors import ConfigError
from gpufabric.inputs import packaged

__all__ = ["InstanceType", "catalog", "lookup"]


@cache
def catalog() -> dict[str, InstanceType]:
    """All instance types, by name: this package's instances.yaml, then the one a cloud's
    package ships beside it (a cloud outside this repository brings its own). Loaded once."""
    files = [resources.files("gpufabric.catalog").joinpath("instances.yaml")]
    for name in registry.names():
        own = resources.files(registry.packages()[name]).joinpath("instances.yaml")
        if own.is_file():
            files.append(own)
    entries: dict[str, InstanceType] = {}
    for file in files:
        for name, fields in packaged.load_resource(file)["instances"].items():
            if name in entries:
                raise RuntimeError(f"{file}: {name} is already in the catalog")
            entries[name] = _entry(name, dict(fields), file.name)
    return entries


def _entry(name: str, fields: dict, where: str) -> InstanceType:
    """One entry, its cloud's block typed by that cloud's package (facts.FACTS)."""
    cloud = str(fields.get("cloud", ""))
    others = sorted(set(fields) & set(registry.names()) - {cloud})
    if others:
        raise RuntimeError(f"{where}: {name} is a {cloud} type with a '{others[0]}' block")
    try:
        registry.known(cloud)
        block = fields.pop(cloud, None)
        if block is None:
            raise RuntimeError(f"{where}: {name} lacks its '{cloud}' block")
        wiring = registry.module(cloud, "facts").FACTS.model_validate(block)
        return InstanceType(name=name, wiring=wiring, **fields)
    except (ValidationError, ValueError) as exc:  # a broken catalog is a bug, not user input
        raise RuntimeError(f"{where} is invalid: {name}: {exc}") from exc


def lookup(name: str, key: str = "gpufabric:instanceType") -> InstanceType:
    """The entry for `name`, or a ConfigError naming `key` with a did-you-mean."""
    entries = catalog()
    if name in entries:
        return entries[name]
    near = difflib.get_close_matches(name, entries, n=1, cutoff=0.6)
    hint = f"did you mean '{near[0]}'? " if near else ""
    raise ConfigError(key, name, f"{hint}known types: {', '.join(sorted(entries))}")
