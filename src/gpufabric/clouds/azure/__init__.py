"""Azure: InfiniBand clusters (ND H100 v5, ND H200 v5, ND A100 v4) with Azure Managed Lustre."""

from gpufabric.clouds.azure.cluster import AzureCluster, AzureClusterArgs

__all__ = ["AzureCluster", "AzureClusterArgs"]
