"""GPU nodes: a user-assigned identity, one proximity placement group, and one Uniform VM scale
set per InfiniBand partition (single placement group on, at most maxVmsPerScaleSet VMs each).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pulumi
from pulumi_azure_native import compute, managedidentity

from gpufabric.catalog import InstanceType
from gpufabric.clouds.azure.bundle import build_bundle
from gpufabric.clouds.azure.network import AzureNetwork
from gpufabric.clouds.azure.partitions import Partition, partitions
from gpufabric.clouds.azure.settings import AzureStackConfig
from gpufabric.clouds.outputs import user_data_input
from gpufabric.stack_outputs import NodeGroup

NODE_ROLE_TAG = ("gpufabric:role", "gpu-node")
PARTITION_TAG = "gpufabric:ibPartition"


@dataclass
class AzureNodes:
    placement_group: compute.ProximityPlacementGroup
    groups: pulumi.Output[list[NodeGroup]]


def build_nodes(
    cfg: AzureStackConfig,
    itype: InstanceType,
    resource_group: pulumi.Input[str],
    net: AzureNetwork,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> AzureNodes:
    opts = pulumi.ResourceOptions(parent=parent)
    name = cfg.name
    identity = managedidentity.UserAssignedIdentity(
        f"{name}-nodes",
        resource_name_=f"{name}-nodes",
        resource_group_name=resource_group,
        location=cfg.region,
        tags=tags,
        opts=opts,
    )
    placement = compute.ProximityPlacementGroup(
        f"{name}-ppg",
        proximity_placement_group_name=f"{name}-ppg",
        proximity_placement_group_type=compute.ProximityPlacementGroupType.STANDARD,
        intent=compute.ProximityPlacementGroupPropertiesIntentArgs(vm_sizes=[itype.name]),
        zones=[cfg.zone],
        resource_group_name=resource_group,
        location=cfg.region,
        tags=tags,
        opts=opts,
    )
    custom_data: pulumi.Input[str] | None = (
        user_data_input(cfg.user_data, base64.b64encode(cfg.user_data.encode()).decode())
        if cfg.user_data
        else None
    )
    if cfg.boot.enabled:  # the bundle in the stack's storage account; customData fetches it
        custom_data = build_bundle(cfg, itype, resource_group, identity, tags, parent).user_data
    cut = partitions(name, cfg.nodes, cfg.azure.max_vms_per_scale_set)
    scale_sets = [
        compute.VirtualMachineScaleSet(
            part.scale_set,
            vm_scale_set_name=part.scale_set,
            sku=compute.SkuArgs(name=itype.name, tier="Standard", capacity=part.size),
            orchestration_mode=compute.OrchestrationMode.UNIFORM,
            # InfiniBand needs one placement group per set (docs/sources.md D.2)
            single_placement_group=True,
            proximity_placement_group=compute.SubResourceArgs(id=placement.id),
            zones=[cfg.zone],
            platform_fault_domain_count=1,
            overprovision=False,  # extra VMs would join the partition and then be deleted
            upgrade_policy=compute.UpgradePolicyArgs(mode=compute.UpgradeMode.MANUAL),
            identity=compute.VirtualMachineScaleSetIdentityArgs(
                type=compute.ResourceIdentityType.USER_ASSIGNED,
                user_assigned_identities=[identity.id],
            ),
            virtual_machine_profile=_vm_profile(cfg, net, part, custom_data),
            resource_group_name=resource_group,
            location=cfg.region,
            tags={**tags, NODE_ROLE_TAG[0]: NODE_ROLE_TAG[1], PARTITION_TAG: str(part.index)},
            opts=opts,
        )
        for part in cut
    ]
    # one scale set = one InfiniBand partition; no InfiniBand between partitions
    groups = pulumi.Output.all(*[s.name for s in scale_sets]).apply(
        lambda names: [
            NodeGroup(kind="scale-set", name=set_name, count=part.size, partition=part.index)
            for set_name, part in zip(names, cut, strict=True)
        ]
    )
    return AzureNodes(placement, groups)


def image_reference(cfg: AzureStackConfig) -> compute.ImageReferenceArgs:
    urn = cfg.azure.image_urn
    if urn is None:
        return compute.ImageReferenceArgs(id=cfg.azure.image)
    publisher, offer, sku, version = urn
    return compute.ImageReferenceArgs(publisher=publisher, offer=offer, sku=sku, version=version)


def _vm_profile(
    cfg: AzureStackConfig,
    net: AzureNetwork,
    part: Partition,
    custom_data: pulumi.Input[str] | None,
) -> compute.VirtualMachineScaleSetVMProfileArgs:
    user = cfg.azure.admin_username
    key = cfg.azure.ssh_public_key  # required by the model
    return compute.VirtualMachineScaleSetVMProfileArgs(
        storage_profile=compute.VirtualMachineScaleSetStorageProfileArgs(
            image_reference=image_reference(cfg),
            os_disk=compute.VirtualMachineScaleSetOSDiskArgs(
                create_option=compute.DiskCreateOptionTypes.FROM_IMAGE,
                caching=compute.CachingTypes.READ_WRITE,
                disk_size_gb=cfg.root_volume.size_gib,
                managed_disk=compute.VirtualMachineScaleSetManagedDiskParametersArgs(
                    storage_account_type=compute.StorageAccountTypes.PREMIUM_LRS
                ),
                delete_option=compute.DiskDeleteOptionTypes.DELETE,
            ),
        ),
        os_profile=compute.VirtualMachineScaleSetOSProfileArgs(
            # instance ids restart at 0 in every set: one prefix per set keeps hostnames unique
            computer_name_prefix=f"{part.scale_set}-",
            admin_username=user,
            linux_configuration=compute.LinuxConfigurationArgs(
                disable_password_authentication=True,
                ssh=compute.SshConfigurationArgs(
                    public_keys=[
                        compute.SshPublicKeyArgs(
                            path=f"/home/{user}/.ssh/authorized_keys", key_data=key
                        )
                    ]
                ),
            ),
            custom_data=custom_data,
        ),
        network_profile=compute.VirtualMachineScaleSetNetworkProfileArgs(
            network_interface_configurations=[
                compute.VirtualMachineScaleSetNetworkConfigurationArgs(
                    name="eth0",
                    primary=True,
                    enable_accelerated_networking=True,
                    ip_configurations=[
                        # no public_ip_address_configuration: nodes get no public IP
                        compute.VirtualMachineScaleSetIPConfigurationArgs(
                            name="ipconfig0",
                            primary=True,
                            subnet=compute.ApiEntityReferenceArgs(id=net.subnets["compute"].id),
                        )
                    ],
                )
            ]
        ),
    )
