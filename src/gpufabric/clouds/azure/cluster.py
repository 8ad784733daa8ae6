"""`gpufabric:azure:Cluster`: a GPU cluster on Azure with its InfiniBand fabric done right."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_azure_native import resources

from gpufabric import stack_outputs
from gpufabric.catalog import InstanceType
from gpufabric.clouds.azure.network import build_network, subnet_cidrs
from gpufabric.clouds.azure.nodes import build_nodes
from gpufabric.clouds.azure.partitions import scale_set_sizes
from gpufabric.clouds.azure.settings import AzureManagedLustreConfig, AzureStackConfig
from gpufabric.clouds.azure.storage import build_managed_lustre
from gpufabric.clouds.outputs import ClusterOutputs, check_instance

CLUSTER_TAG = "gpufabric:cluster"


@dataclass
class AzureClusterArgs:
    """Inputs of AzureCluster: the validated stack config and its catalog entry."""

    config: AzureStackConfig
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
        outputs = pulumi.Output.all(
            group=group.name,
            vnet=net.vnet.id,
            subnets=pulumi.Output.all(**{r: s.id for r, s in net.subnets.items()}),
            nsgs=pulumi.Output.all(**{r: g.id for r, g in net.security_groups.items()}),
            ppg=nodes.placement_group.name,
            nat=net.nat_gateway.id if net.nat_gateway else None,
            groups=nodes.groups,
            storage=storage,
        ).apply(
            lambda v: stack_outputs.build(
                cfg,
                itype,
                groups=list(v["groups"]),
                network={
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
                },
                storage=v["storage"],
                resource_group=v["group"],
            )
        )
        self.outputs = ClusterOutputs(outputs)
        self.outputs.register(self)


def _check_args(cfg: AzureStackConfig, itype: InstanceType) -> None:
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
        # and single placement group InfiniBand needs (rules.py has the source)
        raise ValueError(
            f"AzureClusterArgs.config: capacity type {cfg.capacity.type} cannot be used with "
            "InfiniBand scale sets on Azure; use on-demand"
        )
    if cfg.storage.type not in ("azure-managed-lustre", "none"):
        raise ValueError(
            f"AzureClusterArgs.config: storage type {cfg.storage.type} is not an Azure one"
        )


def build(cfg: AzureStackConfig) -> ClusterOutputs:
    """The cluster component for a stack of this cloud; its outputs are the stack's."""
    return AzureCluster(cfg.name, AzureClusterArgs(config=cfg, instance=cfg.instance)).outputs
