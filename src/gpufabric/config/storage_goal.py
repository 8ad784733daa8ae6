"""Size the file system from `gpufabric:storage.checkpoint`, or check the given sizes against it.

Keys the user set (capacity, tier, variant) are kept and checked; the others are derived: the
smallest valid configuration on the cloud's steps (gpufabric.storage.sizing) whose nodes can
also carry the goal (gpufabric.storage.network). No configuration: one ConfigError naming the
key to change. Each storage model says how it is sized (its class's SIZING, a StorageSizing) or
why a goal cannot size it (GOAL_REFUSED); a file system with a fabric variant (e.g. EFA-enabled)
takes it only when TCP clients cannot carry the goal.
"""

from __future__ import annotations

from typing import Any

from gpufabric.catalog import InstanceType
from gpufabric.config.base import CheckpointGoal, StorageSizing
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


def sizing_of(storage: Any) -> StorageSizing | None:
    """How a storage model is sized from a goal; None: it is not (no steps table)."""
    found = getattr(type(storage), "SIZING", None)
    return found if isinstance(found, StorageSizing) else None


def _variant(storage: Any, fields: StorageSizing) -> str:
    flag = fields.variant_flag
    return flag if flag and getattr(storage, flag) else "tcp"


def goal_value(goal: CheckpointGoal) -> dict[str, Any]:
    """The goal as the user wrote it (for error lines)."""
    return goal.model_dump(by_alias=True, exclude_none=True)


def current(storage: Any) -> Sizing:
    """The sizing the storage config describes (after any goal was applied); the storage
    model must have a SIZING (sizing_of)."""
    fields = sizing_of(storage)
    assert fields is not None, type(storage)
    svc = service(storage.type)
    variant = _variant(storage, fields)
    goal = storage.checkpoint.goal() if storage.checkpoint else Goal(0, 1)
    tier = fields.tier_number(getattr(storage, fields.tier[0]))
    return Sizing(svc, variant, tier, int(getattr(storage, fields.capacity[0])), goal)


def with_storage_goal(cfg: StackConfig) -> StackConfig:
    """`cfg` with the file system sized from its checkpoint goal (unchanged without one)."""
    storage: Any = cfg.storage  # a cloud's storage model (each cloud's settings.STORAGE)
    goal_cfg = getattr(storage, "checkpoint", None)
    if goal_cfg is None:
        return cfg
    refused = getattr(type(storage), "GOAL_REFUSED", None)
    if isinstance(refused, str):
        raise ConfigError(GOAL_KEY, goal_value(goal_cfg), refused.format(type=storage.type))
    fields = sizing_of(storage)
    if fields is None:
        return cfg
    itype = cfg.instance  # looked up once by gpufabric.config.parse
    if service(storage.type).cloud != itype.cloud or _unknown_tier(storage, fields):
        return cfg  # the cloud rules refuse the storage type, or the tier, naming its key
    sized = _size(storage, fields, goal_cfg, itype, cfg.nodes)
    update: dict[str, Any] = {
        fields.tier[0]: fields.tier_value(sized.tier),
        fields.capacity[0]: sized.capacity,
    }
    if fields.variant_flag:
        update[fields.variant_flag] = sized.variant == fields.variant_flag
    return cfg.model_copy(update={"storage": storage.model_copy(update=update)})


def _unknown_tier(storage: Any, fields: StorageSizing) -> bool:
    """The config names a tier the service's steps table does not have (300 MB/s/TiB, a
    misspelt tier name): nothing to size from."""
    if fields.tier[0] not in storage.model_fields_set:
        return False
    given = getattr(storage, fields.tier[0])
    return given is not None and fields.tier_number(given) not in service(storage.type).tiers()


def _size(
    storage: Any, fields: StorageSizing, goal_cfg: CheckpointGoal, itype: InstanceType, nodes: int
) -> Sizing:
    goal = goal_cfg.goal()
    svc = service(storage.type)
    fixed = storage.model_fields_set
    given_tier = getattr(storage, fields.tier[0]) if fields.tier[0] in fixed else None
    tier = None if given_tier is None else fields.tier_number(given_tier)
    capacity = getattr(storage, fields.capacity[0]) if fields.capacity[0] in fixed else None
    fields.check(storage)
    flag = fields.variant_flag
    variants = ["tcp"]
    if flag:
        variants = [_variant(storage, fields)] if flag in fixed else ["tcp", flag]
    short: list[tuple[str, NodePath]] = []
    for variant in variants:
        path = node_path(itype, efa=variant == "efa")
        if path is not None and path.aggregate_gbytes(nodes) < goal.needed_gbps:
            short.append((variant, path))
            continue
        sized = size(svc, goal, variant, tier, capacity)
        if sized is not None:
            return sized
        raise _no_size(svc, fields, goal, variant, storage, tier, capacity)
    raise _network_short(goal, goal_cfg, itype, nodes, short, fields, bool(flag) and flag in fixed)


def _no_size(
    svc: Service,
    fields: StorageSizing,
    goal: Goal,
    variant: str,
    storage: Any,
    tier: int | None,
    capacity: int | None,
) -> ConfigError:
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
    fields: StorageSizing,
    variant_fixed: bool,
) -> ConfigError:
    reach = "; ".join(
        f"{'over EFA ' if variant == 'efa' else ''}{nodes} x {itype.name} reach "
        f"{path.aggregate_gbytes(nodes):.1f} GB/s ({path.how} each)"
        for variant, path in short
    )
    flag = fields.variant_flag
    if variant_fixed and short[0][0] == "tcp":
        fabric = node_path(itype, efa=flag == "efa")
        if fabric is not None and fabric.aggregate_gbytes(nodes) >= goal.needed_gbps:
            return ConfigError(
                f"{KEY}.{flag}",
                False,
                f"{goal.text()} needs {goal.needed_gbps:.1f} GB/s but {reach}; "
                f"{fields.variant_label} would reach {fabric.aggregate_gbytes(nodes):.1f} GB/s: "
                f"set {flag} true or unset it",
            )
    return ConfigError(
        GOAL_KEY,
        goal_value(goal_cfg),
        f"{goal.text()} needs {goal.needed_gbps:.1f} GB/s but {reach}: the nodes' storage "
        "network is the limit; lower the goal or add nodes",
    )
