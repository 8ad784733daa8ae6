"""`gpufabric:azure:Cluster`: a GPU cluster on Azure with its InfiniBand fabric done right."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_azure_native import resources

from gpufabric.catalog import InstanceType
from gpufabric.clouds.azure.network import build_network, subnet_cidrs
from gpufabric.clouds.azure.nodes import NODE_ROLE_TAG, PARTITION_TAG, build_nodes
from gpufabric.clouds.azure.partitions import scale_set_sizes
from gpufabric.clouds.azure.storage import build_managed_lustre
from gpufabric.clouds.outputs import ClusterOutputs, check_instance
from gpufabric.config import StackConfig
from gpufabric.config.azure import AzureManagedLustreConfig

CLUSTER_TAG = "gpufabric:cluster"


@dataclass
class AzureClusterArgs:
    """Inputs of AzureCluster: the validated stack config and its catalog entry."""

    config: StackConfig
    instance: InstanceType


class AzureCluster(pulumi.ComponentResource):
    """Resource group, VNet partitions with NSGs and NAT egress, a proximity placement group,
    one VM scale set per InfiniBand partition, and Azure Managed Lustre, all in one zone."""

    outputs: ClusterOutputs

    def __init__(
        self, name: str, args: AzureClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufabric:azure:Cluster", name, None, opts)
        cfg, itype = args.config, args.instance
        _check_args(cfg, itype)
        tags = {CLUSTER_TAG: cfg.name, "gpufabric:stack": cfg.stack, **cfg.tags}
        rg_name = cfg.azure.resource_group or f"{cfg.name}-rg"
        group = resources.ResourceGroup(
            rg_name,
            resource_group_name=rg_name,
            location=cfg.region,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self),
        )
        net = build_network(cfg, group.name, tags, self)
        nodes = build_nodes(cfg, itype, group.name, net, tags, self)

        storage: pulumi.Output[dict | None] = pulumi.Output.from_input(None)
        if isinstance(cfg.storage, AzureManagedLustreConfig):
            storage = build_managed_lustre(
                cfg, cfg.storage, group.name, net.subnets["storage"].id, tags, self
            )

        cidrs = subnet_cidrs(cfg)
        network = pulumi.Output.all(
            group=group.name,
            vnet=net.vnet.id,
            subnets=pulumi.Output.all(**{r: s.id for r, s in net.subnets.items()}),
            nsgs=pulumi.Output.all(**{r: g.id for r, g in net.security_groups.items()}),
            ppg=nodes.placement_group.name,
            nat=net.nat_gateway.id if net.nat_gateway else None,
        ).apply(
            lambda v: {
                "resourceGroup": v["group"],
                "vnetId": v["vnet"],
                "zone": cfg.zone,
                "subnets": dict(v["subnets"]),
                "subnetCidrs": cidrs,
                "securityGroups": dict(v["nsgs"]),
                "natGateway": v["nat"],
                "placementGroup": {
                    "name": v["ppg"],
                    "strategy": "proximity",
                    "singlePlacementGroup": True,
                },
            }
        )
        inventory = pulumi.Output.all(group=group.name, description=nodes.description).apply(
            lambda v: {
                "cloud": "azure",
                "region": cfg.region,
                "zone": cfg.zone,
                "cluster": cfg.name,
                "instanceType": itype.name,
                "fabric": itype.fabric,
                "encryption": cfg.encryption,
                "gpusPerNode": itype.gpu.count,
                "ncclTopologyFile": itype.azure.nccl_topology_file if itype.azure else None,
                # one scale set = one InfiniBand partition; no InfiniBand between partitions
                "partitions": v["description"]["scaleSets"],
                "discovery": {
                    "resourceGroup": v["group"],
                    "scaleSets": [s["name"] for s in v["description"]["scaleSets"]],
                    "tags": {CLUSTER_TAG: cfg.name, NODE_ROLE_TAG[0]: NODE_ROLE_TAG[1]},
                    "partitionTag": PARTITION_TAG,
                    "hostname": "private-ip-address",
                },
            }
        )
        self.outputs = ClusterOutputs(
            nodes=nodes.description,
            addresses=pulumi.Output.from_input([]),  # scale-set VMs: found by discovery
            network=network,
            storage=storage,
            inventory=inventory,
        )
        self.outputs.register(self)


def _check_args(cfg: StackConfig, itype: InstanceType) -> None:
    """The component may be used without the CLI's validation: refuse what cannot work."""
    check_instance("AzureClusterArgs", "azure", cfg.instance_type, itype)
    sets = len(scale_set_sizes(cfg.nodes, cfg.azure.max_vms_per_scale_set))
    if sets > 1 and not cfg.azure.allow_split:
        raise ValueError(
            f"AzureClusterArgs.config: nodes={cfg.nodes} needs {sets} scale sets "
            f"(maxVmsPerScaleSet={cfg.azure.max_vms_per_scale_set}) but allowSplit is false"
        )
    if cfg.capacity.type != "on-demand":
        # capacity reservations support neither ND-series nor the proximity placement group
        # and single placement group InfiniBand needs (validate_azure.py has the source)
        raise ValueError(
            f"AzureClusterArgs.config: capacity type {cfg.capacity.type} cannot be used with "
            "InfiniBand scale sets on Azure; use on-demand"
        )
    if cfg.storage.type not in ("azure-managed-lustre", "none"):
        raise ValueError(
            f"AzureClusterArgs.config: storage type {cfg.storage.type} is not an Azure one"
        )
