"""`gpufabric certify`: staged acceptance of a cluster, nodes held until they pass, a scorecard.

clustermax  ClusterMAX's networking checks on a node's NCCL configuration
"""
