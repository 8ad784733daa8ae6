"""Azure Managed Lustre in its own subnet, in the nodes' zone."""

from __future__ import annotations

import re
from typing import Any

import pulumi
from pulumi_azure_native import storagecache

from gpufabric.clouds.azure.settings import AzureManagedLustreConfig, AzureStackConfig

SQUASH_ID = 65534.0  # root on a client becomes nobody / nogroup (the SDK takes a number)
_FSNAME_RE = re.compile(r"@tcp:/([^\s/]+)")


def build_managed_lustre(
    cfg: AzureStackConfig,
    amlfs: AzureManagedLustreConfig,
    resource_group: pulumi.Input[str],
    subnet_id: pulumi.Input[str],
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> pulumi.Output[dict[str, Any]]:
    name = cfg.name
    window = amlfs.maintenance_window
    filesystem = storagecache.AmlFilesystem(
        f"{name}-lustre",
        aml_filesystem_name=f"{name}-lustre",
        sku=storagecache.SkuNameArgs(name=amlfs.sku),
        storage_capacity_ti_b=float(amlfs.capacity_tib),
        filesystem_subnet=subnet_id,
        zones=[cfg.zone],  # single-AZ service: with the nodes (docs/sources.md D.5)
        root_squash_settings=_root_squash(amlfs),
        maintenance_window=storagecache.AmlFilesystemMaintenanceWindowArgs(
            day_of_week=storagecache.MaintenanceDayOfWeekType(window.day_of_week),
            time_of_day_utc=window.time_of_day_utc,
        ),
        resource_group_name=resource_group,
        location=cfg.region,
        tags=tags,
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return filesystem.client_info.apply(lambda info: describe(cfg, amlfs, info))


def _root_squash(
    amlfs: AzureManagedLustreConfig,
) -> storagecache.AmlFilesystemRootSquashSettingsArgs:
    """rootSquashSettings: root squashed to 65534 unless the stack opts out; the exempt NIDs as
    the service's semicolon-separated list (pulumi-azure-native 3.29 storagecache)."""
    if not amlfs.root_squash:
        return storagecache.AmlFilesystemRootSquashSettingsArgs(
            mode=storagecache.AmlFilesystemSquashMode.NONE
        )
    return storagecache.AmlFilesystemRootSquashSettingsArgs(
        mode=storagecache.AmlFilesystemSquashMode.ROOT_ONLY,
        squash_uid=SQUASH_ID,
        squash_gid=SQUASH_ID,
        no_squash_nid_lists=";".join(amlfs.no_squash_nids) or None,
    )


def describe(cfg: AzureStackConfig, amlfs: AzureManagedLustreConfig, info: Any) -> dict[str, Any]:
    """The storage output, from the service's client info (MGS address, mount command)."""
    mgs = _field(info, "mgs_address")
    command = _field(info, "mount_command")
    fsname = _FSNAME_RE.search(command or "")
    return {
        "type": "azure-managed-lustre",
        "dnsName": mgs,  # an IP address: the Lustre management service (MGS)
        "mgsAddress": mgs,
        "mountName": fsname.group(1) if fsname else None,
        "mountPoint": amlfs.mount_point,
        "mountCommand": command,  # as the service recommends it (mounts elsewhere: edit the path)
        "lustreVersion": _field(info, "lustre_version"),
        "sku": amlfs.sku,
        "capacityTib": amlfs.capacity_tib,
        "throughputMBps": amlfs.capacity_tib * amlfs.throughput_per_tib,
        "zone": cfg.zone,
    }


def _field(info: Any, name: str) -> Any:
    """A field of the typed client-info response, or of a plain dict (wire, camelCase)."""
    if info is None:
        return None
    if hasattr(info, name):
        return getattr(info, name)
    camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)
    return info.get(camel) if isinstance(info, dict) else None
