"""One readable line per host saying what tune-fabric found and configured.

Reads the public results the roles export (`gpufabric_facts`, `host_tuning_result`,
`efa_result`, `doca_ofed_result`, `nccl_result`); a role that did not run is said so.
"""

from __future__ import annotations

from typing import Any


def run_summary(hostvars: dict[str, Any], host: str) -> str:
    facts = hostvars.get("gpufabric_facts") or {}
    parts = [f"{host}: {facts.get('summary', 'no fabric facts').split(': ', 1)[-1]}"]
    tuning = hostvars.get("host_tuning_result")
    if tuning:
        skipped = tuning.get("skipped") or []
        parts.append(
            f"sysctl {len(tuning.get('applied') or [])} set"
            + (f" / {len(skipped)} skipped ({', '.join(skipped)})" if skipped else "")
            + f", limits memlock {tuning.get('memlock')} nofile {tuning.get('nofile')}"
            + (", EFA hugepages" if tuning.get("hugepages") else "")
            + (", CPU governor" if tuning.get("cpu_governor") else "")
        )
    else:
        parts.append("host_tuning did not run")
    for role in ("efa", "doca_ofed"):
        result = hostvars.get(f"{role}_result")
        if not result:
            parts.append(f"{role} did not run")
        elif result.get("run"):
            parts.append(f"{role} installed/verified")
        else:
            parts.append(f"{role} skipped")
    nccl = hostvars.get("nccl_result")
    if nccl:
        lab = " (LAB)" if nccl.get("lab") else ""
        parts.append(
            f"nccl profile {nccl.get('profile')}{lab}: "
            f"{', '.join(nccl.get('settings') or []) or 'no settings'}"
        )
    else:
        parts.append("nccl did not run")
    return "; ".join(parts)
