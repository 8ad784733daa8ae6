"""The stages, in order. Each takes the hosts still in the run and returns one row per host (or
per cluster-wide test); a host that fails a stage leaves the run (later stages cannot pass it).

Row: {"stage", "name", "host" ("" for a cluster test), "status": passed|failed|skipped,
      "measurement", "reason", "todo", "extra"?}.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from gpufabric.certify import clustermax
from gpufabric.certify.hosts import Runner
from gpufabric.certify.limits import advice
from gpufabric.errors import UserError
from gpufabric.inputs.formats import parse_json
from gpufabric.inputs.models import validate
from gpufabric.nccl.profiles import book, select

STAGES = (
    (1, "sanity"),
    (2, "configuration"),
    (3, "node"),
    (4, "fabric"),
    (5, "collectives"),
    (6, "storage"),
    (7, "soak"),
)
COLLECTOR = Path(__file__).with_name("collect_node.py")
ENV_FILE = "/etc/profile.d/gpufabric-nccl.sh"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Dcgm(_Strict):
    rc: StrictInt
    tail: StrictStr


class Mount(_Strict):
    path: StrictStr
    dir: StrictBool
    mount: StrictStr
    fstype: StrictStr


class NodeReport(_Strict):
    """What collect_node.py prints (a node's own report: untrusted, typed before it is read)."""

    gpus: StrictInt = Field(ge=0)
    nccl_conf: StrictStr
    nccl_env: StrictStr
    roce_v2: StrictBool
    rdma: list[StrictStr]
    paths: dict[str, StrictBool]
    tools: dict[str, StrictStr]
    dcgm: Dcgm | None = None
    storage: Mount | None = None


def row(
    stage: int,
    host: str,
    status: str,
    measurement: str,
    reason: str = "",
    name: str = "",
    **extra: Any,
) -> dict[str, Any]:
    title = dict(STAGES)[stage]
    return {
        "stage": stage,
        "stage_name": title,
        "name": name or f"{stage} {title}: {host}",
        "host": host,
        "status": status,
        "measurement": measurement,
        "reason": reason,
        "todo": advice(reason) if status == "failed" else "",
        "extra": extra,
    }


def skipped(stage: int, hosts: list[str], why: str) -> list[dict[str, Any]]:
    """One cluster-wide row: the stage did not run (one line why)."""
    title = dict(STAGES)[stage]
    return [row(stage, "", "skipped", why, name=f"{stage} {title}: {len(hosts)} host(s)")]


def profile_paths(fabric: str, cloud: str) -> list[str]:
    """Absolute paths the fabric's NCCL profile relies on (net plugin library directory)."""
    prof = book().profiles[select(fabric, cloud)]
    lib = prof.net_plugin.library.split(" ", 1)[0]
    return [lib] if lib.startswith("/") else []


def collect(
    runner: Runner, hosts: list[str], paths: list[str], dcgm: bool, storage: str = ""
) -> dict[str, Any]:
    """Run the node collector on every host: host -> its JSON (absent when it did not answer).
    `storage`: the shared file system's path, whose mount each node reports."""
    args = paths + ([] if dcgm else ["--no-dcgm"]) + ([f"--storage={storage}"] if storage else [])
    res = runner.script(hosts, COLLECTOR, args)
    out: dict[str, Any] = {}
    for h, r in res.items():
        if r.get("unreachable") or r.get("failed") or r.get("rc", 0) != 0:
            continue
        where = f"{h}: the node collector"
        try:
            report = validate(
                NodeReport, parse_json(str(r.get("stdout", "")), where=where), where=where
            )
        except UserError:
            continue  # a node whose report is not what the collector prints: not answered
        out[h] = report.model_dump()
    return out


def sanity(
    hosts: list[str], data: dict[str, Any], want_gpus: int | None, lab: bool = False
) -> list[dict[str, Any]]:
    """Stage 1: every host answered; its GPU count against the instance type (or its peers).
    Outside the lab a node whose driver lists no GPU fails, even when its peers list none."""
    counts = [d["gpus"] for d in data.values()]
    peers = Counter(counts).most_common(1)[0][0] if counts else 0
    want = want_gpus if want_gpus is not None else peers
    what = "instance type" if want_gpus is not None else "peers"
    rows = []
    for h in hosts:
        if h not in data:
            rows.append(row(1, h, "failed", "no answer", "unreachable: no answer over ssh"))
        elif data[h]["gpus"] != want:
            rows.append(
                row(
                    1,
                    h,
                    "failed",
                    f"{data[h]['gpus']} GPU(s)",
                    f"gpu-count: {data[h]['gpus']} GPU(s), the {what} {want}",
                )
            )
        elif data[h]["gpus"] == 0 and not lab:
            reason = "gpu-count: 0 GPU(s): the NVIDIA driver lists none (/proc/driver/nvidia/gpus)"
            rows.append(row(1, h, "failed", "0 GPU(s)", reason))
        else:
            rows.append(row(1, h, "passed", f"{data[h]['gpus']} GPU(s), the {what} {want}"))
    return rows


def audit_host(
    d: dict[str, Any], fabric: str, cloud: str, nodes: int, tiers: int
) -> tuple[list[str], list[str]]:
    """Stage 2 problems and warnings of one host: the profile tune-fabric writes, ClusterMAX's
    checks (their warnings never hold a node)."""
    problems: list[str] = []
    warnings: list[str] = []
    conf = str(d.get("nccl_conf") or "")
    name = select(fabric, cloud)
    prof = book().profiles[name]
    if not conf:
        return ["nccl-conf: /etc/nccl.conf is missing (tune-fabric not run)"], []
    if f'profile "{name}"' not in conf:
        problems.append(f"nccl-conf: /etc/nccl.conf is not the {name} profile")
    lines = set(conf.splitlines())
    for s in prof.settings:
        if not s.name.startswith("NCCL_") or s.name in clustermax.JOB_ENV_ONLY or s.when:
            continue
        if s.value is not None and s.scale_out is None and f"{s.name}={s.value}" not in lines:
            problems.append(f"nccl-conf: {s.name}={s.value} missing from /etc/nccl.conf")
    if not d.get("nccl_env"):
        problems.append(f"nccl-conf: {ENV_FILE} is missing")
    for f in (
        clustermax.autoconfig(conf),
        clustermax.gid_index(
            conf,
            bool(d.get("roce_v2")),
            any(s.name == clustermax.GID_SETTING for s in prof.settings),
        ),
        clustermax.qps(conf, {}, bool(d.get("rdma")), nodes, tiers),
    ):
        if f.status in ("fail", "warning"):
            (problems if f.status == "fail" else warnings).append(f"{f.criterion}: {f.detail}")
    topo = clustermax.parse_conf(conf).get("NCCL_TOPO_FILE")
    paths = d.get("paths") or {}
    # a path the node did not report counts as missing: present only where the node says so
    for path in sorted({*profile_paths(fabric, cloud), *paths} - {topo}):
        if not paths.get(path, False):
            problems.append(f"net-plugin: {path} is missing")
    if topo and not paths.get(topo, False):
        problems.append(f"topo-file: {topo} is missing")
    return problems, warnings


def configuration(
    hosts: list[str], data: dict[str, Any], fabric: str, cloud: str, tiers: int
) -> list[dict[str, Any]]:
    rows = []
    for h in hosts:
        problems, warnings = audit_host(data[h], fabric, cloud, len(hosts), tiers)
        warned = f"; warnings: {'; '.join(warnings)}" if warnings else ""
        if problems:
            rows.append(
                row(2, h, "failed", f"{len(problems)} problem(s){warned}", "; ".join(problems))
            )
        else:
            rows.append(row(2, h, "passed", f"{select(fabric, cloud)} profile in place{warned}"))
    return rows


def node_checks(hosts: list[str], data: dict[str, Any]) -> list[dict[str, Any]]:
    """Stage 3: dcgmi diag -r 1 where dcgmi exists; one skipped line where no GPU tool is."""
    tooled = [h for h in hosts if any((data[h].get("tools") or {}).values())]
    if not tooled:
        return skipped(
            3, hosts, "nvbandwidth, dcgmi and nvidia-smi not installed: GPU checks skipped"
        )
    rows = []
    for h in hosts:
        dcgm = data[h].get("dcgm")
        if dcgm is None:
            rows.append(row(3, h, "skipped", "dcgmi not installed"))
        elif dcgm["rc"] != 0:
            tail = str(dcgm["tail"]).strip().splitlines()[-1:] or [""]
            rows.append(
                row(3, h, "failed", f"dcgmi diag -r 1 exit {dcgm['rc']}", f"dcgm: {tail[0]}")
            )
        else:
            rows.append(row(3, h, "passed", "dcgmi diag -r 1 passed"))
    return rows


def fabric_rows(
    stage: int, hosts: list[str], report: dict[str, Any], what: str
) -> list[dict[str, Any]]:
    """Stage 4 / 7 rows from a fabric-doctor report (gpufabric.health.report.build)."""
    rows = []
    for h in hosts:
        v = (report.get("hosts") or {}).get(h)
        if v is None:
            rows.append(
                row(stage, h, "failed", "not judged", "unreachable: not in the doctor's report")
            )
        elif v["status"] == "ok":
            rows.append(row(stage, h, "passed", what, warnings=list(v.get("warnings") or [])))
        else:
            reason = "; ".join(v["reasons"])
            if stage == 7:
                reason = f"inconsistent: passed the fabric stage, failed a repeat: {reason}"
            rows.append(row(stage, h, "failed", what, reason))
    return rows
