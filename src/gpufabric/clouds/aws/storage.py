"""FSx for Lustre in the nodes' zone, with an optional S3 data repository association."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_aws as aws

from gpufabric.clouds.aws.settings import AwsStackConfig, FsxLustreConfig
from gpufabric.inputs.writers import shell_words

# root on a client becomes nobody:nogroup on the file system (rootSquashConfiguration.rootSquash
# takes UID:GID; pulumi-aws 7.51 fsx LustreFileSystemRootSquashConfiguration)
SQUASH_TO = "65534:65534"
LUSTRE_VERSION = "2.15"  # metadata configuration needs 2.15 (docs/sources.md B.1)


def storage_subnet_role(fsx: FsxLustreConfig) -> str:
    """EFA traffic cannot cross subnets (docs/sources.md A.2): an EFA-enabled file system
    sits in the fabric subnet with its clients; a TCP one in the storage partition."""
    return "fabric" if fsx.efa else "storage"


def build_fsx(
    cfg: AwsStackConfig,
    fsx: FsxLustreConfig,
    subnet_id: pulumi.Input[str],
    security_group_ids: Sequence[pulumi.Input[str]],
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> pulumi.Output[dict[str, Any]]:
    opts = pulumi.ResourceOptions(parent=parent)
    name = cfg.name
    persistent = fsx.deployment_type == "PERSISTENT_2"
    metadata = (
        aws.fsx.LustreFileSystemMetadataConfigurationArgs(
            mode=fsx.metadata.mode, iops=fsx.metadata.iops
        )
        if persistent
        else None
    )
    filesystem = aws.fsx.LustreFileSystem(
        f"{name}-fsx",
        deployment_type=fsx.deployment_type,
        storage_type="SSD",
        storage_capacity=fsx.capacity_gib,
        per_unit_storage_throughput=fsx.throughput_per_tib if persistent else None,
        subnet_ids=subnet_id,
        security_group_ids=list(security_group_ids),
        file_system_type_version=LUSTRE_VERSION,
        efa_enabled=fsx.efa or None,
        metadata_configuration=metadata,
        kms_key_id=fsx.kms_key_id,
        data_compression_type="LZ4",
        root_squash_configuration=aws.fsx.LustreFileSystemRootSquashConfigurationArgs(
            root_squash=SQUASH_TO, no_squash_nids=list(fsx.no_squash_nids) or None
        )
        if fsx.root_squash
        else None,
        tags={**tags, "Name": f"{name}-fsx"},
        opts=opts,
    )
    if fsx.s3 is not None:
        repo = fsx.s3
        aws.fsx.DataRepositoryAssociation(
            f"{name}-fsx-s3",
            file_system_id=filesystem.id,
            file_system_path=repo.file_system_path,
            data_repository_path=repo.data_repository_path,
            batch_import_meta_data_on_create=True,
            s3=aws.fsx.DataRepositoryAssociationS3Args(
                auto_import_policy=aws.fsx.DataRepositoryAssociationS3AutoImportPolicyArgs(
                    events=list(repo.auto_import)
                )
                if repo.auto_import
                else None,
                auto_export_policy=aws.fsx.DataRepositoryAssociationS3AutoExportPolicyArgs(
                    events=list(repo.auto_export)
                )
                if repo.auto_export
                else None,
            ),
            tags=tags,
            opts=opts,
        )
    return pulumi.Output.all(filesystem.dns_name, filesystem.mount_name).apply(
        lambda args: {
            "type": "fsx-lustre",
            "dnsName": args[0],
            "mountName": args[1],
            "mountPoint": fsx.mount_point,
            "efa": fsx.efa,
            "zone": fsx.zone or cfg.zone,
            "mountCommand": shell_words(
                [
                    *("mount", "-t", "lustre", "-o", "relatime,flock"),
                    f"{args[0]}@tcp:/{args[1]}",
                    fsx.mount_point,
                ],
                "storage.mountCommand",
            ),
        }
    )
