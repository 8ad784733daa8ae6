"""Storage promises: the shared file system sits in the GPU nodes' zone; volumes are encrypted."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpufabric.policies.model import (
    EVERY_CLOUD,
    Resource,
    ResourcePolicy,
    Stack,
    StackPolicy,
    as_list,
    as_map,
    dig,
    is_true,
    maps,
)
from gpufabric.policies.nodes import (
    AWS_GROUP,
    AWS_INSTANCE,
    AWS_SUBNET,
    AWS_TEMPLATE,
    GCP_REGION_GROUP,
    NEBIUS_INSTANCE,
    OCI_CLUSTER_NETWORK,
    gpu_nodes,
    node_subnets,
)

AWS_FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
AWS_VOLUME = "aws:ebs/volume:Volume"
AWS_EFS = "aws:efs/fileSystem:FileSystem"
GCP_LUSTRE = "gcp:lustre/instance:Instance"
GCP_PARALLELSTORE = "gcp:parallelstore/instance:Instance"
GCP_FILESTORE = "gcp:filestore/instance:Instance"
AZURE_LUSTRE = "azure-native:storagecache:AmlFilesystem"
OCI_LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"
NEBIUS_FILESYSTEM = "nebius:index/computeV1Filesystem:ComputeV1Filesystem"
# Nebius has no zones below a region, and VMs and filesystems live in one project (one region)
NEBIUS_REGION = "(the Nebius project's region)"
_GCP_ZONE = re.compile(r"^[a-z]+-[a-z]+\d+-[a-z]$")


def node_zones(stack: Stack) -> set[str]:
    """Every zone a GPU node may land in, read from the resources that launch them."""
    zones: set[str] = set()
    for node in gpu_nodes(stack):
        res, props = node.resource, node.resource.props
        if res.type in (AWS_GROUP, AWS_INSTANCE):
            zones |= {str(s.props.get("availabilityZone")) for s in node_subnets(stack, node)}
            zones |= set(map(str, as_list(props.get("availabilityZones"))))
            zones.add(str(props.get("availabilityZone") or ""))
            if node.definition.type == AWS_TEMPLATE:
                zones.add(str(dig(node.definition.props, "placement", "availabilityZone") or ""))
        elif res.type == OCI_CLUSTER_NETWORK:
            zones.add(str(dig(props, "placementConfiguration", "availabilityDomain") or ""))
        elif res.type == NEBIUS_INSTANCE:
            zones.add(NEBIUS_REGION)  # no zones: one project, one region
        elif res.type == GCP_REGION_GROUP:
            zones |= {
                str(z).rsplit("/", 1)[-1] for z in as_list(props.get("distributionPolicyZones"))
            }
        elif res.type.startswith("gcp:"):
            zones.add(str(props.get("zone") or "").rsplit("/", 1)[-1])
        else:
            zones |= set(map(str, as_list(props.get("zones"))))
    zones.discard("")
    zones.discard("None")
    return zones


def storage_zones(stack: Stack) -> Iterator[tuple[Resource, str]]:
    """(file system, zone) for every shared file system whose zone the stack states."""
    for fs in stack.of_type(AWS_FSX):
        for ref in as_list(fs.props.get("subnetIds")):
            subnet = stack.resolve(ref, [AWS_SUBNET], fs, "subnetIds")
            if subnet is not None and subnet.props.get("availabilityZone"):
                yield fs, str(subnet.props["availabilityZone"])
    for fs in stack.of_type(GCP_LUSTRE, GCP_PARALLELSTORE, GCP_FILESTORE):
        location = str(fs.props.get("location") or "")
        if _GCP_ZONE.match(location):  # a regional Filestore has no zone to compare
            yield fs, location
    for fs in stack.of_type(AZURE_LUSTRE):
        for zone in as_list(fs.props.get("zones")):
            yield fs, str(zone)
    for fs in stack.of_type(OCI_LUSTRE):
        if fs.props.get("availabilityDomain"):
            yield fs, str(fs.props["availabilityDomain"])
    for fs in stack.of_type(NEBIUS_FILESYSTEM):
        yield fs, NEBIUS_REGION


def _co_located(stack: Stack) -> Iterator[tuple[Resource, str]]:
    zones = node_zones(stack)
    if not zones:
        return
    for fs, zone in storage_zones(stack):
        if zone not in zones:
            yield (
                fs,
                (
                    f"storage is in zone {zone}, GPU nodes are in {', '.join(sorted(zones))}: "
                    "cross-zone I/O adds latency and transfer cost"
                ),
            )


STORAGE_ZONE = StackPolicy(
    name="storage-in-node-zone",
    description=(
        "Shared file systems (FSx for Lustre, GCP Managed Lustre / Parallelstore / zonal "
        "Filestore, Azure Managed Lustre) are in the zone of the GPU nodes"
    ),
    check=_co_located,
    clouds=EVERY_CLOUD,
)


# -- encryption at rest ----------------------------------------------------------------------


def _encrypted_at_rest(res: Resource) -> list[str]:
    props = res.props
    if res.type == AWS_TEMPLATE:
        disks = [m for m in maps(props.get("blockDeviceMappings")) if as_map(m.get("ebs"))]
        if not disks:
            return ["no EBS block device mapping sets encrypted=true (the AMI's default applies)"]
        return [
            f"EBS volume {m.get('deviceName', '?')} is not encrypted"
            for m in disks
            if not is_true(as_map(m.get("ebs")).get("encrypted"))
        ]
    if res.type == AWS_INSTANCE:
        reasons = []
        root = as_map(props.get("rootBlockDevice"))
        if root and not is_true(root.get("encrypted")):
            reasons.append("rootBlockDevice is not encrypted")
        if not root and not props.get("launchTemplate"):
            reasons.append("no rootBlockDevice with encrypted=true and no launch template")
        for disk in maps(props.get("ebsBlockDevices")):
            if not is_true(disk.get("encrypted")):
                reasons.append(f"EBS volume {disk.get('deviceName', '?')} is not encrypted")
        return reasons
    if res.type in (AWS_VOLUME, AWS_EFS) and not is_true(props.get("encrypted")):
        return ["encrypted is not true"]
    return []


ENCRYPTION_AT_REST = ResourcePolicy(
    name="encryption-at-rest",
    description=(
        "EBS volumes (launch templates, instances, volumes) and EFS are encrypted. FSx for "
        "Lustre, GCP disks and Lustre, Azure managed disks and Managed Lustre are always "
        "encrypted at rest by the provider, so there is no switch to check there"
    ),
    check=_encrypted_at_rest,
    clouds=("aws",),
)
