"""GPU VMs: one ComputeV1Instance per node, each joining the GPU cluster at creation (a VM cannot
join later), with a managed boot disk, eth0 on the VPC subnet and the shared filesystem
attached by mount tag (docs/sources.md N.2, N.4, N.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_nebius as nebius

from gpufabric.catalog import InstanceType
from gpufabric.clouds.nebius import facts
from gpufabric.clouds.nebius.settings import NebiusFilesystemConfig, NebiusStackConfig
from gpufabric.inputs.writers import cloud_config
from gpufabric.stack_outputs import NodeGroup

NODE_ROLE_LABEL = ("gpufabric-role", "gpu-node")
# [P] docs.nebius.com/compute/storage/types: network_ssd boot disks (pulumi-nebius enum NETWORK_SSD)
BOOT_DISK_TYPE = "NETWORK_SSD"


@dataclass
class NebiusNodes:
    group: pulumi.Output[NodeGroup]


def node_names(cfg: NebiusStackConfig) -> list[str]:
    return [f"{cfg.name}-node-{index:03d}" for index in range(cfg.nodes)]


def build_nodes(
    cfg: NebiusStackConfig,
    itype: InstanceType,
    gpu_cluster: nebius.ComputeV1GpuCluster,
    subnet: nebius.VpcV1Subnet,
    security_group: nebius.VpcV1SecurityGroup,
    filesystem: nebius.ComputeV1Filesystem | None,
    labels: dict[str, str],
    parent: pulumi.Resource,
) -> NebiusNodes:
    wiring = facts.of(itype)
    settings = cfg.nebius
    project = settings.project_id
    opts = pulumi.ResourceOptions(parent=parent)
    node_labels = {**labels, NODE_ROLE_LABEL[0]: NODE_ROLE_LABEL[1]}
    storage = cfg.storage if isinstance(cfg.storage, NebiusFilesystemConfig) else None
    reservation = cfg.capacity.reservation_id
    for name in node_names(cfg):
        nebius.ComputeV1Instance(
            name,
            parent_id=project,
            name=name,
            hostname=name,
            resources=nebius.ComputeV1InstanceResourcesArgs(
                platform=wiring.platform, preset=wiring.preset
            ),
            gpu_cluster=nebius.ComputeV1InstanceGpuClusterArgs(id=gpu_cluster.id),
            boot_disk=nebius.ComputeV1InstanceBootDiskArgs(
                attach_mode="READ_WRITE",
                managed_disk=nebius.ComputeV1InstanceBootDiskManagedDiskArgs(
                    name=f"{name}-boot",
                    spec=nebius.ComputeV1InstanceBootDiskManagedDiskSpecArgs(
                        type=BOOT_DISK_TYPE,
                        size_gibibytes=cfg.root_volume.size_gib,
                        source_image_family=nebius.ComputeV1InstanceBootDiskManagedDiskSpecSourceImageFamilyArgs(
                            image_family=settings.image_family
                        ),
                    ),
                ),
            ),
            network_interfaces=[
                nebius.ComputeV1InstanceNetworkInterfaceArgs(
                    name="eth0",
                    subnet_id=subnet.id,
                    security_groups=[
                        nebius.ComputeV1InstanceNetworkInterfaceSecurityGroupArgs(
                            id=security_group.id
                        )
                    ],
                    ip_address=nebius.ComputeV1InstanceNetworkInterfaceIpAddressArgs(),
                    public_ip_address=(
                        nebius.ComputeV1InstanceNetworkInterfacePublicIpAddressArgs()
                        if settings.public_ip
                        else None
                    ),
                )
            ],
            filesystems=(
                [
                    nebius.ComputeV1InstanceFilesystemArgs(
                        attach_mode="READ_WRITE",
                        mount_tag=storage.mount_tag,
                        existing_filesystem=nebius.ComputeV1InstanceFilesystemExistingFilesystemArgs(
                            id=filesystem.id
                        ),
                    )
                ]
                if storage is not None and filesystem is not None
                else None
            ),
            reservation_policy=(
                nebius.ComputeV1InstanceReservationPolicyArgs(
                    policy="STRICT", reservation_ids=[reservation]
                )
                if reservation
                else None
            ),
            # a failed host: start the VM again (it stays in the GPU cluster)
            recovery_policy="RECOVER",
            cloud_init_user_data=cloud_init(cfg),
            labels=node_labels,
            opts=opts,
        )
    # the VMs by name; `id` = the GPU cluster they must sit in
    group = gpu_cluster.id.apply(
        lambda cluster_id: NodeGroup(
            kind="instances",
            name=f"{cfg.name}-nodes",
            count=cfg.nodes,
            members=node_names(cfg),
            id=cluster_id,
        )
    )
    return NebiusNodes(group)


def cloud_init(cfg: NebiusStackConfig) -> str:
    """cloud-config: the admin user with its key, the shared filesystem mounted over virtiofs
    by its mount tag ([P] nebius-solution-library modules/cloud-init), then the user's data.
    Built by the YAML dumper: a key comment, a path or user data can hold no YAML of its own."""
    settings = cfg.nebius
    doc: dict[str, Any] = {
        "users": [
            {
                "name": settings.admin_username,
                "sudo": "ALL=(ALL) NOPASSWD:ALL",
                "shell": "/bin/bash",
                "ssh_authorized_keys": [settings.ssh_public_key],
            }
        ]
    }
    if isinstance(cfg.storage, NebiusFilesystemConfig):
        fs = cfg.storage
        doc["mounts"] = [[fs.mount_tag, fs.mount_point, "virtiofs", "defaults,nofail", "0", "2"]]
    if cfg.user_data:
        doc["write_files"] = [
            {
                "path": "/var/lib/gpufabric/user-data",
                "permissions": "0700",
                "content": cfg.user_data,
            }
        ]
        doc["runcmd"] = [["/var/lib/gpufabric/user-data"]]
    return cloud_config(doc)
