"""GPU nodes: one instance configuration (shape, image, RDMA agent plugins, capacity
reservation) and one RDMA cluster network with one instance pool, in one availability domain,
optionally pinned to an HPC island and its network blocks (docs/sources.md O.2, O.3, O.5).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_oci as oci

from gpufabric.catalog import InstanceType
from gpufabric.clouds.oci.bundle import build_bundle
from gpufabric.clouds.oci.network import OciNetwork
from gpufabric.clouds.oci.settings import OciStackConfig
from gpufabric.clouds.outputs import user_data_input
from gpufabric.stack_outputs import NodeGroup

# Oracle Cloud Agent plugins RDMA needs on GPU shapes ([P] oracle-quickstart/oci-hpc
# cluster-network-configuration.tf; docs/sources.md O.1)
RDMA_PLUGINS = (
    "Compute HPC RDMA Authentication",
    "Compute HPC RDMA Auto-Configuration",
    "Compute RDMA GPU Monitoring",
)
NODE_ROLE_TAG = ("gpufabric-role", "gpu-node")
# How long OCI may take to create a cluster network: 30 minutes per started batch of 20 RDMA
# nodes, one batch more when the count is a multiple of 20 ([P] oracle-quickstart/oci-hpc
# locals.tf: timeout_per_batch = 30 with RDMA, timeout_ip = ((n - n % 20) / 20 + 1) * 30 m).
# The provider's own default is 20 minutes, whatever the size.
RDMA_BATCH_NODES = 20
RDMA_BATCH_MINUTES = 30


def cluster_network_create_minutes(nodes: int) -> int:
    """16 nodes: 30; 20: 60; 64: 120 (Oracle's figure, as oci-hpc applies it)."""
    return (nodes // RDMA_BATCH_NODES + 1) * RDMA_BATCH_MINUTES


@dataclass
class OciNodes:
    cluster_network: oci.core.ClusterNetwork
    group: pulumi.Output[NodeGroup]


def build_nodes(
    cfg: OciStackConfig,
    itype: InstanceType,
    compartment: str,
    net: OciNetwork,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> OciNodes:
    opts = pulumi.ResourceOptions(parent=parent)
    name = cfg.name
    node_tags = {**tags, NODE_ROLE_TAG[0]: NODE_ROLE_TAG[1]}
    user_data: pulumi.Input[str] | None = None
    if cfg.user_data:
        encoded = base64.b64encode(cfg.user_data.encode()).decode()
        user_data = user_data_input(cfg.user_data, encoded)
    if cfg.boot.enabled:  # the bundle in the stack's bucket; the user data fetches it
        user_data = build_bundle(cfg, itype, compartment, tags, parent).user_data
    configuration = oci.core.InstanceConfiguration(
        f"{name}-nodes",
        compartment_id=compartment,
        display_name=f"{name}-nodes",
        instance_details=oci.core.InstanceConfigurationInstanceDetailsArgs(
            instance_type="compute",
            launch_details=_launch_details(cfg, itype, compartment, net, node_tags, user_data),
        ),
        freeform_tags=tags,
        opts=opts,
    )
    island = cfg.oci.hpc_island_id
    cluster_network = oci.core.ClusterNetwork(
        f"{name}-cn",
        compartment_id=compartment,
        display_name=f"{name}-cn",
        # "each cluster network can have one instance pool" (pulumi-oci cluster_network.py)
        instance_pools=[
            oci.core.ClusterNetworkInstancePoolArgs(
                instance_configuration_id=configuration.id,
                size=cfg.nodes,
                display_name=f"{name}-pool",
            )
        ],
        placement_configuration=oci.core.ClusterNetworkPlacementConfigurationArgs(
            availability_domain=cfg.zone,
            primary_vnic_subnets=oci.core.ClusterNetworkPlacementConfigurationPrimaryVnicSubnetsArgs(
                subnet_id=net.subnets["fabric"].id
            ),
        ),
        cluster_configuration=(
            oci.core.ClusterNetworkClusterConfigurationArgs(
                hpc_island_id=island, network_block_ids=cfg.oci.network_block_ids or None
            )
            if island
            else None
        ),
        freeform_tags=node_tags,
        opts=pulumi.ResourceOptions.merge(
            opts,
            pulumi.ResourceOptions(
                custom_timeouts=pulumi.CustomTimeouts(
                    create=f"{cluster_network_create_minutes(cfg.nodes)}m"
                )
            ),
        ),
    )
    # the cluster network's one instance pool: discovery lists its instances
    group = pulumi.Output.all(pools=cluster_network.instance_pools).apply(
        lambda v: NodeGroup(
            kind="cluster-network", name=f"{name}-cn", count=cfg.nodes, id=_pool_id(v["pools"])
        )
    )
    return OciNodes(cluster_network, group)


def _pool_id(pools: Any) -> str | None:
    """The id of the cluster network's one instance pool; None while it has none. Pulumi hands
    each pool over as a dict (pulumi-oci's output types are dict subclasses)."""
    first = (pools or [None])[0]
    return None if first is None else first.get("id")


def _launch_details(
    cfg: OciStackConfig,
    itype: InstanceType,
    compartment: str,
    net: OciNetwork,
    tags: dict[str, str],
    user_data: pulumi.Input[str] | None,
) -> oci.core.InstanceConfigurationInstanceDetailsLaunchDetailsArgs:
    settings = cfg.oci
    metadata: dict[str, pulumi.Input[str]] = {"ssh_authorized_keys": settings.ssh_public_key}
    if user_data is not None:
        metadata["user_data"] = user_data
    return oci.core.InstanceConfigurationInstanceDetailsLaunchDetailsArgs(
        shape=itype.name,
        availability_domain=cfg.zone,
        compartment_id=compartment,
        display_name=f"{cfg.name}-node",
        capacity_reservation_id=cfg.capacity.reservation_id,
        create_vnic_details=oci.core.InstanceConfigurationInstanceDetailsLaunchDetailsCreateVnicDetailsArgs(
            subnet_id=net.subnets["fabric"].id,
            assign_public_ip=False,
            display_name="frontend",
        ),
        agent_config=oci.core.InstanceConfigurationInstanceDetailsLaunchDetailsAgentConfigArgs(
            are_all_plugins_disabled=False,
            plugins_configs=[
                oci.core.InstanceConfigurationInstanceDetailsLaunchDetailsAgentConfigPluginsConfigArgs(
                    name=plugin, desired_state="ENABLED"
                )
                for plugin in RDMA_PLUGINS
            ],
        ),
        source_details=oci.core.InstanceConfigurationInstanceDetailsLaunchDetailsSourceDetailsArgs(
            source_type="image",
            image_id=settings.image_id,
            boot_volume_size_in_gbs=str(cfg.root_volume.size_gib),
        ),
        instance_options=oci.core.InstanceConfigurationInstanceDetailsLaunchDetailsInstanceOptionsArgs(
            are_legacy_imds_endpoints_disabled=True  # IMDS v2 only
        ),
        metadata=metadata,
        freeform_tags=tags,
    )
