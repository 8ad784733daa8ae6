"""Cross-field rules that need the instance catalog or several keys at once.

Each rule raises ConfigError naming the key, the value and what is allowed.
"""

from __future__ import annotations

import ipaddress
import re

from gpufabric.catalog import InstanceType, lookup
from gpufabric.config.model import FsxLustreConfig, StackConfig
from gpufabric.errors import ConfigError

FSX_THROUGHPUTS = (125, 250, 500, 1000)
# EFA-enabled PERSISTENT_2 capacity multiples by throughput (cloud-facts.md B.1)
FSX_EFA_CAPACITY_STEP = {125: 38400, 250: 19200, 500: 9600, 1000: 4800}
CAPACITY_BLOCK_MAX_INSTANCES = 64  # cloud-facts.md A.4
REGION_KEY = {"aws": "aws:region", "gcp": "gcp:region", "azure": "azure-native:location"}

_AWS_ZONE_RE = re.compile(r"^(?P<region>[a-z]{2}(-[a-z]+)+-\d)(?P<suffix>[a-z])$")


def check(cfg: StackConfig) -> InstanceType:
    """Apply every cross-field rule; returns the instance type's catalog entry."""
    itype = lookup(cfg.instance_type)
    _check_zone(cfg, itype)
    _check_encryption(cfg, itype)
    _check_capacity(cfg)
    _check_network(cfg)
    if isinstance(cfg.storage, FsxLustreConfig):
        _check_fsx(cfg.storage)
    return itype


def _check_zone(cfg: StackConfig, itype: InstanceType) -> None:
    if itype.cloud == "aws":
        match = _AWS_ZONE_RE.match(cfg.zone)
        if not match:
            raise ConfigError("gpufabric:zone", cfg.zone, "expected an availability zone like us-east-1a")
        if match["region"] != cfg.region:
            raise ConfigError(
                "gpufabric:zone",
                cfg.zone,
                f"the zone must be in the stack's region {cfg.region} (aws:region), "
                f"e.g. {cfg.region}a",
            )


def _check_encryption(cfg: StackConfig, itype: InstanceType) -> None:
    if cfg.encryption == "provider-native" and itype.encryption_in_transit != "native":
        raise ConfigError(
            "gpufabric:encryption",
            cfg.encryption,
            f"{itype.name} is not known to encrypt node-to-node traffic natively "
            f"(catalog says '{itype.encryption_in_transit}'); use 'ipsec', or 'none' on purpose",
        )


def _check_capacity(cfg: StackConfig) -> None:
    if cfg.capacity.type == "capacity-block" and cfg.nodes > CAPACITY_BLOCK_MAX_INSTANCES:
        raise ConfigError(
            "gpufabric:nodes",
            cfg.nodes,
            f"one capacity block holds at most {CAPACITY_BLOCK_MAX_INSTANCES} instances",
        )


def _check_network(cfg: StackConfig) -> None:
    net = cfg.network
    whole = ipaddress.IPv4Network(net.cidr)
    seen: list[tuple[str, ipaddress.IPv4Network]] = []
    for role, cidr in net.subnets().items():
        key = f"gpufabric:network.{role}Subnet"
        subnet = ipaddress.IPv4Network(cidr)
        if not subnet.subnet_of(whole):
            raise ConfigError(key, cidr, f"must lie inside gpufabric:network.cidr {net.cidr}")
        for other_role, other in seen:
            if subnet.overlaps(other):
                raise ConfigError(key, cidr, f"overlaps the {other_role} subnet {other}")
        seen.append((role, subnet))
    if cfg.nodes > ipaddress.IPv4Network(net.fabric_subnet).num_addresses - 5:
        raise ConfigError(
            "gpufabric:network.fabricSubnet",
            net.fabric_subnet,
            f"too small for {cfg.nodes} nodes (AWS reserves 5 addresses per subnet)",
        )


def _check_fsx(fsx: FsxLustreConfig) -> None:
    key = "gpufabric:storage"
    persistent = fsx.deployment_type == "PERSISTENT_2"
    if persistent:
        if fsx.throughput_per_tib not in FSX_THROUGHPUTS:
            raise ConfigError(
                f"{key}.throughputPerTib",
                fsx.throughput_per_tib,
                "PERSISTENT_2 allows 125, 250, 500 or 1000 MB/s per TiB",
            )
    else:
        for field, value, allowed in (
            ("efa", fsx.efa, "EFA-enabled FSx needs deploymentType PERSISTENT_2"),
            ("s3", fsx.s3, "S3 data repository associations need deploymentType PERSISTENT_2"),
        ):
            if value:
                raise ConfigError(f"{key}.{field}", value, allowed)
        if fsx.throughput_per_tib not in (None, 1000):
            raise ConfigError(
                f"{key}.throughputPerTib", fsx.throughput_per_tib, "SCRATCH_2 has a fixed throughput"
            )
    _check_fsx_capacity(fsx)


def _check_fsx_capacity(fsx: FsxLustreConfig) -> None:
    key = "gpufabric:storage.capacityGib"
    cap = fsx.capacity_gib
    if fsx.efa:
        assert fsx.throughput_per_tib is not None
        step = FSX_EFA_CAPACITY_STEP[fsx.throughput_per_tib]
        if cap < step or cap % step:
            raise ConfigError(
                key,
                cap,
                f"EFA-enabled FSx at {fsx.throughput_per_tib} MB/s/TiB needs a multiple of {step} GiB",
            )
        return
    if cap not in (1200, 2400) and (cap < 2400 or cap % 2400):
        raise ConfigError(key, cap, "allowed: 1200, 2400, or a multiple of 2400 GiB")
