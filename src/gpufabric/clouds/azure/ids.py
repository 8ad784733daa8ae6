"""Azure resource ids: /subscriptions/<uuid>/resourceGroups/<group>/providers/<namespace>/
<type>/<name>[/<type>/<name>...] ([P] learn.microsoft.com azure-resource-manager management
resource-name-rules: resource group names 1-90 of letters, digits, '_', '-', '.', '(' and ')',
not ending with '.')."""

from __future__ import annotations

import re

from gpufabric.inputs import types

# (?i) inside the pattern: ResourceId, built from the pattern alone, ignores case as well
_RESOURCE_ID_RE = re.compile(
    r"(?i)/subscriptions/(?P<subscription>[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})"
    r"/resourceGroups/(?P<group>[-\w.()]{0,89}[-\w()])"
    r"/providers/(?P<namespace>[A-Za-z][A-Za-z0-9.]*)"
    r"(?P<path>(?:/[A-Za-z][A-Za-z0-9]*/[^/\s]+)+)",
    re.ASCII,
)
ResourceId = types.matching(
    _RESOURCE_ID_RE.pattern,
    "an Azure resource id /subscriptions/<uuid>/resourceGroups/<group>/providers/<namespace>/"
    "<type>/<name>",
)


def resource_id(value: str) -> dict[str, str] | None:
    """subscription, group, namespace and the type/name path of a resource id; None if not."""
    match = _RESOURCE_ID_RE.fullmatch(value)
    return match.groupdict() if match else None
