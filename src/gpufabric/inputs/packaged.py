"""Tables shipped inside gpufabric (catalog, thresholds, profiles): read with importlib.resources
and the same strict YAML rules as user files, so a key written twice in our own table fails
the tests instead of silently keeping the last value."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from gpufabric.inputs.formats import parse_yaml


def read_text(package: str, name: str) -> str:
    """The text of the data file `name` shipped in `package` (e.g. "gpufabric.catalog")."""
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def load_yaml(package: str, name: str) -> Any:
    """The YAML data file `name` of `package`, read strictly (YAML 1.2, no key twice)."""
    return parse_yaml(read_text(package, name), where=f"{package.replace('.', '/')}/{name}")


def load_resource(resource: Traversable) -> Any:
    """A YAML data file found with importlib.resources (e.g. a cloud package's own table)."""
    return parse_yaml(resource.read_text(encoding="utf-8"), where=str(resource))
