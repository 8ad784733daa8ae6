"""ClusterMAX's networking checks on one node's NCCL configuration, as `cmax audit` runs them.

Re-implemented from clustermax 0.2.1 (PyPI, Apache-2.0; paths inside the wheel) so that the
configuration audit and the tests judge /etc/nccl.conf by the same rules:

- nccl-autoconfig (scripts/1-audit/host-check.sh): `grep -qE
  "NCCL_MIN_NCHANNELS|NCCL_PROTO|NCCL_ALGO" /etc/nccl.conf` over the whole file, comments
  included, substring match: any match fails.
- GID index (host-check.sh): `grep -oP '^\\s*NCCL_IB_GID_INDEX\\s*=\\s*\\K\\d+'`, first match;
  on hosts with RoCE v2 GIDs it must be 3 (printed, not graded by cmax).
- nccl-ib-qps-entropy (scripts/1-audit/checks/platform_config.py): the effective
  NCCL_IB_QPS_PER_CONNECTION (environment, else nccl.conf without comments, default 1) must be
  >= 2 on a multi-tier fabric; a warning, never a failure, in cmax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpufabric.inputs.types import digits
from gpufabric.nccl.profiles import JOB_ENV_ONLY, ROCE_V2_GID_INDEX, fabric_is_multi_tier

AUTOCONFIG = re.compile("|".join(JOB_ENV_ONLY))
GID_SETTING = "NCCL_IB_GID_INDEX"
GID_LINE = re.compile(rf"^\s*{GID_SETTING}\s*=\s*(\d+)", re.MULTILINE)
RECOMMENDED_QPS = 2  # platform_config.py RECOMMENDED_QPS_PER_CONNECTION
DEFAULT_QPS = 1  # platform_config.py DEFAULT_QPS_PER_CONNECTION (NCCL's default)


@dataclass(frozen=True)
class Finding:
    criterion: str  # ClusterMAX criterion id
    status: str  # pass | fail | warning | not_applicable
    detail: str


def parse_conf(text: str) -> dict[str, str]:
    """KEY=VALUE lines, `#` starts a comment (platform_config.py parse_nccl_conf)."""
    values: dict[str, str] = {}
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def autoconfig(conf_text: str) -> Finding:
    found = sorted({m.group(0) for m in AUTOCONFIG.finditer(conf_text or "")})
    if found:
        return Finding(
            "nccl-autoconfig",
            "fail",
            f"/etc/nccl.conf names {', '.join(found)} (pins NCCL's tuning for every job): "
            "move a vendor-required pin to the job environment",
        )
    return Finding("nccl-autoconfig", "pass", "no algorithm, protocol or channel pin")


def gid_index(conf_text: str, roce_v2: bool, profile_sets_it: bool = True) -> Finding:
    """`profile_sets_it` False: the fabric's profile leaves the GID to its net plugin (which
    picks its own, as NCCL does when the index is unset), so an unset index is not a fault."""
    m = GID_LINE.search(conf_text or "")
    if not roce_v2:
        return Finding("nccl-gid-index", "not_applicable", "no RoCE v2 port")
    if not profile_sets_it:
        return Finding(
            "nccl-gid-index", "not_applicable", "the profile leaves the GID to its net plugin"
        )
    if m is None:
        return Finding("nccl-gid-index", "fail", "NCCL_IB_GID_INDEX not set on a RoCE v2 host")
    if int(m.group(1)) != ROCE_V2_GID_INDEX:
        return Finding(
            "nccl-gid-index",
            "warning",
            f"NCCL_IB_GID_INDEX={m.group(1)}, ClusterMAX expects {ROCE_V2_GID_INDEX} on RoCE v2 "
            "(right only if this host's RoCE v2 GID sits at that index: show_gids)",
        )
    return Finding("nccl-gid-index", "pass", f"NCCL_IB_GID_INDEX={ROCE_V2_GID_INDEX}")


def qps(conf_text: str, env: dict[str, str], rdma: bool, nodes: int, tiers: int) -> Finding:
    raw = env.get("NCCL_IB_QPS_PER_CONNECTION") or parse_conf(conf_text).get(
        "NCCL_IB_QPS_PER_CONNECTION", ""
    )
    value = int(raw) if digits(raw) and int(raw) > 0 else DEFAULT_QPS
    if not rdma:
        return Finding("nccl-ib-qps-entropy", "not_applicable", "no RDMA device")
    if not fabric_is_multi_tier(nodes, tiers):
        return Finding(
            "nccl-ib-qps-entropy",
            "not_applicable",
            f"single-tier fabric ({nodes} node(s), {tiers or 'unknown'} tier(s))",
        )
    if value >= RECOMMENDED_QPS:
        return Finding("nccl-ib-qps-entropy", "pass", f"NCCL_IB_QPS_PER_CONNECTION={value}")
    return Finding(
        "nccl-ib-qps-entropy",
        "warning",
        f"NCCL_IB_QPS_PER_CONNECTION={value} on a multi-tier fabric: set {RECOMMENDED_QPS} "
        "(up to 4) on every rank",
    )
