"""Run the stages over an inventory: hold every node, judge stage by stage, release the nodes
that pass one by one, and return the report the scorecard renders."""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from gpufabric.certify import stages
from gpufabric.certify.hosts import Holder, Inventory, Runner
from gpufabric.certify.limits import Collective, judge, table
from gpufabric.certify.storage import StorageBench, goal_of, path_of, rated_of, storage_stage
from gpufabric.errors import UserError
from gpufabric.inputs import packaged
from gpufabric.nccl.profiles import select

FabricRun = Callable[[list[str], str], dict[str, Any]]  # hosts, label -> doctor's report
CollectiveRun = Callable[[list[str], str], str]  # hosts, collective -> nccl-tests + INFO log


@cache
def criteria() -> dict[str, Any]:
    return dict(packaged.load_yaml("gpufabric.certify", "criteria.yaml"))


@dataclass
class Options:
    command: str = "gpufabric certify"
    dcgm: bool = True
    soak_repeats: int = field(default_factory=lambda: int(table()["soak"]["repeats"]))
    fabric_tiers: int = 0
    versions: dict[str, str] = field(default_factory=dict)
    storage_goal: dict[str, Any] | None = None  # the stack's gpufabric:storage.checkpoint (-s)
    storage_path: str = ""  # the stack's storage mount point (-s)


class Progress(Protocol):
    """What the CLI shows while stages run (rich)."""

    def stage(self, number: int, name: str, hosts: int) -> None: ...

    def done(self, number: int, failed: int) -> None: ...

    def released(self, host: str) -> None: ...


class Quiet:
    """Shows nothing (the library's default)."""

    def stage(self, number: int, name: str, hosts: int) -> None:
        pass

    def done(self, number: int, failed: int) -> None:
        pass

    def released(self, host: str) -> None:
        pass


def _versions(extra: dict[str, str]) -> dict[str, str]:
    from gpufabric import __version__

    return {"gpufabric": __version__, "python": platform.python_version(), **extra}


def certify(
    inv: Inventory,
    runner: Runner,
    holder: Holder,
    fabric_run: FabricRun,
    collective_run: CollectiveRun | None,
    opts: Options,
    progress: Progress | None = None,
    storage_bench: StorageBench | None = None,
) -> dict[str, Any]:
    progress = progress or Quiet()
    start = time.time()
    fabric = str(inv.var("gpufabric_fabric", ""))
    cloud = str(inv.var("gpufabric_cloud", ""))
    instance_type = str(inv.var("gpufabric_instance_type", ""))
    rows: list[dict[str, Any]] = []
    collectives: list[Collective] = []
    failed_at: dict[str, dict[str, Any]] = {}
    alive = list(inv.hosts)
    if not fabric:
        raise UserError("inventory: gpufabric_fabric must be set, one value for every host")
    select(fabric, cloud)  # a fabric without an NCCL profile is refused before any hold
    # the stack's goal and mount point (-s) count where the inventory sets none
    goal = goal_of(inv.var("gpufabric_storage_checkpoint", None) or opts.storage_goal)
    store_path = path_of(inv) or opts.storage_path
    rated = rated_of(inv)
    want_gpus = None
    if instance_type:
        from gpufabric.catalog import lookup

        want_gpus = lookup(instance_type, key="gpufabric_instance_type").gpu.count
    holder.hold(alive)

    def judged(new: list[dict[str, Any]], number: int) -> None:
        rows.extend(new)
        bad: list[dict[str, Any]] = []
        for r in new:
            seen = {b["host"] for b in bad}
            if r["status"] == "failed" and r["host"] in alive and r["host"] not in seen:
                bad.append(r)
        for r in bad:
            failed_at[r["host"]] = r
            alive.remove(r["host"])
            holder.fail(r["host"], f"stage {number} {r['stage_name']}: {r['reason']}")
        progress.done(number, len(bad))

    def begin(number: int) -> int:
        progress.stage(number, dict(stages.STAGES)[number], len(alive))
        return number

    def nobody_left(number: int) -> bool:
        if not alive:
            judged(stages.skipped(number, alive, "no node left"), number)
        return not alive

    paths = stages.profile_paths(fabric, cloud)
    data = stages.collect(runner, alive, paths, opts.dcgm, store_path)
    judged(stages.sanity(alive, data, want_gpus, lab=fabric == "lab"), begin(1))
    if not nobody_left(begin(2)):
        judged(stages.configuration(alive, data, fabric, cloud, opts.fabric_tiers), 2)
    if not nobody_left(begin(3)):
        judged(stages.node_checks(alive, data), 3)

    n = begin(4)
    if len(alive) < 2:
        judged(stages.skipped(4, alive, "fewer than 2 hosts left: no traffic test"), n)
    else:
        report = fabric_run(list(alive), "fabric")
        judged(stages.fabric_rows(4, list(alive), report, "no-traffic checks + bisection"), n)

    n = begin(5)
    if not alive:  # nobody to launch on (the launcher starts from the group's first node)
        judged(stages.skipped(5, alive, "no node left"), n)
    elif fabric == "lab" or collective_run is None or not instance_type:
        why = "no GPU in the lab" if fabric == "lab" else "no instance type / launcher"
        judged(stages.skipped(5, alive, f"collectives skipped: {why}"), n)
    else:
        judged(_collectives(inv, alive, fabric, instance_type, collective_run, collectives), n)

    n = begin(6)
    if not alive:
        judged(stages.skipped(6, alive, "no node left"), n)
    else:
        judged(storage_stage(list(alive), data, goal, store_path, storage_bench, rated), n)

    n = begin(7)
    if opts.soak_repeats < 1 or len(alive) < 2:
        judged(stages.skipped(7, alive, "soak: no repeat asked or fewer than 2 hosts"), n)
    else:
        for i in range(opts.soak_repeats):
            if len(alive) < 2:  # a repeat held all but one (or every) node: no traffic test
                judged(stages.skipped(7, alive, f"repeat {i + 1}: fewer than 2 hosts left"), n)
                break
            report = fabric_run(list(alive), f"soak{i + 1}")
            judged(stages.fabric_rows(7, list(alive), report, f"repeat {i + 1}"), n)

    for h in list(alive):
        holder.release(h)
        progress.released(h)
    hosts = {
        h: {"status": "certified", "stage": None, "reason": "", "todo": ""}
        if h not in failed_at
        else {
            "status": "held",
            "stage": f"{failed_at[h]['stage']} {failed_at[h]['stage_name']}",
            "reason": failed_at[h]["reason"],
            "todo": failed_at[h]["todo"],
        }
        for h in inv.hosts
    }
    failed_cluster = [r for r in rows if r["status"] == "failed" and not r["host"]]
    return {
        "verdict": "certified" if not failed_at and not failed_cluster else "not certified",
        "hosts": hosts,
        "rows": rows,
        "collectives": [c.to_dict() for c in collectives],
        "holds": holder.log,
        "meta": {
            "command": opts.command,
            "start": start,
            "stop": time.time(),
            "fabric": fabric,
            "cloud": cloud,
            "instance_type": instance_type,
            "hold": holder.mode,
            "versions": _versions(opts.versions),
            "argv": list(sys.argv),
        },
        "criteria": criteria()["criteria"],
    }


def _collectives(
    inv: Inventory,
    alive: list[str],
    fabric: str,
    instance_type: str,
    collective_run: CollectiveRun,
    out: list[Collective],
) -> list[dict[str, Any]]:
    """all_reduce and all_gather per leaf (2+ hosts) and across every host left."""
    leaves = {g: [h for h in hs if h in alive] for g, hs in inv.leaves().items()}
    # (name, hosts, a leaf?): a leaf that is itself named "cluster" is still a leaf of its own
    runs = [
        (f"leaf {g}" if g == "cluster" else g, hs, True) for g, hs in leaves.items() if len(hs) >= 2
    ]
    runs.append(("cluster", list(alive), False))
    rows: list[dict[str, Any]] = []
    for group, hosts, leaf in runs:
        for coll in ("all_reduce", "all_gather"):
            text = collective_run(hosts, coll)
            for c in judge(text, f"{coll} {group}", fabric, instance_type, len(hosts), coll):
                out.append(c)
                eff = f"{c.efficiency:.2f}" if c.efficiency is not None else "-"
                measured = f"busbw {c.peak_gbytes or 0:.1f} GB/s, {eff} of {c.algorithm} bound, {c.transport}"
                status = "passed" if c.ok else "failed"
                reason = f"collective: {c.reason}" if not c.ok else ""
                rows.append(
                    stages.row(
                        5,
                        "",
                        status,
                        measured,
                        reason,
                        name=f"5 collectives: {c.name}",
                        collective=c.to_dict(),
                    )
                )
                if not c.ok and leaf:  # a leaf's hosts are held; the whole cluster's run
                    for h in hosts:  # failing alone points at the spine (no host named)
                        rows.append(
                            stages.row(
                                5, h, "failed", measured, f"collective: {c.name}: {c.reason}"
                            )
                        )
    return rows


def write(report: dict[str, Any], out: Path) -> list[Path]:
    """certify.json (CTRF) and certify.html under `out`."""
    import json

    from gpufabric.certify.scorecard import ctrf, render_html

    out.mkdir(parents=True, exist_ok=True)
    files = [out / "certify.json", out / "certify.html"]
    files[0].write_text(json.dumps(ctrf(report), indent=2) + "\n")
    files[1].write_text(render_html(report))
    return files
