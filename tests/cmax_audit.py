"""ClusterMAX's `cmax audit networking` (clustermax, the [dev] extra) run piece by piece where
its pieces can run: nothing of it is copied here, every piece is the installed tool's own.

How `cmax audit` gathers the networking values on a Slurm cluster (scripts/1-audit):
- cluster-audit-slurm.sh sends host-check.sh to a GPU worker over `srun ... bash -s` and reads
  its `WORKER_*=` lines; audit-common.sh turns WORKER_NCCL_CONF_OVERRIDES into
  `networking.ncclAutoConfig` (true when "false");
- the same script sets `networking.topologyConfigured` from the TopologyPlugin line of
  `scontrol show config` (the line kept here as `topology_line`, read from the script);
- run_checks.py runs checks/platform_config.py, which fans out `platform_config.py
  --collect-host` with srun to every node and folds the host reports into `nccl_ib_qps` and
  `nccl_topo_file` (build_payload);
- cmax/audit_report.py grades the values with audit_findings.py's rules (evaluate).
Without srun to GPU workers, the tests send the same scripts to the hosts themselves (stdin,
as cmax does) and grade with the same `evaluate`.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

HARNESS = "slurm"


def scripts() -> Path | None:
    """scripts/1-audit of the installed clustermax, or None where it is not installed."""
    spec = importlib.util.find_spec("cmax")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "scripts" / "1-audit"


def platform_config(where: Path) -> ModuleType:
    path = where / "checks" / "platform_config.py"
    spec = importlib.util.spec_from_file_location("cmax_platform_config", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def worker_values(stdout: str) -> dict[str, str]:
    """host-check.sh's WORKER_*=value lines (as cluster-audit-slurm.sh reads them)."""
    out: dict[str, str] = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and re.fullmatch(r"WORKER_[A-Za-z0-9_]*", key):
            out[key] = value
    return out


def topology_line(where: Path) -> str:
    """The shell line cluster-audit-slurm.sh reads the topology plugin with, on
    `scontrol show config` output in $SLURM_CONFIG_FULL."""
    text = (where / "cluster-audit-slurm.sh").read_text()
    m = re.search(r"^TOPOLOGY_CONF=(.+)$", text, re.MULTILINE)
    assert m, "cluster-audit-slurm.sh no longer sets TOPOLOGY_CONF this way: re-read clustermax"
    return m.group(1)


def values(
    where: Path,
    workers: list[dict[str, str]],
    reports: list[dict[str, Any]],
    nodes: int,
    tiers: int,
    topology_plugin: str | None,
) -> dict[str, Any]:
    """The audit values cmax would write for these hosts (networking part)."""
    pc = platform_config(where)
    payload = pc.build_payload(
        reports=reports, errors=[], container={}, node_count=nodes, fabric_tiers=tiers
    )
    overrides = any(w.get("WORKER_NCCL_CONF_OVERRIDES") != "false" for w in workers)
    networking: dict[str, Any] = {"ncclAutoConfig": not overrides}
    if topology_plugin is not None:  # audit-common.sh: set and not "(null)"
        networking["topologyConfigured"] = topology_plugin not in ("", "(null)")
    return {
        "cluster": {"orchestrator": HARNESS},
        "networking": networking,
        "nccl_ib_qps": payload["nccl_ib_qps"],
        "nccl_topo_file": payload["nccl_topo_file"],
    }


def grade(where: Path, audit_values: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """cmax's own grading of the networking category: check key -> (status, assessment)."""
    from cmax import audit_report

    root = where.parents[1]  # the package's runtime root (cmax/)
    checks = audit_report.evaluate(audit_values, root, category="networking", harness=HARNESS)
    return {c.key: (c.status, c.assessment) for c in checks}
