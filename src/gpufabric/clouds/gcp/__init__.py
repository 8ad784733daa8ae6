"""GCP: A3 High / A3 Mega (GPUDirect-TCPX/O over gVNIC VPCs) and A3 Ultra / A4 (RoCE) clusters."""

from gpufabric.clouds.gcp.cluster import GcpCluster, GcpClusterArgs

__all__ = ["GcpCluster", "GcpClusterArgs"]
