"""OCI rules: identities, availability domain, cluster-network placement, capacity, Lustre steps.

Facts and their sources: docs/sources.md O.1-O.5 (pulumi-oci 5.5.0 and the OCI docs pages
named there).
"""

from __future__ import annotations

import ipaddress
import math
import re

from gpufabric.catalog import InstanceType
from gpufabric.clouds.oci.settings import OciStackConfig, ocid_type
from gpufabric.config.model import NoStorage
from gpufabric.config.validate import refuse_flow_logs
from gpufabric.errors import ConfigError

# [P] docs.oracle.com/iaas/Content/lustre/file-system-capacity.htm (docs/sources.md O.4):
# 31.2 TB minimum, steps of 10.4 TB up to 124.8 TB, then steps of 41.6 TB. In GB (capacity_in_gbs).
LUSTRE_MIN_GB = 31200
LUSTRE_SMALL_STEP_GB = 10400
LUSTRE_SMALL_MAX_GB = 124800
LUSTRE_LARGE_STEP_GB = 41600
LUSTRE_TIERS = ("MBPS_PER_TB_125", "MBPS_PER_TB_250", "MBPS_PER_TB_500", "MBPS_PER_TB_1000")
# The Lustre subnet needs 43 to 60 addresses per 100 TB, "depending on the performance tier"
# ([P] docs.oracle.com/en/solutions/deploy-lustre-file-systems/configuring-lustre-connectivity.html).
# The page does not say which tier needs which, so every tier is held to the upper figure.
LUSTRE_ADDRESSES_PER_100_TB = 60
# OCI reserves the first two and the last address of every subnet
# ([P] docs.oracle.com/iaas/Content/Network/Concepts/overview.htm, "Reserved IP addresses").
OCI_RESERVED_PER_SUBNET = 3
# [P] pulumi-oci lustre docstring: <= 8 characters of letters, digits and '_'
_LUSTRE_NAME_RE = re.compile(r"^[A-Za-z0-9_]{1,8}$")
# Availability domain names: <tenancy prefix>:<REGION KEY or NAME>-AD-<n>, e.g.
# Uocm:US-ASHBURN-AD-1, Uocm:PHX-AD-1 ([P] docs.oracle.com regions and availability domains)
_AD_RE = re.compile(r"^[A-Za-z0-9]{4}:(?P<where>[A-Z0-9-]+)-AD-[1-3]$")
_REGION_RE = re.compile(r"^[a-z]+-[a-z]+-\d+$")


def check(cfg: OciStackConfig, itype: InstanceType) -> None:
    refuse_flow_logs(cfg, "oci")
    _check_region_ad(cfg)
    _check_node_group(cfg)
    _check_placement(cfg)
    _check_capacity(cfg)
    if cfg.boot.enabled and cfg.oci.boot_url_expires is None:
        raise ConfigError(
            "gpufabric:oci.bootUrlExpires",
            None,
            "boot mode reads the bundle through a pre-authenticated request, which needs an "
            "end: an RFC 3339 UTC time like 2027-06-30T00:00:00Z",
        )
    if cfg.root_volume.kms_key_id is not None:
        raise ConfigError(
            "gpufabric:rootVolume.kmsKeyId",
            cfg.root_volume.kms_key_id,
            "an AWS KMS key; OCI boot volumes use Oracle-managed keys here",
        )
    if cfg.network.egress == "endpoints":
        raise ConfigError(
            "gpufabric:network.egress", "endpoints", "on OCI use nat (a NAT gateway) or none"
        )
    _check_storage(cfg)


def _check_region_ad(cfg: OciStackConfig) -> None:
    if not _REGION_RE.match(cfg.region):
        raise ConfigError("oci:region", cfg.region, "expected an OCI region like us-ashburn-1")
    match = _AD_RE.match(cfg.zone)
    if not match:
        raise ConfigError(
            "gpufabric:zone",
            cfg.zone,
            "expected an availability domain name like Uocm:US-ASHBURN-AD-1 "
            "(oci iam availability-domain list)",
        )
    city = cfg.region.split("-")[1].upper()
    where = match["where"]
    if "-" in where and city not in where.split("-"):
        raise ConfigError(
            "gpufabric:zone",
            cfg.zone,
            f"this availability domain is not in the stack's region {cfg.region} (oci:region)",
        )


def _check_node_group(cfg: OciStackConfig) -> None:
    if cfg.node_group != "group":
        raise ConfigError(
            "gpufabric:nodeGroup",
            cfg.node_group,
            "on OCI use group: one cluster network with one instance pool of identical nodes",
        )


def _check_placement(cfg: OciStackConfig) -> None:
    settings = cfg.oci
    if settings.network_block_ids and settings.hpc_island_id is None:
        raise ConfigError(
            "gpufabric:oci.networkBlockIds",
            settings.network_block_ids,
            "network blocks are chosen inside an HPC island: set gpufabric:oci.hpcIslandId too",
        )
    limit = settings.max_cluster_network_nodes
    if limit is not None and cfg.nodes > limit:
        raise ConfigError(
            "gpufabric:nodes",
            cfg.nodes,
            f"one cluster network holds at most {limit} nodes here "
            "(gpufabric:oci.maxClusterNetworkNodes, your tenancy's limit)",
        )


def _check_capacity(cfg: OciStackConfig) -> None:
    cap = cfg.capacity
    if cap.type == "capacity-block":
        raise ConfigError(
            "gpufabric:capacity.type",
            cap.type,
            "capacity blocks are AWS; on OCI use on-demand or reservation (a capacity reservation OCID)",
        )
    rid = cap.reservation_id
    if rid is not None and ocid_type(rid) != "capacityreservation":
        raise ConfigError(
            "gpufabric:capacity.reservationId",
            rid,
            "must be a compute capacity reservation OCID (ocid1.capacityreservation.oc1...)",
        )


def _check_storage(cfg: OciStackConfig) -> None:
    storage = cfg.storage
    if isinstance(storage, NoStorage):
        return
    key = "gpufabric:storage"
    if storage.availability_domain not in (None, cfg.zone):
        raise ConfigError(
            f"{key}.availabilityDomain",
            storage.availability_domain,
            f"Lustre must be in the nodes' availability domain {cfg.zone}",
        )
    if storage.performance_tier not in LUSTRE_TIERS:
        raise ConfigError(
            f"{key}.performanceTier", storage.performance_tier, f"one of {', '.join(LUSTRE_TIERS)}"
        )
    cap = storage.capacity_gb
    small = (
        LUSTRE_MIN_GB <= cap <= LUSTRE_SMALL_MAX_GB
        and (cap - LUSTRE_MIN_GB) % LUSTRE_SMALL_STEP_GB == 0
    )
    large = cap > LUSTRE_SMALL_MAX_GB and (cap - LUSTRE_SMALL_MAX_GB) % LUSTRE_LARGE_STEP_GB == 0
    if not (small or large):
        raise ConfigError(
            f"{key}.capacityGb",
            cap,
            f"OCI Lustre takes {LUSTRE_MIN_GB} GB, then steps of {LUSTRE_SMALL_STEP_GB} GB up to "
            f"{LUSTRE_SMALL_MAX_GB}, then steps of {LUSTRE_LARGE_STEP_GB} GB",
        )
    _check_lustre_subnet(cfg, cap)
    if not _LUSTRE_NAME_RE.match(storage.file_system_name):
        raise ConfigError(
            f"{key}.fileSystemName",
            storage.file_system_name,
            "1-8 letters, digits or '_' (used in every mount command)",
        )
    if storage.kms_key_id is not None and ocid_type(storage.kms_key_id) != "key":
        raise ConfigError(
            f"{key}.kmsKeyId", storage.kms_key_id, "must be a Vault key OCID (ocid1.key.oc1...)"
        )


def lustre_addresses(capacity_gb: int) -> int:
    """Addresses the file system takes in its subnet: 60 per 100 TB (1 TB = 1,000 GB)."""
    return math.ceil(capacity_gb * LUSTRE_ADDRESSES_PER_100_TB / 100_000)


def _check_lustre_subnet(cfg: OciStackConfig, capacity_gb: int) -> None:
    subnet = ipaddress.IPv4Network(cfg.network.storage_subnet)
    room = subnet.num_addresses - OCI_RESERVED_PER_SUBNET
    need = lustre_addresses(capacity_gb)
    if need > room:
        prefix = next(
            p
            for p in range(subnet.prefixlen, 0, -1)
            if 2 ** (32 - p) - OCI_RESERVED_PER_SUBNET >= need
        )
        raise ConfigError(
            "gpufabric:network.storageSubnet",
            cfg.network.storage_subnet,
            f"too small for {capacity_gb} GB of Lustre: it takes up to {need} addresses "
            f"({LUSTRE_ADDRESSES_PER_100_TB} per 100 TB), this subnet has {room}; use a "
            f"/{prefix} or larger",
        )
