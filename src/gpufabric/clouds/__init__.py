"""Per-cloud cluster components. Each fills the same stack outputs (gpufabric.stack_outputs)."""

from __future__ import annotations

from typing import assert_never

from gpufabric.clouds.outputs import ClusterOutputs
from gpufabric.config import StackConfig
from gpufabric.extras import PULUMI_SDK, require


def build_cluster(cfg: StackConfig) -> ClusterOutputs:
    """Create the cluster component for the instance type's cloud (the catalog entry the
    config was parsed with). Imports only that SDK; where it is not installed, one line names
    the extra that brings it."""
    itype = cfg.instance
    require(PULUMI_SDK[itype.cloud], f"stack {cfg.name} ({itype.name}, {itype.cloud})")
    if itype.cloud == "aws":
        from gpufabric.clouds.aws import AwsCluster, AwsClusterArgs

        return AwsCluster(cfg.name, AwsClusterArgs(config=cfg, instance=itype)).outputs
    if itype.cloud == "azure":
        from gpufabric.clouds.azure import AzureCluster, AzureClusterArgs

        return AzureCluster(cfg.name, AzureClusterArgs(config=cfg, instance=itype)).outputs
    if itype.cloud == "gcp":
        from gpufabric.clouds.gcp import GcpCluster, GcpClusterArgs

        return GcpCluster(cfg.name, GcpClusterArgs(config=cfg, instance=itype)).outputs
    if itype.cloud == "oci":
        from gpufabric.clouds.oci import OciCluster, OciClusterArgs

        return OciCluster(cfg.name, OciClusterArgs(config=cfg, instance=itype)).outputs
    if itype.cloud == "nebius":
        from gpufabric.clouds.nebius import NebiusCluster, NebiusClusterArgs

        return NebiusCluster(cfg.name, NebiusClusterArgs(config=cfg, instance=itype)).outputs
    assert_never(itype.cloud)  # pyright proves every catalog cloud has a component
