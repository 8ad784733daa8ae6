"""Nebius: a GPU cluster on an InfiniBand fabric, its VMs, VPC subnet and shared filesystem."""

from gpufabric.clouds.nebius.cluster import NebiusCluster, NebiusClusterArgs

__all__ = ["NebiusCluster", "NebiusClusterArgs"]
