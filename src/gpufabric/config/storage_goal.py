"""Size the file system from `gpufabric:storage.checkpoint`, or check the given sizes against it.

Keys the user set (capacity, tier, EFA) are kept and checked; the others are derived: the
smallest valid configuration on the cloud's steps (gpufabric.storage.sizing) whose nodes can
also carry the goal (gpufabric.storage.network). No configuration: one ConfigError naming the
key to change. On AWS, EFA-enabled FSx is chosen only when TCP clients cannot carry the goal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpufabric.catalog import InstanceType
from gpufabric.clouds.aws.settings import FsxLustreConfig
from gpufabric.clouds.azure.settings import AzureManagedLustreConfig
from gpufabric.clouds.gcp.settings import FilestoreConfig, ManagedLustreConfig, ParallelstoreConfig
from gpufabric.clouds.nebius.settings import NebiusFilesystemConfig
from gpufabric.clouds.oci.settings import OciLustreConfig, tier_name, tier_number
from gpufabric.config.base import CheckpointGoal
from gpufabric.config.model import StackConfig
from gpufabric.errors import ConfigError
from gpufabric.storage.network import NodePath, node_path
from gpufabric.storage.sizing import (
    Goal,
    Service,
    Sizing,
    best_possible_gbps,
    rated_gbps,
    service,
    size,
)

KEY = "gpufabric:storage"
GOAL_KEY = f"{KEY}.checkpoint"
LustreConfig = FsxLustreConfig | AzureManagedLustreConfig | ManagedLustreConfig | OciLustreConfig


@dataclass(frozen=True)
class Fields:
    """Where one storage model keeps its tier and capacity (python name, stack-file key)."""

    tier: tuple[str, str]
    capacity: tuple[str, str]
    tier_number: Callable[[Any], int] = int
    """The config's tier as the sizing table's number (MBPS_PER_TB_250 -> 250 on OCI)."""
    tier_value: Callable[[int], Any] = field(default=lambda n: n)
    """The sizing table's tier number as the config writes it."""


FIELDS: dict[type[Any], Fields] = {
    FsxLustreConfig: Fields(
        ("throughput_per_tib", "throughputPerTib"), ("capacity_gib", "capacityGib")
    ),
    AzureManagedLustreConfig: Fields(
        ("throughput_per_tib", "throughputPerTib"), ("capacity_tib", "capacityTib")
    ),
    ManagedLustreConfig: Fields(
        ("per_unit_storage_throughput", "perUnitStorageThroughput"), ("capacity_gib", "capacityGib")
    ),
    OciLustreConfig: Fields(
        ("performance_tier", "performanceTier"),
        ("capacity_gb", "capacityGb"),
        tier_number,
        tier_name,
    ),
}


def goal_value(goal: CheckpointGoal) -> dict[str, Any]:
    """The goal as the user wrote it (for error lines)."""
    return goal.model_dump(by_alias=True, exclude_none=True)


def current(storage: LustreConfig) -> Sizing:
    """The sizing the storage config describes (after any goal was applied)."""
    fields = FIELDS[type(storage)]
    svc = service(storage.type)
    variant = "efa" if isinstance(storage, FsxLustreConfig) and storage.efa else "tcp"
    goal = storage.checkpoint.goal() if storage.checkpoint else Goal(0, 1)
    tier = fields.tier_number(getattr(storage, fields.tier[0]))
    return Sizing(svc, variant, tier, int(getattr(storage, fields.capacity[0])), goal)


def with_storage_goal(cfg: StackConfig) -> StackConfig:
    """`cfg` with the file system sized from its checkpoint goal (unchanged without one)."""
    storage = cfg.storage
    goal_cfg = getattr(storage, "checkpoint", None)
    if goal_cfg is None:
        return cfg
    if isinstance(storage, ParallelstoreConfig | FilestoreConfig):
        raise ConfigError(
            GOAL_KEY,
            goal_value(goal_cfg),
            f"a checkpoint goal sizes Managed Lustre; {storage.type} has no throughput table here "
            "(use type managed-lustre, or drop the goal and size it yourself)",
        )
    if isinstance(storage, NebiusFilesystemConfig):
        raise ConfigError(
            GOAL_KEY,
            goal_value(goal_cfg),
            f"{storage.type} has no throughput table here to size from "
            "(drop the goal and set the size yourself; see the deploy guide for the steps)",
        )
    if not isinstance(storage, LustreConfig):
        return cfg
    itype = cfg.instance  # looked up once by gpufabric.config.parse
    if service(storage.type).cloud != itype.cloud:
        return cfg  # the cloud rules refuse the storage type itself
    sized = _size(storage, goal_cfg, itype, cfg.nodes)
    fields = FIELDS[type(storage)]
    update: dict[str, Any] = {
        fields.tier[0]: fields.tier_value(sized.tier),
        fields.capacity[0]: sized.capacity,
    }
    if isinstance(storage, FsxLustreConfig):
        update["efa"] = sized.variant == "efa"
    return cfg.model_copy(update={"storage": storage.model_copy(update=update)})


def _size(
    storage: LustreConfig, goal_cfg: CheckpointGoal, itype: InstanceType, nodes: int
) -> Sizing:
    goal = goal_cfg.goal()
    svc = service(storage.type)
    fields = FIELDS[type(storage)]
    fixed = storage.model_fields_set
    given_tier = getattr(storage, fields.tier[0]) if fields.tier[0] in fixed else None
    tier = None if given_tier is None else fields.tier_number(given_tier)
    capacity = getattr(storage, fields.capacity[0]) if fields.capacity[0] in fixed else None
    variants = ["tcp"]
    if isinstance(storage, FsxLustreConfig):
        if storage.deployment_type != "PERSISTENT_2":
            raise ConfigError(
                f"{KEY}.deploymentType",
                storage.deployment_type,
                "a checkpoint goal sizes PERSISTENT_2 (the steps table has no SCRATCH_2 "
                "throughput); use PERSISTENT_2, or drop the goal",
            )
        variants = ["efa" if storage.efa else "tcp"] if "efa" in fixed else ["tcp", "efa"]
    short: list[tuple[str, NodePath]] = []
    for variant in variants:
        path = node_path(itype, efa=variant == "efa")
        if path is not None and path.aggregate_gbytes(nodes) < goal.needed_gbps:
            short.append((variant, path))
            continue
        sized = size(svc, goal, variant, tier, capacity)
        if sized is not None:
            return sized
        raise _no_size(svc, goal, variant, storage, tier, capacity)
    raise _network_short(goal, goal_cfg, itype, nodes, short, "efa" in fixed)


def _no_size(
    svc: Service,
    goal: Goal,
    variant: str,
    storage: LustreConfig,
    tier: int | None,
    capacity: int | None,
) -> ConfigError:
    fields = FIELDS[type(storage)]
    need = f"{goal.text()} needs {goal.needed_gbps:.1f} GB/s"
    if capacity is not None:
        usable = size(svc, goal, variant, tier)
        hint = f"; {usable.capacity:,} {svc.unit} would do" if usable else ""
        tiers = [tier] if tier is not None else list(svc.tiers(variant))
        rates = [rated_gbps(t, svc.gib(capacity)) for t in tiers if svc.valid(t, capacity, variant)]
        if not rates:
            return ConfigError(
                f"{KEY}.{fields.capacity[1]}",
                capacity,
                f"not a {svc.label} size: {svc.allowed(tiers[-1], variant)}{hint}",
            )
        return ConfigError(
            f"{KEY}.{fields.capacity[1]}",
            capacity,
            f"{need}, but {capacity:,} {svc.unit} rates at most {max(rates):.1f} GB/s{hint}",
        )
    if tier is not None:
        best = best_possible_gbps(svc, variant, tier)
        return ConfigError(
            f"{KEY}.{fields.tier[1]}",
            tier,
            f"{need}; {svc.label} at {tier} MB/s/TiB reaches at most {best or 0:.1f} GB/s "
            f"({svc.allowed(tier, variant)}); raise the tier or unset it",
        )
    best = best_possible_gbps(svc, variant)
    assert storage.checkpoint is not None
    return ConfigError(
        GOAL_KEY,
        goal_value(storage.checkpoint),
        f"{need}; {svc.label} reaches at most {best or 0:.1f} GB/s at its largest self-service "
        "size; lower the goal (or ask the cloud for a larger file system and size it yourself)",
    )


def _network_short(
    goal: Goal,
    goal_cfg: CheckpointGoal,
    itype: InstanceType,
    nodes: int,
    short: list[tuple[str, NodePath]],
    efa_fixed: bool,
) -> ConfigError:
    reach = "; ".join(
        f"{'over EFA ' if variant == 'efa' else ''}{nodes} x {itype.name} reach "
        f"{path.aggregate_gbytes(nodes):.1f} GB/s ({path.how} each)"
        for variant, path in short
    )
    if efa_fixed and short[0][0] == "tcp" and itype.cloud == "aws":
        efa = node_path(itype, efa=True)
        if efa is not None and efa.aggregate_gbytes(nodes) >= goal.needed_gbps:
            return ConfigError(
                f"{KEY}.efa",
                False,
                f"{goal.text()} needs {goal.needed_gbps:.1f} GB/s but {reach}; EFA-enabled FSx "
                f"would reach {efa.aggregate_gbytes(nodes):.1f} GB/s: set efa true or unset it",
            )
    return ConfigError(
        GOAL_KEY,
        goal_value(goal_cfg),
        f"{goal.text()} needs {goal.needed_gbps:.1f} GB/s but {reach}: the nodes' storage "
        "network is the limit; lower the goal or add nodes",
    )
