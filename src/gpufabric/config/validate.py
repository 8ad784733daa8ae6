"""Cross-field rules that need the instance catalog or several keys at once.

Common rules live here; each cloud's own rules live in its package (gpufabric.clouds.<cloud>.rules)
and are picked by the instance type's cloud. Each rule raises ConfigError naming the key, value and what is allowed.
"""

from __future__ import annotations

import ipaddress

from gpufabric.catalog import InstanceType, lookup
from gpufabric.clouds import registry
from gpufabric.config.model import RootVolume, StackConfig
from gpufabric.errors import ConfigError
from gpufabric.vocabulary import encryption_problem


def region_keys() -> dict[str, str]:
    """cloud -> the provider key that names the stack's region (clouds whose project lives in
    one region have none: there gpufabric:zone names the region)."""
    return {spec.name: spec.region_key for spec in registry.specs() if spec.region_key}


def check(cfg: StackConfig) -> InstanceType:
    """Apply every cross-field rule; the catalog entry (looked up once, by parse, or here for a
    config built otherwise) is kept on the config (`cfg.instance`) and returned."""
    itype = cfg._instance if cfg._instance is not None else lookup(cfg.instance_type)
    cfg._instance = itype
    _check_encryption(cfg, itype)
    if (
        cfg.capacity.resource_group_arn is not None
        and not registry.get(itype.cloud).capacity_groups
    ):
        takers = [s.display_name for s in registry.specs() if s.capacity_groups]
        raise ConfigError(
            "gpufabric:capacity.resourceGroupArn",
            cfg.capacity.resource_group_arn,
            f"capacity reservation resource groups are {'/'.join(takers)}-only; "
            f"{itype.name} is {itype.cloud}",
        )
    _check_reservations(cfg, itype)
    _check_network(cfg)
    _check_boot(cfg, itype)
    registry.module(itype.cloud, "rules").check(cfg, itype)
    _check_root_key(cfg, itype)
    return itype


def _check_root_key(cfg: StackConfig, itype: InstanceType) -> None:
    """A root volume's key is taken only where the cloud's stack model declares its form (its
    RootVolume narrows kms_key_id to its key format): elsewhere nothing checks the key
    and nothing would use it, so it is refused (after the cloud's own rules, whose line says
    more where they have one)."""
    key = cfg.root_volume.kms_key_id
    if key is None or declares_key_format(type(cfg.root_volume)):
        return
    cloud = registry.get(itype.cloud).display_name
    raise ConfigError(
        "gpufabric:rootVolume.kmsKeyId",
        key,
        f"{cloud} declares no key format for root volumes: leave it unset "
        "(root volumes keep the cloud's own encryption)",
    )


def declares_key_format(model: type[RootVolume]) -> bool:
    """Whether a cloud's RootVolume declares the form of its key (narrows the shared field)."""
    shared = RootVolume.model_fields["kms_key_id"]
    field = model.model_fields["kms_key_id"]
    return field.annotation != shared.annotation or field.metadata != shared.metadata


def _check_reservations(cfg: StackConfig, itype: InstanceType) -> None:
    """Several reservations: where the cloud places nodes on them, and shares adding up."""
    several = cfg.capacity.reservations
    if several is None:
        return
    key = "gpufabric:capacity.reservations"
    if not registry.get(itype.cloud).capacity_targets:
        takers = [s.display_name for s in registry.specs() if s.capacity_targets]
        raise ConfigError(
            key, [t.id for t in several], f"{'/'.join(takers)}-only; {itype.name} is {itype.cloud}"
        )
    total = sum(t.nodes for t in several)
    if total != cfg.nodes:
        raise ConfigError(
            key,
            [f"{t.id}: {t.nodes}" for t in several],
            f"the shares add up to {total}, but gpufabric:nodes is {cfg.nodes}",
        )
    if cfg.node_group != "instances":
        raise ConfigError(
            "gpufabric:nodeGroup",
            cfg.node_group,
            "several reservations place each node on its own: use nodeGroup instances",
        )


def _check_boot(cfg: StackConfig, itype: InstanceType) -> None:
    """Boot mode: the cloud's program must have object storage for the bundle, and the nodes'
    user data is the boot cloud-config (one document: not both)."""
    if not cfg.boot.enabled:
        return
    spec = registry.get(itype.cloud)
    if not spec.boot_store:
        takers = [s.display_name for s in registry.specs() if s.boot_store]
        raise ConfigError(
            "gpufabric:boot.enabled",
            True,
            f"the {spec.display_name} program has no object storage to put the bundle in "
            f"({'/'.join(takers)} have); render and upload it yourself (docs/scale.md)",
        )
    if cfg.user_data is not None:
        raise ConfigError(
            "gpufabric:userData",
            f"<{len(cfg.user_data.encode())} bytes>",
            "with gpufabric:boot.enabled the nodes' user data is the boot cloud-config; "
            "unset one of them",
        )


def _check_encryption(cfg: StackConfig, itype: InstanceType) -> None:
    problem = encryption_problem(cfg.encryption, itype.name, itype.encryption_in_transit)
    if problem:
        raise ConfigError("gpufabric:encryption", cfg.encryption, problem)


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
            f"too small for {cfg.nodes} nodes (the cloud reserves addresses in every subnet)",
        )


def refuse_flow_logs(cfg: StackConfig, cloud: str) -> None:
    """For a cloud where gpufabric sets up no flow logs: the key is a mistake, not a no-op."""
    flow = cfg.network.flow_logs
    if flow is not None:
        raise ConfigError(
            "gpufabric:network.flowLogs",
            {"destination": flow.destination},
            f"not available on {cloud} in gpufabric; remove it",
        )
