"""`gpufabric:oci:Cluster`: bare-metal GPU nodes on an RDMA cluster network, done right."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from gpufabric import stack_outputs
from gpufabric.catalog import InstanceType
from gpufabric.clouds.oci.network import build_network
from gpufabric.clouds.oci.nodes import RDMA_PLUGINS, build_nodes
from gpufabric.clouds.oci.settings import OciLustreConfig, OciStackConfig
from gpufabric.clouds.oci.storage import build_lustre
from gpufabric.clouds.outputs import ClusterOutputs, check_instance

CLUSTER_TAG = "gpufabric-cluster"


@dataclass
class OciClusterArgs:
    """Inputs of OciCluster: the validated stack config and its catalog entry."""

    config: OciStackConfig
    instance: InstanceType


class OciCluster(pulumi.ComponentResource):
    """A VCN with front-end, storage and management subnets (private, NAT egress), one instance
    configuration with the RDMA agent plugins, one cluster network (one instance pool) in one
    availability domain / HPC island, and File Storage with Lustre in the same domain."""

    outputs: ClusterOutputs

    def __init__(
        self, name: str, args: OciClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufabric:oci:Cluster", name, None, opts)
        cfg, itype = args.config, args.instance
        compartment = _check_args(cfg, itype)
        tags = {CLUSTER_TAG: cfg.name, "gpufabric-stack": cfg.stack, **cfg.tags}
        net = build_network(cfg, compartment, tags, self)
        nodes = build_nodes(cfg, itype, compartment, net, tags, self)
        storage: pulumi.Output[dict | None] = pulumi.Output.from_input(None)
        if isinstance(cfg.storage, OciLustreConfig):
            storage = build_lustre(
                cfg, cfg.storage, compartment, net.subnets["storage"], tags, self
            )
        outputs = pulumi.Output.all(
            vcn=net.vcn.id,
            subnets=pulumi.Output.all(**{r: s.id for r, s in net.subnets.items()}),
            lists=pulumi.Output.all(**{r: s.id for r, s in net.security_lists.items()}),
            nat=net.nat_gateway.id if net.nat_gateway else None,
            cluster_network=nodes.cluster_network.id,
            group=nodes.group,
            storage=storage,
        ).apply(
            lambda v: stack_outputs.build(
                cfg,
                itype,
                groups=[v["group"]],
                network={
                    "vcnId": v["vcn"],
                    "zone": cfg.zone,
                    "subnets": dict(v["subnets"]),
                    "subnetCidrs": {
                        "fabric": cfg.network.fabric_subnet,
                        "storage": cfg.network.storage_subnet,
                        "management": cfg.network.management_subnet,
                    },
                    "securityLists": dict(v["lists"]),
                    "natGateway": v["nat"],
                    # the RDMA network is the cluster network's, not the VCN's
                    "rdma": {
                        "clusterNetworkId": v["cluster_network"],
                        "hcas": list(itype.fabric_hcas),
                        "agentPlugins": list(RDMA_PLUGINS),
                    },
                    "placementGroup": {
                        "kind": "cluster-network",
                        "availabilityDomain": cfg.zone,
                        "hpcIslandId": cfg.oci.hpc_island_id,
                        "networkBlockIds": list(cfg.oci.network_block_ids),
                    },
                },
                storage=v["storage"],
                compartment=compartment,
            )
        )
        self.outputs = ClusterOutputs(outputs)
        self.outputs.register(self)


def _check_args(cfg: OciStackConfig, itype: InstanceType) -> str:
    """The component may be used without the CLI's validation: refuse what cannot work."""
    check_instance("OciClusterArgs", "oci", cfg.instance_type, itype)
    if cfg.node_group != "group":
        raise ValueError("OciClusterArgs.config.node_group: OCI builds one cluster network (group)")
    return cfg.oci.compartment_id  # required by the model, like the storage types it allows


def build(cfg: OciStackConfig) -> ClusterOutputs:
    """The cluster component for a stack of this cloud; its outputs are the stack's."""
    return OciCluster(cfg.name, OciClusterArgs(config=cfg, instance=cfg.instance)).outputs
