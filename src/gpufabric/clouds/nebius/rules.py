"""Nebius rules: project, region, InfiniBand fabric (fabrics.yaml), capacity, shared filesystem.

Facts and their sources: docs/sources.md N.1-N.5 (pulumi-nebius 0.6.73, Nebius docs and
nebius/nebius-solution-library).
"""

from __future__ import annotations

import re

from gpufabric.catalog import InstanceType
from gpufabric.clouds.nebius import facts
from gpufabric.clouds.nebius.fabrics import fabric_for
from gpufabric.clouds.nebius.settings import NebiusStackConfig
from gpufabric.config.model import NoStorage
from gpufabric.config.validate import refuse_flow_logs
from gpufabric.errors import ConfigError

# [P] pulumi-nebius compute_v1_filesystem.py: block_size_bytes 4 KiB-128 KiB, a power of 2
BLOCK_SIZES = tuple(2**n for n in range(12, 18))
FILESYSTEM_TYPES = ("NETWORK_SSD", "NETWORK_HDD", "WEKA", "VAST")
_REGION_RE = re.compile(r"^[a-z]{2}-[a-z]+\d+$")
_MOUNT_TAG_RE = re.compile(r"^[a-z][a-z0-9-]{0,35}$")  # a virtiofs tag holds at most 36 bytes
_RESERVATION_RE = re.compile(r"^[a-z][a-z0-9-]{2,62}$")


def check(cfg: NebiusStackConfig, itype: InstanceType) -> None:
    refuse_flow_logs(cfg, "nebius")
    _check_region(cfg)
    fabric_for(cfg, facts.of(itype).platform)  # the fabric holds this platform in this region
    if cfg.node_group != "instances":
        raise ConfigError(
            "gpufabric:nodeGroup",
            cfg.node_group,
            "on Nebius use instances: each VM joins the GPU cluster when it is created",
        )
    _check_capacity(cfg)
    if cfg.network.egress != "none":
        raise ConfigError(
            "gpufabric:network.egress",
            cfg.network.egress,
            "gpufabric builds no NAT on Nebius: use none (reach the VMs through a bastion or VPN)",
        )
    if cfg.root_volume.kms_key_id is not None:
        raise ConfigError(
            "gpufabric:rootVolume.kmsKeyId",
            cfg.root_volume.kms_key_id,
            "an AWS KMS key; it does not apply on Nebius",
        )
    _check_storage(cfg)


def _check_region(cfg: NebiusStackConfig) -> None:
    if not _REGION_RE.match(cfg.zone):
        raise ConfigError("gpufabric:zone", cfg.zone, "expected a Nebius region like eu-north1")
    if cfg.zone != cfg.region:
        raise ConfigError(
            "gpufabric:zone",
            cfg.zone,
            f"Nebius has no zones below a region: use the region {cfg.region}",
        )


def _check_capacity(cfg: NebiusStackConfig) -> None:
    cap = cfg.capacity
    if cap.type == "capacity-block":
        raise ConfigError(
            "gpufabric:capacity.type",
            cap.type,
            "capacity blocks are AWS; on Nebius use on-demand or reservation "
            "(a capacity block group id from your Nebius manager)",
        )
    if cap.reservation_id is not None and not _RESERVATION_RE.match(cap.reservation_id):
        raise ConfigError(
            "gpufabric:capacity.reservationId",
            cap.reservation_id,
            "must be a Nebius reservation (capacity block group) id",
        )


def _check_storage(cfg: NebiusStackConfig) -> None:
    storage = cfg.storage
    if isinstance(storage, NoStorage):
        return
    key = "gpufabric:storage"
    if storage.filesystem_type not in FILESYSTEM_TYPES:
        raise ConfigError(
            f"{key}.filesystemType",
            storage.filesystem_type,
            f"one of {', '.join(FILESYSTEM_TYPES)}",
        )
    if storage.size_gib < 1:
        raise ConfigError(f"{key}.sizeGib", storage.size_gib, "must be at least 1 GiB")
    if storage.block_size_bytes not in BLOCK_SIZES:
        raise ConfigError(
            f"{key}.blockSizeBytes",
            storage.block_size_bytes,
            "a power of two from 4096 to 131072 (4 KiB-128 KiB)",
        )
    if not _MOUNT_TAG_RE.match(storage.mount_tag):
        raise ConfigError(
            f"{key}.mountTag",
            storage.mount_tag,
            "1-36 lowercase letters, digits or '-', starting with a letter (a virtiofs tag)",
        )
