"""`gpufabric:nebius:Cluster`: GPU VMs in one InfiniBand GPU cluster, done right."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_nebius as nebius

from gpufabric import stack_outputs
from gpufabric.catalog import InstanceType
from gpufabric.clouds.nebius import facts
from gpufabric.clouds.nebius.fabrics import fabric_for
from gpufabric.clouds.nebius.nodes import build_nodes
from gpufabric.clouds.nebius.security import build_security_group
from gpufabric.clouds.nebius.settings import NebiusFilesystemConfig, NebiusStackConfig
from gpufabric.clouds.outputs import ClusterOutputs, check_instance
from gpufabric.inputs.writers import shell_words

CLUSTER_LABEL = "gpufabric-cluster"


@dataclass
class NebiusClusterArgs:
    """Inputs of NebiusCluster: the validated stack config and its catalog entry."""

    config: NebiusStackConfig
    instance: InstanceType


class NebiusCluster(pulumi.ComponentResource):
    """A private address pool, VPC network and subnet, one GPU cluster on the named InfiniBand
    fabric, one VM per node in it, and a shared filesystem attached to every node."""

    outputs: ClusterOutputs

    def __init__(
        self, name: str, args: NebiusClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufabric:nebius:Cluster", name, None, opts)
        cfg, itype = args.config, args.instance
        project, fabric = _check_args(cfg, itype)
        child = pulumi.ResourceOptions(parent=self)
        labels = {CLUSTER_LABEL: cfg.name, "gpufabric-stack": cfg.stack, **cfg.tags}
        pool = nebius.VpcV1Pool(
            f"{cfg.name}-pool",
            parent_id=project,
            name=f"{cfg.name}-pool",
            version="IPV4",
            visibility="PRIVATE",
            cidrs=[nebius.VpcV1PoolCidrArgs(cidr=cfg.network.cidr)],
            labels=labels,
            opts=child,
        )
        network = nebius.VpcV1Network(
            f"{cfg.name}-net",
            parent_id=project,
            name=f"{cfg.name}-net",
            ipv4_private_pools=nebius.VpcV1NetworkIpv4PrivatePoolsArgs(
                pools=[nebius.VpcV1NetworkIpv4PrivatePoolsPoolArgs(id=pool.id)]
            ),
            labels=labels,
            opts=child,
        )
        subnet = nebius.VpcV1Subnet(
            f"{cfg.name}-nodes",
            parent_id=project,
            name=f"{cfg.name}-nodes",
            network_id=network.id,
            ipv4_private_pools=nebius.VpcV1SubnetIpv4PrivatePoolsArgs(
                use_network_pools=False,
                pools=[
                    nebius.VpcV1SubnetIpv4PrivatePoolsPoolArgs(
                        cidrs=[
                            nebius.VpcV1SubnetIpv4PrivatePoolsPoolCidrArgs(
                                cidr=cfg.network.fabric_subnet
                            )
                        ]
                    )
                ],
            ),
            labels={**labels, "gpufabric-partition": "fabric"},
            opts=child,
        )
        security_group = build_security_group(cfg, project, network, labels, child)
        gpu_cluster = nebius.ComputeV1GpuCluster(
            f"{cfg.name}-gpu-cluster",
            parent_id=project,
            name=f"{cfg.name}-gpu-cluster",
            infiniband_fabric=fabric,
            labels=labels,
            opts=child,
        )
        filesystem = None
        storage: pulumi.Output[dict | None] = pulumi.Output.from_input(None)
        if isinstance(cfg.storage, NebiusFilesystemConfig):
            fs = cfg.storage
            filesystem = nebius.ComputeV1Filesystem(
                f"{cfg.name}-shared",
                parent_id=project,
                name=f"{cfg.name}-shared",
                type=fs.filesystem_type,
                size_gibibytes=fs.size_gib,
                block_size_bytes=fs.block_size_bytes,
                labels=labels,
                opts=child,
            )
            storage = filesystem.id.apply(
                lambda fid: {
                    "type": "nebius-filesystem",
                    "id": fid,
                    "filesystemType": fs.filesystem_type,
                    "sizeGib": fs.size_gib,
                    "mountName": fs.mount_tag,
                    "mountPoint": fs.mount_point,
                    "mountCommand": shell_words(
                        ["mount", "-t", "virtiofs", fs.mount_tag, fs.mount_point],
                        "storage.mountCommand",
                    ),
                }
            )
        nodes = build_nodes(
            cfg, itype, gpu_cluster, subnet, security_group, filesystem, labels, self
        )
        outputs = pulumi.Output.all(
            network=network.id,
            subnet=subnet.id,
            gpu_cluster=gpu_cluster.id,
            group=nodes.group,
            storage=storage,
        ).apply(
            lambda v: stack_outputs.build(
                cfg,
                itype,
                groups=[v["group"]],
                network={
                    "networkId": v["network"],
                    "zone": cfg.zone,
                    "subnets": {"fabric": v["subnet"]},
                    "subnetCidrs": {"fabric": cfg.network.fabric_subnet},
                    "publicIp": cfg.nebius.public_ip,
                    # InfiniBand is the GPU cluster's, not VPC traffic
                    "placementGroup": {
                        "kind": "gpu-cluster",
                        "gpuClusterId": v["gpu_cluster"],
                        "infinibandFabric": fabric,
                    },
                },
                storage=v["storage"],
                project=project,
            )
        )
        self.outputs = ClusterOutputs(outputs)
        self.outputs.register(self)


def _check_args(cfg: NebiusStackConfig, itype: InstanceType) -> tuple[str, str]:
    """The component may be used without the CLI's validation: refuse what cannot work."""
    check_instance("NebiusClusterArgs", "nebius", cfg.instance_type, itype)
    # project and key are required by the model, like the storage types it allows; the named
    # fabric is checked against the platform and region, or the only one there is is taken
    return cfg.nebius.project_id, fabric_for(cfg, facts.of(itype).platform)


def build(cfg: NebiusStackConfig) -> ClusterOutputs:
    """The cluster component for a stack of this cloud; its outputs are the stack's."""
    return NebiusCluster(cfg.name, NebiusClusterArgs(config=cfg, instance=cfg.instance)).outputs
