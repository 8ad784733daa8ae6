"""GCP id formats: numeric instance ids, resource names (RFC 1035), self links.

[P] cloud.google.com/compute/docs/naming-resources (names: a lowercase letter, then up to 62
lowercase letters, digits or '-', not ending with '-'); the Compute API's Instance.id is an
unsigned 64-bit integer printed in decimal; selfLink is
https://www.googleapis.com/compute/<version>/projects/<project>/<scope>/<name>...
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

from gpufabric.inputs import types

_INSTANCE = "a GCP instance id (an unsigned 64-bit number)"


def _uint64(value: str) -> str:
    if int(value) >= 2**64:
        raise ValueError(f"must be {_INSTANCE}")
    return value


InstanceId = Annotated[types.matching(r"[0-9]{1,20}", _INSTANCE), AfterValidator(_uint64)]
ResourceName = types.matching(
    r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?",
    "a GCP resource name: a lowercase letter, then up to 62 lowercase letters, digits or '-'",
)
_SELF_LINK_RE = re.compile(
    r"(?:https://www\.googleapis\.com/compute/(?:v1|beta|alpha)/)?"
    r"projects/(?P<project>[a-z][-a-z0-9.:]{4,62})"
    r"/(?P<scope>global|zones/[a-z0-9-]+|regions/[a-z0-9-]+)"
    r"/(?P<kind>[a-zA-Z]+)/(?P<name>[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)",
    re.ASCII,
)
SelfLink = types.matching(
    _SELF_LINK_RE.pattern,
    "a GCP self link (https://www.googleapis.com/compute/v1/projects/P/zones/Z/KIND/NAME)",
)


def self_link(value: str) -> dict[str, str] | None:
    """project, scope (global, zones/Z, regions/R), kind and name of a self link; None if not."""
    match = _SELF_LINK_RE.fullmatch(value)
    return match.groupdict() if match else None


def zone_in_region(zone: str, region: str) -> bool:
    """us-central1-a is in us-central1: a zone is its region, '-' and a letter."""
    return re.fullmatch(rf"{re.escape(region)}-[a-z]", zone) is not None
