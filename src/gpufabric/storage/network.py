"""How fast the nodes reach the file system: per-node NIC capacity x nodes, from the catalog.

The path storage traffic takes per cloud (docs/sources.md; each rule names its source):
- AWS, TCP Lustre: the one ENA interface on network card 0 (both EFA layouts put the node's
  only IP there, clouds/aws/efa.py), i.e. one card's share of the node bandwidth, capped at
  the IP (ENA) limit ([P] efa-acc-inst-types: P5 "use case 1" gives up to 100 Gbps of IP).
- AWS, EFA-enabled FSx: the EFA interfaces the Lustre client binds (kefalnd): on P5 / P5e every
  4th EFA device, 8 interfaces; other types 1-2 ([P] amazon-eks-user-guide
  fsx-csi-tuning-efa.adoc). 2 is used where the guide says 1-2 (UNCONFIRMED which).
- Azure: the accelerated-networking Ethernet NIC (Managed Lustre is reached over the VNet, not
  InfiniBand); unknown where the catalog has no Ethernet figure.
- GCP: the first gVNIC, whose VPC is peered to the Lustre service (clouds/gcp/network.py).
These are line rates: an upper bound. A goal above it cannot be met by any file system.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufabric.catalog import InstanceType

# AWS: EFA interfaces the FSx Lustre client uses per node ([P] fsx-csi-tuning-efa.adoc)
LUSTRE_EFA_INTERFACES = {"p5.48xlarge": 8, "p5e.48xlarge": 8}
LUSTRE_EFA_INTERFACES_OTHER = 2


@dataclass(frozen=True)
class NodePath:
    gbps_per_node: float  # Gbit/s
    how: str  # what carries it, in words

    def aggregate_gbytes(self, nodes: int) -> float:
        """GB/s all nodes can move to or from the file system at line rate."""
        return self.gbps_per_node * nodes / 8


def node_path(itype: InstanceType, efa: bool = False) -> NodePath | None:
    """The storage path of one node of `itype`; None when the catalog cannot say."""
    if itype.cloud == "aws":
        assert itype.aws is not None
        if efa:
            count = min(
                LUSTRE_EFA_INTERFACES.get(itype.name, LUSTRE_EFA_INTERFACES_OTHER),
                itype.fabric_nics,
            )
            return NodePath(
                count * itype.fabric_nic_gbps, f"{count} EFA x {itype.fabric_nic_gbps} Gbps"
            )
        card = itype.total_gbps / itype.aws.network_cards
        gbps = min(card, itype.aws.ip_gbps_cap)
        return NodePath(gbps, f"1 ENA on network card 0, {gbps:g} Gbps")
    if itype.cloud == "azure":
        assert itype.azure is not None
        if itype.azure.ethernet_gbps is None:
            return None
        return NodePath(itype.azure.ethernet_gbps, f"Ethernet NIC {itype.azure.ethernet_gbps} Gbps")
    if itype.gcp is None:  # OCI / Nebius: the front-end NIC's rate is not in the catalog
        return None
    return NodePath(itype.gcp.host_nic_gbps, f"first gVNIC {itype.gcp.host_nic_gbps} Gbps")
