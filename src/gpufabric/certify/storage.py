"""Stage 6: the shared file system, measured from every node at once against the checkpoint goal.

The measurement is the storage bench's (playbooks/storage-benchmark.yml: fio on every node at
once, phase by phase) and so is the judgement (gpufabric.storage: results, gate, goal); this
module only decides who is measured and turns the gate's verdicts into rows:

- no checkpoint goal, or no shared file system named or mounted on any node: one skipped line,
  never a pass;
- a node where the path is missing or lies on the root file system: failed (storage-mount);
- the bench's verdicts: a node without a report or with a fio error fails (storage-run); an
  aggregate under the goal (or under the rated share) fails every measured node
  (storage-goal): the file system is shared, so is its verdict;
- fail closed: a run whose reports cannot be read, or that yields no write figure, fails
  every measured node.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gpufabric.certify.hosts import Inventory
from gpufabric.certify.stages import row, skipped
from gpufabric.config.base import CheckpointGoal
from gpufabric.errors import UserError
from gpufabric.storage.gate import gate
from gpufabric.storage.results import load_results
from gpufabric.storage.sizing import Goal

StorageBench = Callable[[list[str], str], Path]  # hosts, path -> the bench's results directory
GOAL_VAR = "gpufabric_storage_checkpoint"
PATH_VARS = ("storage_bench_path", "gpufabric_lab_shared_dir")
RATED_VAR = "storage_bench_rated_gbps"


def goal_of(value: Any) -> Goal | None:
    """The checkpoint goal of an inventory (`{sizeGiB, writeSeconds, readGBps?}`, the stack
    config's `gpufabric:storage.checkpoint`); None when unset; a bad one is refused."""
    if value in (None, "", {}):
        return None
    try:
        return CheckpointGoal.model_validate(value).goal()
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top)"
        raise UserError(f"inventory: {GOAL_VAR}: {where}: {err['msg']}") from None


def path_of(inv: Inventory) -> str:
    """The shared file system's mount point: the storage bench's own variable, else the lab's
    shared directory; "" when none is named (certify -s adds the stack file's)."""
    for name in PATH_VARS:
        value = inv.var(name, "")
        if isinstance(value, str) and value:
            if not value.startswith("/"):
                raise UserError(f"inventory: {name}: {value!r} is not an absolute path")
            return value
    return ""


def rated_of(inv: Inventory) -> float | None:
    value = inv.var(RATED_VAR, None)
    if value in (None, "", 0):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise UserError(f"inventory: {RATED_VAR}: {value!r} is not a positive number")
    return float(value)


def _mounted(d: dict[str, Any], path: str) -> str:
    """'' when the node has `path` on a mount of its own, else why not."""
    store = d.get("storage") or {}
    if not store.get("dir"):
        return f"storage-mount: {path} is not a directory on this node (not mounted)"
    if store.get("mount") in ("", "/"):
        return f"storage-mount: {path} lies on the root file system, not a shared mount"
    return ""


def storage_stage(
    hosts: list[str],
    data: dict[str, Any],
    goal: Goal | None,
    path: str,
    bench: StorageBench | None,
    rated_gbps: float | None = None,
) -> list[dict[str, Any]]:
    if goal is None:
        return skipped(
            6, hosts, f"no checkpoint goal ({GOAL_VAR}): storage not measured, not passed"
        )
    if not path:
        return skipped(
            6, hosts, "no shared file system named (storage_bench_path): storage not measured"
        )
    why = {h: _mounted(data.get(h) or {}, path) for h in hosts}
    measured = [h for h in hosts if not why[h]]
    if not measured:
        return skipped(
            6, hosts, f"no shared file system mounted at {path} on any node: storage not measured"
        )
    rows = [row(6, h, "failed", "not measured", why[h]) for h in hosts if why[h]]
    if bench is None:
        return rows + skipped(6, measured, "no storage bench to run: storage not measured")
    return rows + _judge(measured, bench(list(measured), path), goal, rated_gbps)


def _judge(
    hosts: list[str], results_dir: Path, goal: Goal, rated_gbps: float | None
) -> list[dict[str, Any]]:
    n = len(hosts)
    try:
        results = load_results(results_dir, hosts)
        result = gate(results, goal, rated_gbps)
    except UserError as exc:
        return [row(6, h, "failed", "no figure", f"storage-run: {exc}") for h in hosts]
    figures = result.figures
    if "write_gbps" not in figures:  # fail closed: no write figure, no pass
        reason = f"storage-run: no write figure from the {n} node(s) (see {results_dir})"
        return [row(6, h, "failed", "no figure", reason) for h in hosts]

    def rate(phase: str) -> str:
        """A phase's figure, and how many nodes it came from where some had no report."""
        k = len(results.phases[phase].nodes)
        return f"{phase} {figures[phase + '_gbps']:.3f} GB/s" + (f" ({k} of {n})" if k < n else "")

    measured = (
        rate("write")
        + (f", {rate('read')}" if "read_gbps" in figures else "")
        + f" from {n} node(s) at once; goal {goal.write_gbps:.3f} GB/s ({goal.text()})"
    )
    node_fail: dict[str, str] = {}
    cluster_fail: list[str] = []
    warnings: dict[str, list[str]] = {}
    for v in result.verdicts:
        if v.status == "fail" and v.subject in hosts:
            node_fail.setdefault(v.subject, f"storage-run: {v.check}: {v.message}")
        elif v.status == "fail":
            word = "storage-run" if v.check == "complete" else "storage-goal"
            cluster_fail.append(f"{word}: {v.check} {v.subject}: {v.message}")
        elif v.status == "warn":
            for h in hosts if v.subject not in hosts else [v.subject]:
                warnings.setdefault(h, []).append(f"{v.check}: {v.message}")
    rows = []
    for h in hosts:
        warned = f"; warnings: {'; '.join(warnings[h])}" if h in warnings else ""
        if h in node_fail:
            rows.append(row(6, h, "failed", measured + warned, node_fail[h]))
        elif cluster_fail:
            rows.append(row(6, h, "failed", measured + warned, cluster_fail[0]))
        else:
            rows.append(row(6, h, "passed", measured + warned, figures=figures))
    return rows
