"""GCP rules: project, zone in region, reservations, GPU address plan, placement, storage steps.

Facts and their sources: docs/sources.md C.1-C.5, and the Managed Lustre / Filestore /
Parallelstore capacity tables (docs/gcp.md lists them with their pages).
"""

from __future__ import annotations

import ipaddress
import math
import re

from gpufabric.catalog import InstanceType
from gpufabric.clouds.gcp import facts
from gpufabric.clouds.gcp.placement import dense_reservation
from gpufabric.clouds.gcp.settings import (
    FilestoreConfig,
    GcpStackConfig,
    ManagedLustreConfig,
    ParallelstoreConfig,
)
from gpufabric.config.model import NoStorage
from gpufabric.errors import ConfigError
from gpufabric.storage.sizing import service

# Managed Lustre tiers and capacity steps: clouds/gcp/storage_steps.yaml (the one table)
# Parallelstore: 12,000-100,000 GiB in steps of 4,000 ([P] Pulumi parallelstore docs, C.5)
PARALLELSTORE_CAPACITY = (12000, 100000, 4000)
# Filestore zonal tiers -> capacity bands (min, max, step) GiB. REGIONAL / ENTERPRISE are
# regional: not co-located with the nodes, so not offered. [P] Filestore service tiers page.
FILESTORE_TIERS = {
    "BASIC_HDD": ((1024, 65434, 1),),
    "BASIC_SSD": ((2560, 65434, 1),),
    "ZONAL": ((1024, 9984, 256), (10240, 102400, 2560)),
    "HIGH_SCALE_SSD": ((10240, 102400, 2560),),
}
# Private-service-access range: Managed Lustre wants a /23 or larger block per instance;
# the other services fit in a /24 (docs/sources.md C.5; docs/gcp.md)
PSA_MAX_PREFIX = {"managed-lustre": 23, "parallelstore": 24, "filestore": 24}
GCP_RESERVED_PER_SUBNET = 4  # network, gateway, second-to-last and broadcast addresses
# the smallest IPv4 subnet GCP creates, a /29 ([P] cloud.google.com/vpc/docs/subnets)
GCP_SMALLEST_SUBNET = 29

_ZONE_RE = re.compile(r"^(?P<region>[a-z]+-[a-z]+\d+)-(?P<suffix>[a-z])$")
_RESERVATION_RE = re.compile(
    r"^(projects/(?P<project>[a-z][a-z0-9-]{4,28}[a-z0-9])/reservations/)?"
    r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?"
    r"(/reservationBlocks/[a-z0-9-]+(/reservationSubBlocks/[a-z0-9-]+)?)?$"
)  # as Cluster Toolkit's nodeset reservation_name (a sub-block only inside its block)
_LABEL_KEY_RE = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
_LABEL_VALUE_RE = re.compile(r"^[a-z0-9_-]{0,63}$")
_FS_NAME_RE = re.compile(r"^[a-z][a-z0-9]{0,7}$")
_SHARE_RE = re.compile(r"^[a-z][a-z0-9_]{0,15}$")


FLOW_LOGS_KEY = "gpufabric:network.flowLogs.destination"


def check_flow_logs(cfg: GcpStackConfig) -> None:
    """Subnet flow logs go to Cloud Logging: `destination` stays unset."""
    flow = cfg.network.flow_logs
    if flow is not None and flow.destination is not None:
        raise ConfigError(
            FLOW_LOGS_KEY,
            flow.destination,
            "leave it unset on GCP: subnet flow logs go to Cloud Logging",
        )


def check(cfg: GcpStackConfig, itype: InstanceType) -> None:
    check_flow_logs(cfg)
    _check_zone(cfg)
    _check_capacity(cfg, itype)
    _check_placement(cfg, itype)
    _check_gpu_network(cfg, itype)
    _check_labels(cfg)
    if cfg.root_volume.kms_key_id is not None:
        raise ConfigError(
            "gpufabric:rootVolume.kmsKeyId",
            cfg.root_volume.kms_key_id,
            "an AWS KMS key; GCP boot disks use Google-managed encryption here",
        )
    _check_storage(cfg)
    if cfg.boot.enabled and cfg.gcp.service_account is None:
        raise ConfigError(
            "gpufabric:gcp.serviceAccount",
            None,
            "boot mode lets only the nodes' service account read the bundle: name one "
            "(gpufabric:boot.enabled)",
        )


def _check_zone(cfg: GcpStackConfig) -> None:
    match = _ZONE_RE.match(cfg.zone)
    if not match:
        raise ConfigError("gpufabric:zone", cfg.zone, "expected a GCP zone like us-central1-a")
    if match["region"] != cfg.region:
        raise ConfigError(
            "gpufabric:zone",
            cfg.zone,
            f"the zone must be in the stack's region {cfg.region} (gcp:region), "
            f"e.g. {cfg.region}-a",
        )


def _check_capacity(cfg: GcpStackConfig, itype: InstanceType) -> None:
    cap = cfg.capacity
    if cap.type == "capacity-block":
        raise ConfigError(
            "gpufabric:capacity.type",
            cap.type,
            "capacity blocks are AWS; on GCP use on-demand or reservation "
            "(a specific reservation by name)",
        )
    if cap.reservation_id is not None:
        _check_reservation(cfg, itype, "gpufabric:capacity.reservationId", cap.reservation_id)
    for target in cap.reservations or []:
        _check_reservation(cfg, itype, "gpufabric:capacity.reservations", target.id)


def _check_reservation(cfg: GcpStackConfig, itype: InstanceType, key: str, rid: str) -> None:
    match = _RESERVATION_RE.match(rid)
    if not match:
        raise ConfigError(
            key,
            rid,
            "must be a reservation name (e.g. a3mega-res), optionally "
            "projects/PROJECT/reservations/NAME[/reservationBlocks/BLOCK"
            "[/reservationSubBlocks/SUBBLOCK]]",
        )
    if cfg.node_group != "instances":
        return
    if not dense_reservation(itype):
        # a plain reservation takes no external compact placement policy: its VMs are placed
        # by the policy the reservation was created with ([P] cluster-toolkit resume.py
        # update_reservation_props: "vanilla reservations don't support external policies")
        if cfg.gcp.max_distance is not None:
            raise ConfigError(
                "gpufabric:gcp.maxDistance",
                cfg.gcp.max_distance,
                f"{itype.name} on reservation {rid} takes no compact placement policy of ours "
                "(a plain reservation is placed by the policy it was created with); leave "
                "maxDistance unset, or give the reservation a compact policy when you create it",
            )
        return
    shared_from = match["project"]
    if shared_from and shared_from != cfg.gcp.project:
        raise ConfigError(
            key,
            rid,
            "compact placement policies work only with single-project reservations, "
            "not ones shared from another project; use nodeGroup group",
        )


def _check_placement(cfg: GcpStackConfig, itype: InstanceType) -> None:
    settings = cfg.gcp
    if cfg.node_group == "group" and settings.max_distance is not None:
        raise ConfigError(
            "gpufabric:gcp.maxDistance",
            settings.max_distance,
            "a managed instance group is placed by a workload policy: "
            "use gpufabric:gcp.maxTopologyDistance, or nodeGroup instances",
        )
    if cfg.node_group == "instances" and settings.max_topology_distance is not None:
        raise ConfigError(
            "gpufabric:gcp.maxTopologyDistance",
            settings.max_topology_distance,
            "only for nodeGroup group (workload policy); instances use gpufabric:gcp.maxDistance",
        )
    least = facts.of(itype).min_max_distance
    if settings.max_distance is not None and settings.max_distance < least:
        raise ConfigError(
            "gpufabric:gcp.maxDistance",
            settings.max_distance,
            f"{itype.name} cannot use maxDistance {settings.max_distance}; use "
            + " or ".join(str(d) for d in range(least, 4)),
        )


def gpu_subnets(cfg: GcpStackConfig, itype: InstanceType) -> list[str]:
    """gpuCidr split evenly into one subnet per GPU NIC, in NIC order."""
    whole = ipaddress.IPv4Network(cfg.gcp.gpu_cidr)
    extra_bits = math.ceil(math.log2(itype.fabric_nics))
    return [str(net) for net in whole.subnets(prefixlen_diff=extra_bits)][: itype.fabric_nics]


def _check_gpu_network(cfg: GcpStackConfig, itype: InstanceType) -> None:
    gpu = ipaddress.IPv4Network(cfg.gcp.gpu_cidr)
    ranges = {"gpufabric:network.cidr": cfg.network.cidr}
    if facts.of(itype).host_nics > 1:
        ranges["gpufabric:gcp.secondaryHostCidr"] = cfg.gcp.secondary_host_cidr
    for key, cidr in ranges.items():
        if gpu.overlaps(ipaddress.IPv4Network(cidr)):
            raise ConfigError("gpufabric:gcp.gpuCidr", cfg.gcp.gpu_cidr, f"overlaps {key} {cidr}")
    if facts.of(itype).host_nics > 1:
        second = ipaddress.IPv4Network(cfg.gcp.secondary_host_cidr)
        if second.overlaps(ipaddress.IPv4Network(cfg.network.cidr)):
            raise ConfigError(
                "gpufabric:gcp.secondaryHostCidr",
                cfg.gcp.secondary_host_cidr,
                f"overlaps gpufabric:network.cidr {cfg.network.cidr}",
            )
        _fits_nodes(cfg, "gpufabric:gcp.secondaryHostCidr", cfg.gcp.secondary_host_cidr, second)
    extra_bits = math.ceil(math.log2(itype.fabric_nics))
    if gpu.prefixlen + extra_bits > GCP_SMALLEST_SUBNET:
        raise ConfigError(
            "gpufabric:gcp.gpuCidr",
            cfg.gcp.gpu_cidr,
            f"too small to split into {itype.fabric_nics} GPU subnets of at least "
            f"/{GCP_SMALLEST_SUBNET} (GCP's smallest); use a /{GCP_SMALLEST_SUBNET - extra_bits} "
            "or larger",
        )
    each = ipaddress.IPv4Network(gpu_subnets(cfg, itype)[0])  # all of one size
    what = f"each of its {itype.fabric_nics} GPU subnets (/{each.prefixlen})"
    _fits_nodes(cfg, "gpufabric:gcp.gpuCidr", cfg.gcp.gpu_cidr, each, what)


def _fits_nodes(
    cfg: GcpStackConfig,
    key: str,
    value: str,
    subnet: ipaddress.IPv4Network,
    what: str = "this range",
) -> None:
    """`subnet` (the key's range, or the part of it `what` names) holds every node."""
    room = subnet.num_addresses - GCP_RESERVED_PER_SUBNET
    if cfg.nodes > room:
        raise ConfigError(
            key,
            value,
            f"{what} has room for {room} nodes (GCP reserves {GCP_RESERVED_PER_SUBNET} "
            f"addresses in every subnet): it cannot hold {cfg.nodes} nodes",
        )


def _check_labels(cfg: GcpStackConfig) -> None:
    for key, value in cfg.tags.items():
        if not _LABEL_KEY_RE.match(key):
            raise ConfigError(
                "gpufabric:tags",
                key,
                "GCP label keys are 1-63 lowercase letters, digits, '_' or '-', "
                "starting with a letter",
            )
        if not _LABEL_VALUE_RE.match(value):
            raise ConfigError(
                f"gpufabric:tags.{key}",
                value,
                "GCP label values are up to 63 lowercase letters, digits, '_' or '-'",
            )


def _check_storage(cfg: GcpStackConfig) -> None:
    storage = cfg.storage
    if isinstance(storage, NoStorage):
        return
    psa = ipaddress.IPv4Network(cfg.network.storage_subnet)
    most = PSA_MAX_PREFIX[storage.type]
    if psa.prefixlen > most:
        raise ConfigError(
            "gpufabric:network.storageSubnet",
            cfg.network.storage_subnet,
            f"the private-service-access range for {storage.type} must be a /{most} or larger",
        )
    if isinstance(storage, ManagedLustreConfig):
        _check_lustre(storage)
    elif isinstance(storage, ParallelstoreConfig):
        _check_parallelstore(storage)
    else:
        _check_filestore(storage)


def _check_lustre(lustre: ManagedLustreConfig) -> None:
    key = "gpufabric:storage"
    svc = service("managed-lustre")
    tput = lustre.per_unit_storage_throughput
    tiers = svc.tiers()
    if tput not in tiers:
        raise ConfigError(
            f"{key}.perUnitStorageThroughput",
            tput,
            "allowed: " + ", ".join(map(str, tiers[:-1])) + f" or {tiers[-1]} MB/s per TiB",
        )
    cap = lustre.capacity_gib
    if not svc.valid(tput, cap):
        raise ConfigError(
            f"{key}.capacityGib",
            cap,
            f"at {tput} MB/s/TiB Managed Lustre takes {svc.allowed(tput)}",
        )
    if not _FS_NAME_RE.match(lustre.filesystem):
        raise ConfigError(
            f"{key}.filesystem",
            lustre.filesystem,
            "1-8 lowercase letters or digits, starting with a letter",
        )


def _check_parallelstore(store: ParallelstoreConfig) -> None:
    key = "gpufabric:storage"
    if store.deployment_type not in ("SCRATCH", "PERSISTENT"):
        raise ConfigError(f"{key}.deploymentType", store.deployment_type, "SCRATCH or PERSISTENT")
    low, high, step = PARALLELSTORE_CAPACITY
    cap = store.capacity_gib
    if cap < low or cap > high or cap % step:
        raise ConfigError(
            f"{key}.capacityGib", cap, f"a multiple of {step} GiB from {low} to {high}"
        )


def _check_filestore(store: FilestoreConfig) -> None:
    key = "gpufabric:storage"
    if store.tier not in FILESTORE_TIERS:
        raise ConfigError(
            f"{key}.tier",
            store.tier,
            f"zonal tiers only (co-located with the nodes): {', '.join(FILESTORE_TIERS)}",
        )
    bands = FILESTORE_TIERS[store.tier]
    cap = store.capacity_gib
    if not any(low <= cap <= high and cap % step == 0 for low, high, step in bands):
        allowed = " or ".join(
            f"{low}-{high} GiB" + (f" in steps of {step}" if step > 1 else "")
            for low, high, step in bands
        )
        raise ConfigError(f"{key}.capacityGib", cap, f"{store.tier} takes {allowed}")
    if not _SHARE_RE.match(store.share_name):
        raise ConfigError(
            f"{key}.shareName",
            store.share_name,
            "1-16 lowercase letters, digits or '_', starting with a letter",
        )
