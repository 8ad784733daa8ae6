"""Fabric facts read back from a plan's recorded resources, by the cloud's own summary.

These read what the program actually registered (not the config), so the summary proves
the wiring: EFA devices per card, placement, storage zone, partitions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpufabric.clouds import registry
from gpufabric.plan.summary_storage import storage_facts

if TYPE_CHECKING:
    from gpufabric.plan.runner import Plan

Facts = list[tuple[str, str]]


def fabric_summary(plan: Plan) -> Facts:
    """The instance type's cloud reads its own resources back; the storage goal is common."""
    summary = registry.module(plan.config.instance.cloud, "summary")
    return summary.summarise(plan) + storage_facts(plan.config)
