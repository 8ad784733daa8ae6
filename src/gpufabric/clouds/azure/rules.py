"""Azure rules: location and zone, the RDMA-reserved range, scale-set splitting (= InfiniBand
partitions), capacity (no reservations with InfiniBand), and Azure Managed Lustre SKU, capacity and subnet steps.
"""

from __future__ import annotations

import ipaddress
import math
import re

from gpufabric.catalog import InstanceType
from gpufabric.clouds.azure.settings import AzureManagedLustreConfig, AzureStackConfig
from gpufabric.errors import ConfigError
from gpufabric.storage.sizing import service

ZONES = ("1", "2", "3")
# docs/sources.md D.2: Azure RDMA uses 172.16.0.0/16; it must not appear in the VNet.
RDMA_RESERVED = ipaddress.IPv4Network("172.16.0.0/16")
# learn.microsoft.com azure-managed-lustre/amlfs-prerequisites: largest capacity (TiB) ->
# smallest subnet prefix. Above 400 TiB the table stops; /22 is our conservative guess.
AMLFS_SUBNET_PREFIX = ((16, 27), (40, 26), (92, 25), (196, 24), (400, 23))
AMLFS_SUBNET_PREFIX_ABOVE_TABLE = 22

_LOCATION_RE = re.compile(r"^[a-z]+[a-z0-9]*$")
_TIME_RE = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


def scale_set_count(nodes: int, max_per_set: int) -> int:
    return math.ceil(nodes / max_per_set)


FLOW_LOGS_KEY = "gpufabric:network.flowLogs.destination"
_STORAGE_ID = re.compile(
    r"^/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[\w.()-]{1,90}"
    r"/providers/Microsoft\.Storage/storageAccounts/[a-z0-9]{3,24}$"
)


def check_flow_logs(cfg: AzureStackConfig) -> None:
    """VNet flow logs go through the region's Network Watcher to a storage account:
    `destination` is the storage account's resource id."""
    flow = cfg.network.flow_logs
    if flow is not None and (flow.destination is None or not _STORAGE_ID.match(flow.destination)):
        raise ConfigError(
            FLOW_LOGS_KEY,
            flow.destination,
            "on Azure the storage account's resource id, /subscriptions/<id>/resourceGroups/<rg>"
            "/providers/Microsoft.Storage/storageAccounts/<name>",
        )


def check(cfg: AzureStackConfig, itype: InstanceType) -> None:
    check_flow_logs(cfg)
    _check_location_zone(cfg)
    _check_network(cfg)
    _check_nodes(cfg)
    _check_capacity(cfg, itype)
    if cfg.root_volume.kms_key_id is not None:
        raise ConfigError(
            "gpufabric:rootVolume.kmsKeyId",
            cfg.root_volume.kms_key_id,
            "AWS KMS keys do not apply on Azure; OS disks use platform-managed encryption",
        )
    if isinstance(cfg.storage, AzureManagedLustreConfig):  # else none: the model allows no other
        _check_lustre(cfg, cfg.storage)


def _check_location_zone(cfg: AzureStackConfig) -> None:
    if not _LOCATION_RE.match(cfg.region):
        hint = re.sub(r"[^a-z0-9]", "", cfg.region.lower())
        guess = f" (did you mean '{hint}'?)" if _LOCATION_RE.match(hint) else ""
        raise ConfigError(
            "azure-native:location",
            cfg.region,
            f"expected an Azure location name like eastus or westeurope{guess}",
        )
    if cfg.zone not in ZONES:
        raise ConfigError(
            "gpufabric:zone",
            cfg.zone,
            "expected an Azure availability zone: '1', '2' or '3' (nodes, placement group "
            "and Managed Lustre all go in it)",
        )


def _check_network(cfg: AzureStackConfig) -> None:
    net = cfg.network
    if ipaddress.IPv4Network(net.cidr).overlaps(RDMA_RESERVED):
        raise ConfigError(
            "gpufabric:network.cidr",
            net.cidr,
            f"overlaps {RDMA_RESERVED}, which Azure reserves for RDMA; pick another range, "
            "e.g. 10.0.0.0/16",
        )
    if net.egress == "endpoints":
        raise ConfigError(
            "gpufabric:network.egress",
            net.egress,
            "on Azure use nat (a NAT gateway, the only public IP) or none (no outbound path)",
        )


def _check_nodes(cfg: AzureStackConfig) -> None:
    if cfg.node_group != "group":
        raise ConfigError(
            "gpufabric:nodeGroup",
            cfg.node_group,
            "on Azure use group: InfiniBand is only set up inside one VM scale set "
            "(single placement group)",
        )
    per_set = cfg.azure.max_vms_per_scale_set
    sets = scale_set_count(cfg.nodes, per_set)
    if sets > 1 and not cfg.azure.allow_split:
        raise ConfigError(
            "gpufabric:nodes",
            cfg.nodes,
            f"more than gpufabric:azure.maxVmsPerScaleSet={per_set} VMs in one InfiniBand "
            f"partition, and gpufabric:azure.allowSplit is false; use at most {per_set} nodes, "
            f"allow the split into {sets} scale sets (= {sets} InfiniBand partitions, no "
            "InfiniBand between them), or raise maxVmsPerScaleSet (up to 300 after a support "
            "request)",
        )


def _check_capacity(cfg: AzureStackConfig, itype: InstanceType) -> None:
    cap = cfg.capacity
    if cap.type == "capacity-block":
        raise ConfigError(
            "gpufabric:capacity.type",
            cap.type,
            "capacity blocks are AWS-only; on Azure use on-demand",
        )
    if cap.type == "reservation":
        # [P] learn.microsoft.com/azure/virtual-machines/capacity-reservation-overview
        # ("Limitations and restrictions"): ND-series is not available for capacity
        # reservation, and proximity placement groups and scale sets with
        # singlePlacementGroup true are unsupported deployment constraints. InfiniBand here
        # needs all three (docs/sources.md D.2), so Azure would refuse the deployment.
        raise ConfigError(
            "gpufabric:capacity.type",
            cap.type,
            f"Azure on-demand capacity reservations support neither {itype.name} "
            "(ND-series) nor proximity placement groups or scale sets with "
            "singlePlacementGroup true, which InfiniBand needs here; use type on-demand "
            "(quota for the ND family in the location)",
        )


def _check_lustre(cfg: AzureStackConfig, amlfs: AzureManagedLustreConfig) -> None:
    key = "gpufabric:storage"
    # format rules here rather than in the model: pydantic would add the union tag to the key
    when = amlfs.maintenance_window.time_of_day_utc
    if not _TIME_RE.match(when):
        raise ConfigError(
            f"{key}.maintenanceWindow.timeOfDayUtc",
            when,
            "must be HH:MM in 24-hour UTC, e.g. 02:00",
        )
    svc = service("azure-managed-lustre")  # SKU steps: storage_steps.yaml here
    tiers = svc.tiers()
    if amlfs.throughput_per_tib not in tiers:
        raise ConfigError(
            f"{key}.throughputPerTib",
            amlfs.throughput_per_tib,
            "Azure Managed Lustre SKUs give "
            + ", ".join(map(str, tiers[:-1]))
            + f" or {tiers[-1]} MB/s per TiB",
        )
    if cfg.network.egress == "none":
        raise ConfigError(
            "gpufabric:network.egress",
            "none",
            "Azure Managed Lustre needs outbound access to the AzureCloud service tag "
            "(docs/sources.md D.5); use nat",
        )
    cap = amlfs.capacity_tib
    if not svc.valid(amlfs.throughput_per_tib, cap):
        (band,) = svc.variants["tcp"][amlfs.throughput_per_tib]
        raise ConfigError(
            f"{key}.capacityTib",
            cap,
            f"{amlfs.sku} needs at least {band.low} TiB, in steps of {band.step} TiB, "
            f"up to {band.high} TiB (larger only by support request)",
        )
    needed = next(
        (prefix for limit, prefix in AMLFS_SUBNET_PREFIX if cap <= limit),
        AMLFS_SUBNET_PREFIX_ABOVE_TABLE,
    )
    subnet = ipaddress.IPv4Network(cfg.network.storage_subnet)
    if subnet.prefixlen > needed:
        raise ConfigError(
            "gpufabric:network.storageSubnet",
            cfg.network.storage_subnet,
            f"Azure Managed Lustre of {cap} TiB needs a dedicated subnet of /{needed} or larger",
        )
