"""The one list of clouds. Everything else asks here; nothing else names a cloud.

Each entry maps a cloud's name to the package that knows it (gpufabric.clouds.spec says what a
package holds). Packages are imported lazily, on first use, so `import gpufabric` and a
command that needs one cloud pay for that cloud alone.

Clouds outside this package (a cloud of your own, or a test's) are added with the
environment variable GPUFABRIC_CLOUDS="name=package[,name=package...]": the same package
layout, importable from the Python path. The variable reaches every process the CLI starts
(ansible-inventory, the Pulumi program), so the inventory plugin and `pulumi up` see it too.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from functools import cache
from types import ModuleType
from typing import Annotated

from pydantic import AfterValidator

from gpufabric.clouds.spec import CloudSpec
from gpufabric.errors import UserError

BUILT_IN: dict[str, str] = {
    "aws": "gpufabric.clouds.aws",
    "gcp": "gpufabric.clouds.gcp",
    "azure": "gpufabric.clouds.azure",
    "oci": "gpufabric.clouds.oci",
    "nebius": "gpufabric.clouds.nebius",
}
ENVIRONMENT = "GPUFABRIC_CLOUDS"


def packages() -> dict[str, str]:
    """Cloud name -> package: the built-in clouds, then those GPUFABRIC_CLOUDS adds."""
    found = dict(BUILT_IN)
    for entry in filter(None, (e.strip() for e in os.environ.get(ENVIRONMENT, "").split(","))):
        name, sep, package = entry.partition("=")
        if not sep or not name.strip() or not package.strip():
            raise UserError(f"{ENVIRONMENT}: {entry!r} is not name=package")
        found[name.strip()] = package.strip()
    return found


def names() -> tuple[str, ...]:
    """Every cloud's name, built-in first."""
    return tuple(packages())


def get(name: str) -> CloudSpec:
    """The spec of cloud `name` (imports its package, which is light)."""
    return _spec(name, packages().get(name, ""))


def specs() -> tuple[CloudSpec, ...]:
    return tuple(get(name) for name in names())


def module(name: str, part: str) -> ModuleType:
    """The cloud's `part` module (settings, rules, cluster, summary, mocks, discovery, topology)."""
    package = packages().get(name)
    if package is None:
        raise UserError(f"cloud {name!r} is not registered; known clouds: {', '.join(names())}")
    return importlib.import_module(f"{package}.{part}")


def has_module(name: str, part: str) -> bool:
    """Whether cloud `name` has a `part` module (topology sources are optional)."""
    package = packages().get(name)
    return package is not None and importlib.util.find_spec(f"{package}.{part}") is not None


def for_type(token: str) -> CloudSpec | None:
    """The cloud whose Pulumi type token (or function token) this is."""
    prefix = token.split(":", 1)[0]
    return next((spec for spec in specs() if spec.type_prefix == prefix), None)


def mocks_for_type(token: str) -> ModuleType | None:
    """The mocks module of the cloud whose token this is (None for pulumi's own types)."""
    spec = for_type(token)
    return (
        module(spec.name, "mocks") if spec is not None and has_module(spec.name, "mocks") else None
    )


@cache
def _spec(name: str, package: str) -> CloudSpec:
    if not package:
        raise UserError(f"cloud {name!r} is not registered; known clouds: {', '.join(names())}")
    try:
        module = importlib.import_module(package)
    except ImportError as exc:  # a package GPUFABRIC_CLOUDS names that is not there
        raise UserError(f"cloud {name!r}: package {package!r} cannot be imported ({exc})") from None
    spec = getattr(module, "CLOUD", None)
    if not isinstance(spec, CloudSpec) or spec.name != name:
        raise UserError(f"cloud {name!r}: {package}.CLOUD must be a CloudSpec named {name!r}")
    return spec


def known(value: str) -> str:
    """A registered cloud's name, else ValueError naming the known ones (for pydantic)."""
    if value not in names():
        raise ValueError(f"{value!r} is not a known cloud; known: {', '.join(names())}")
    return value


CloudName = Annotated[str, AfterValidator(known)]
"""A cloud's name, checked against the registry (the only list of clouds)."""
