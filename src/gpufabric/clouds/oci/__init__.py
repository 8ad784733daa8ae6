"""OCI: an RDMA cluster network of bare-metal GPU nodes, its VCN and File Storage with Lustre."""

from gpufabric.clouds.oci.cluster import OciCluster, OciClusterArgs

__all__ = ["OciCluster", "OciClusterArgs"]
