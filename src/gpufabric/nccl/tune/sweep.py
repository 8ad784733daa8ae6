"""Sweep planner: which nccl-tests runs to make, and which points are pruned (and why).

A trial is one nccl-tests run of one collective over a size range with one environment.
Per-size choices (algorithm, protocol, channels) are swept per collective over the buckets
where they can win; global settings (buffer size, plugin settings) are swept on top of NCCL's
defaults. The space and the pruning rules are data (sweep.yaml).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from gpufabric.catalog import InstanceType
from gpufabric.errors import ArgumentError
from gpufabric.inputs import packaged
from gpufabric.nccl.gate.thresholds import expected_net_devices
from gpufabric.nccl.tune.ncclrules import ALGORITHM_COLLECTIVES, ignored
from gpufabric.nccl.tune.tunerconf import FROM_TESTS


@dataclass(frozen=True)
class Bucket:
    name: str
    min: int
    max: int

    def holds(self, size: int) -> bool:
        return self.min <= size <= self.max


@dataclass(frozen=True)
class Choice:
    """One per-size choice, in the tuner file's spelling."""

    algorithm: str
    protocol: str
    channels: int

    def label(self) -> str:
        return f"{self.algorithm}/{self.protocol}/{self.channels}ch"


@dataclass(frozen=True)
class Trial:
    id: str  # file stem of its recorded output: "<collective>.<what>"
    collective: str  # nccl-tests name: all_reduce, ...
    min_bytes: int
    max_bytes: int
    env: tuple[tuple[str, str], ...] = ()
    stage: str = "default"  # default | choice | global
    choice: Choice | None = None

    @property
    def env_dict(self) -> dict[str, str]:
        return dict(self.env)


@dataclass(frozen=True)
class Plan:
    instance_type: str
    nodes: int
    gpus_per_node: int
    net_devices: int
    collectives: tuple[str, ...]
    buckets: tuple[Bucket, ...]
    trials: tuple[Trial, ...]
    pruned: dict[str, int] = field(default_factory=dict)  # reason -> points skipped

    def sizes_measured(self) -> int:
        """Rough cost: message sizes over all trials (factor-2 sweeps)."""
        return sum(
            max(1, t.max_bytes.bit_length() - max(8, t.min_bytes).bit_length() + 1)
            for t in self.trials
        )


@cache
def sweep_space() -> dict[str, Any]:
    """The packaged sweep.yaml."""
    return packaged.load_yaml("gpufabric.nccl.tune", "sweep.yaml")


def buckets(space: dict[str, Any]) -> tuple[Bucket, ...]:
    return tuple(Bucket(b["name"], int(b["min"]), int(b["max"])) for b in space["buckets"])


def algorithm_pruned(
    algo: str, coll: str, nodes: int, facts: InstanceType, space: dict[str, Any]
) -> str | None:
    """Why `algo` cannot win for `coll` on this cluster, or None."""
    prune = space["prune"]
    if FROM_TESTS.get(coll) not in ALGORITHM_COLLECTIVES[algo]:
        return f"{algo} does not implement {coll}"
    collnet = facts.fabric in prune["collnet_fabrics"]
    if algo == "nvls" and nodes > 1 and not collnet:
        return "nvls across nodes needs CollNet (SHARP); NCCL turns it off without"
    if nodes == 1 and algo in prune["multi_node_only"]:
        return f"{algo} needs more than one node"
    if algo in ("nvls", "nvls_tree") and facts.gpu.model not in prune["nvls_gpus"]:
        return f"{algo} needs NVLink SHARP (Hopper or later), not {facts.gpu.model}"
    if algo.startswith("collnet") and facts.fabric not in prune["collnet_fabrics"]:
        return f"{algo} needs SHARP in an InfiniBand fabric, not {facts.fabric}"
    if algo == "pat" and facts.gpu.count > prune["pat_max_gpus_per_node"]:
        return f"pat runs with one rank per node only ({facts.gpu.count} GPUs per node)"
    return None


def nccl_ignores(
    coll: str, algo: str, proto: str, nodes: int, facts: InstanceType, space: dict[str, Any]
) -> str | None:
    """Why NCCL itself would refuse the trial (ncclrules), or None: never planned."""
    collnet = facts.fabric in space["prune"]["collnet_fabrics"]
    ranks = nodes * facts.gpu.count
    return ignored(FROM_TESTS[coll], algo, proto, nodes, ranks, collnet)


def bucket_pruned(
    proto: str, channels: int, bucket: Bucket, devices: int, space: dict[str, Any]
) -> str | None:
    """Why (protocol, channels) cannot win in `bucket`, or None."""
    prune = space["prune"]
    if bucket.min > prune["protocol_max_bytes"].get(proto, 2**64):
        return f"{proto} is latency-optimised: loses on bandwidth above its size range"
    if bucket.max < prune["protocol_min_bytes"].get(proto, 0):
        return f"{proto} loses to LL/LL128 on tiny messages"
    if channels < devices and bucket.min >= prune["channels_below_nics_min_bytes"]:
        return "fewer channels than net devices cannot fill every NIC at large sizes"
    if channels > 2 * devices and bucket.max <= prune["channels_above_2x_nics_max_bytes"]:
        return "more than 2 channels per net device only adds sync cost on tiny messages"
    return None


def _trial(
    coll: str,
    what: str,
    lo: int,
    hi: int,
    env: dict[str, str],
    stage: str,
    choice: Choice | None = None,
) -> Trial:
    return Trial(f"{coll}.{what}", coll, max(8, lo), hi, tuple(sorted(env.items())), stage, choice)


def plan_sweep(
    facts: InstanceType,
    nodes: int,
    collectives: list[str] | None = None,
    space: dict[str, Any] | None = None,
) -> Plan:
    """Every trial worth running for the instance type `facts` x `nodes`, with the pruned points
    counted."""
    if nodes < 1:
        raise ArgumentError("nodes", f"{nodes} is not valid; must be 1 or more")
    space = space or sweep_space()
    colls = tuple(collectives or space["collectives"])
    for coll in colls:
        if coll not in FROM_TESTS:
            raise ArgumentError(
                "collective",
                f"{coll!r} is not tunable; the tuner plugin steers {', '.join(FROM_TESTS)}",
            )
    bks = buckets(space)
    devices = expected_net_devices(facts)
    top = int(space["max_test_bytes"])
    names = space["env_names"]
    trials: list[Trial] = []
    pruned: dict[str, int] = {}

    def skip(reason: str, count: int = 1) -> None:
        pruned[reason] = pruned.get(reason, 0) + count

    for coll in colls:
        trials.append(_trial(coll, "default", 8, top, {}, "default"))
        for algo in space["algorithms"]:
            reason = algorithm_pruned(algo, coll, nodes, facts, space)
            if reason:
                skip(reason, len(space["protocols"]) * len(space["channels"]))
                continue
            for proto in space["protocols"]:
                why_not = nccl_ignores(coll, algo, proto, nodes, facts, space)
                if why_not:
                    skip(why_not, len(space["channels"]))
                    continue
                for ch in space["channels"]:
                    live = []
                    for b in bks:
                        why = bucket_pruned(proto, ch, b, devices, space)
                        if why:
                            skip(why)
                        else:
                            live.append(b)
                    if not live:
                        continue
                    env = {
                        "NCCL_ALGO": names["algorithms"][algo],
                        "NCCL_PROTO": names["protocols"][proto],
                        "NCCL_MIN_NCHANNELS": str(ch),
                        "NCCL_MAX_NCHANNELS": str(ch),
                    }
                    trials.append(
                        _trial(
                            coll,
                            f"{algo}-{proto}-c{ch}",
                            live[0].min,
                            min(top, live[-1].max),
                            env,
                            "choice",
                            Choice(algo, proto, ch),
                        )
                    )
    candidates = list(space["globals"]) + list(space["fabric_globals"].get(facts.fabric, []))
    for coll in space["guard_collectives"]:
        trials.append(_trial(coll, "default", 1 << 20, top, {}, "default"))
    for i, env in enumerate(candidates):
        for coll in colls + tuple(space["guard_collectives"]):
            trials.append(
                _trial(
                    coll, f"global{i}", 1 << 20, top, {k: str(v) for k, v in env.items()}, "global"
                )
            )
    return Plan(facts.name, nodes, facts.gpu.count, devices, colls, bks, tuple(trials), pruned)
