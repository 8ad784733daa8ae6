"""Nebius id formats: <resource kind>-<id>, lowercase letters, digits and '-', e.g.
computeinstance-e00abc123def, project-e00abc123 ([P] docs.nebius.com: resource ids start with
their kind's prefix)."""

from __future__ import annotations

from gpufabric.inputs import types


def resource_id(kind: str) -> object:
    """The id type of one Nebius resource kind ('computeinstance', 'project', ...)."""
    return types.matching(
        rf"{kind}-[a-z0-9](?:[-a-z0-9]{{0,62}}[a-z0-9])?",
        f"a Nebius {kind} id like {kind}-e00abc123",
    )


InstanceId = resource_id("computeinstance")
ProjectId = resource_id("project")
