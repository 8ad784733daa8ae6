"""`gpufabric:gcp:Cluster`: a GPU cluster on GCP with its GPU networks done right."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from gpufabric import stack_outputs
from gpufabric.catalog import InstanceType
from gpufabric.clouds.gcp.network import build_network, vpc_mtus
from gpufabric.clouds.gcp.nodes import build_nodes, nic_layout
from gpufabric.clouds.gcp.settings import GcpStackConfig
from gpufabric.clouds.gcp.storage import build_storage
from gpufabric.clouds.outputs import ClusterOutputs, check_instance

CLUSTER_LABEL = "gpufabric-cluster"


@dataclass
class GcpClusterArgs:
    """Inputs of GcpCluster: the validated stack config and its catalog entry."""

    config: GcpStackConfig
    instance: InstanceType


class GcpCluster(pulumi.ComponentResource):
    """Host and GPU VPCs (one per GPU NIC, or one RoCE VPC), firewalls, Cloud NAT, placement
    (compact policy or workload policy), the node group and co-located storage, in one zone."""

    outputs: ClusterOutputs

    def __init__(
        self, name: str, args: GcpClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufabric:gcp:Cluster", name, None, opts)
        cfg, itype = args.config, args.instance
        _check_args(cfg, itype)
        host_mtu, mtu = vpc_mtus(cfg, itype)
        labels = {CLUSTER_LABEL: cfg.name, "gpufabric-stack": cfg.stack, **cfg.tags}

        net = build_network(cfg, itype, self)  # VPCs and subnets take no labels
        nodes = build_nodes(cfg, itype, net, labels, self)
        storage = build_storage(cfg, net, labels, self)

        subnets = {sub.role: sub.subnet.id for sub in (net.host, net.management, *net.extra_host)}
        subnets.update({sub.role: sub.subnet.id for sub in net.gpu})
        outputs = pulumi.Output.all(
            vpc=net.host.network.id,
            networks=pulumi.Output.all(*[n.id for n in net.networks]),
            subnets=pulumi.Output.all(**subnets),
            firewalls=pulumi.Output.all(
                *[f.name for f in net.firewalls],
                *([net.roce_guard.policy.name] if net.roce_guard else []),
            ),
            placement=pulumi.Output.all(*[policy.name for policy in nodes.placement]),
            group=nodes.group,
            storage=storage,
        ).apply(
            lambda v: stack_outputs.build(
                cfg,
                itype,
                groups=[v["group"]],
                network={
                    "vpcId": v["vpc"],
                    "zone": cfg.zone,
                    "networks": list(v["networks"]),
                    "subnets": dict(v["subnets"]),
                    "mtu": mtu,  # the GPU VPCs
                    "hostMtu": host_mtu,  # the host VPCs (Managed Lustre's network)
                    "rdmaNetworkProfile": net.roce_profile,
                    "nics": [{"subnet": s.role, "nicType": s.nic_type} for s in nic_layout(itype)],
                    "firewalls": list(v["firewalls"]),
                    "placementPolicy": {
                        "names": list(v["placement"]),
                        "kind": "workload-high-throughput"
                        if cfg.node_group == "group"
                        else "compact-collocated",
                        # new-policies: created here; reservation: the reservation's own placement
                        "source": nodes.placement_source,
                    },
                },
                storage=v["storage"],
                project=cfg.gcp.project,
            )
        )
        self.outputs = ClusterOutputs(outputs)
        self.outputs.register(self)


def _check_args(cfg: GcpStackConfig, itype: InstanceType) -> None:
    """Constructor checks, naming the bad input (the config was validated once already)."""
    check_instance("GcpClusterArgs", "gcp", cfg.instance_type, itype)
    provider_project = pulumi.Config("gcp").get("project")
    if provider_project and provider_project != cfg.gcp.project:
        raise pulumi.RunError(
            f"gpufabric:gcp.project: {cfg.gcp.project!r} is not valid; it must match "
            f"gcp:project {provider_project!r} (the provider's project)"
        )


def build(cfg: GcpStackConfig) -> ClusterOutputs:
    """The cluster component for a stack of this cloud; its outputs are the stack's."""
    return GcpCluster(cfg.name, GcpClusterArgs(config=cfg, instance=cfg.instance)).outputs
