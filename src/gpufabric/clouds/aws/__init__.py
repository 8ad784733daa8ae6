"""AWS: EFA clusters (p4d, p4de, p5, p5e, p5en, p6-b200) with FSx for Lustre."""

from gpufabric.clouds.aws.cluster import AwsCluster, AwsClusterArgs

__all__ = ["AwsCluster", "AwsClusterArgs"]
