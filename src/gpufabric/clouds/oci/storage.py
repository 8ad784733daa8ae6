"""OCI File Storage with Lustre in the nodes' availability domain, on the storage subnet."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_oci as oci

from gpufabric.clouds.oci.settings import OciLustreConfig, OciStackConfig
from gpufabric.inputs.writers import shell_words


def build_lustre(
    cfg: OciStackConfig,
    lustre: OciLustreConfig,
    compartment: str,
    subnet: oci.core.Subnet,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> pulumi.Output[dict[str, Any] | None]:
    fs = oci.lustre.FileStorageLustreFileSystem(
        f"{cfg.name}-lustre",
        compartment_id=compartment,
        availability_domain=lustre.availability_domain or cfg.zone,
        capacity_in_gbs=lustre.capacity_gb,
        performance_tier=lustre.performance_tier,
        file_system_name=lustre.file_system_name,
        display_name=f"{cfg.name}-lustre",
        subnet_id=subnet.id,
        kms_key_id=lustre.kms_key_id,
        # root on a node is 65534 on the file system unless the stack opts out (rootSquash)
        root_squash_configuration=oci.lustre.FileStorageLustreFileSystemRootSquashConfigurationArgs(
            identity_squash="ROOT" if lustre.root_squash else "NONE",
            client_exceptions=list(lustre.no_squash_nids) or None,
        ),
        freeform_tags=tags,
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return pulumi.Output.all(
        mgs=fs.management_service_address, lnet=fs.lnet, name=fs.file_system_name
    ).apply(
        lambda v: {
            "type": "oci-lustre",
            "dnsName": v["mgs"],
            "mountName": v["name"],
            "mountPoint": lustre.mount_point,
            "mountCommand": shell_words(
                [
                    *("mount", "-t", "lustre"),
                    f"{v['mgs']}@{v['lnet'] or 'tcp'}:/{v['name']}",
                    lustre.mount_point,
                ],
                "storage.mountCommand",
            ),
            "availabilityDomain": lustre.availability_domain or cfg.zone,
            "capacityGb": lustre.capacity_gb,
            "performanceTier": lustre.performance_tier,
        }
    )
