"""The clouds: one package each (gpufabric.clouds.<name>), listed once in gpufabric.clouds.registry.

Every cloud's cluster component fills the same stack outputs (gpufabric.stack_outputs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpufabric.clouds import registry
from gpufabric.extras import require

if TYPE_CHECKING:
    from gpufabric.clouds.outputs import ClusterOutputs
    from gpufabric.config import StackConfig


def build_cluster(cfg: StackConfig) -> ClusterOutputs:
    """Create the cluster component for the instance type's cloud (the catalog entry the
    config was parsed with). Imports only that SDK; where it is not installed, one line names
    the extra that brings it."""
    itype = cfg.instance
    spec = registry.get(itype.cloud)
    require(spec.pulumi_sdk, f"stack {cfg.name} ({itype.name}, {itype.cloud})")
    return registry.module(itype.cloud, "cluster").build(cfg)
