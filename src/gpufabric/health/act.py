"""Step 3: take bad hosts out of service, and give back only those this tool took.

Slurm: a bad host is drained with a reason that starts with PREFIX; a healthy host is resumed
only when it is drained with a reason that starts with PREFIX (a drain set by an operator or
another tool is never touched, as NHC does with its "NHC:" prefix). Kubernetes: a bad host
gets the taint TAINT_KEY=bad:NoSchedule; a healthy host loses that taint key only.
"""

from __future__ import annotations

import re
from typing import Any

from gpufabric.inputs.errors import InputError
from gpufabric.inputs.formats import parse_json

PREFIX = "gpufabric-health:"
TAINT_KEY = "gpufabric.io/fabric-health"
TAINT_EFFECT = "NoSchedule"
MAX_REASON = 200
_FIELD = re.compile(r"(?:^|\s)([A-Za-z]+)=")
_STAMP = re.compile(r"\s\[[^\s\[\]@]+@[^\[\]]*\](?=\s|$)")  # " [root@2026-12-01T18:28:45]"


def parse_scontrol_nodes(text: str) -> dict[str, dict[str, str]]:
    """`scontrol show node --oneliner` -> {node: {"state", "reason"}} (reason without the
    trailing "[user@time]" that scontrol appends)."""
    out: dict[str, dict[str, str]] = {}
    for line in (text or "").splitlines():
        if "NodeName=" not in line:
            continue
        reason = ""
        head = line
        if " Reason=" in line:
            head, _, tail = line.partition(" Reason=")
            # scontrol ends a reason set by `scontrol update` with " [user@time]": the reason
            # is what comes before it, whatever it holds (even "Word=" or " Reason=")
            m = _STAMP.search(tail) or _FIELD.search(tail)
            while m is not None and m.re is _FIELD and not re.match(r"^[A-Z][A-Za-z]+$", m[1]):
                m = _FIELD.search(tail, m.end())  # fields after Reason (newer Slurm prints some)
            reason = (tail[: m.start()] if m else tail).strip()
        fields = dict(re.findall(r"(\w+)=(\S*)", head))
        node = fields.get("NodeName", "")
        if node:
            out[node] = {"state": fields.get("State", ""), "reason": reason}
    return out


def slurm_reason(reasons: list[str], prefix: str = PREFIX) -> str:
    """One line for Slurm's Reason field: prefix + the reasons, no newlines, bounded length."""
    text = f"{prefix} " + "; ".join(" ".join(r.split()) for r in reasons)
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def plan_slurm(
    verdicts: dict[str, dict[str, Any]], nodes: dict[str, dict[str, str]], prefix: str = PREFIX
) -> list[dict[str, Any]]:
    """Actions {"node", "action": drain | resume | keep, "why", "argv"} for every judged host."""
    actions: list[dict[str, Any]] = []
    for host, v in sorted(verdicts.items()):
        node = nodes.get(host)
        if node is None:
            actions.append({"node": host, "action": "keep", "why": "not a Slurm node", "argv": []})
            continue
        drained = "DRAIN" in node["state"].upper()
        ours = node["reason"].startswith(prefix)
        if v["status"] == "bad":
            reason = slurm_reason(v["reasons"], prefix)
            if drained and not ours:
                actions.append(
                    {
                        "node": host,
                        "action": "keep",
                        "argv": [],
                        "why": f"already drained by someone else ({node['reason']})",
                    }
                )
            elif drained and node["reason"] == reason:
                actions.append(
                    {
                        "node": host,
                        "action": "keep",
                        "argv": [],
                        "why": "already drained for the same reason",
                    }
                )
            else:
                actions.append(
                    {
                        "node": host,
                        "action": "drain",
                        "why": reason,
                        "argv": [
                            "scontrol",
                            "update",
                            f"NodeName={host}",
                            "State=DRAIN",
                            f"Reason={reason}",
                        ],
                    }
                )
        elif drained and ours:
            actions.append(
                {
                    "node": host,
                    "action": "resume",
                    "why": "healthy again",
                    "argv": ["scontrol", "update", f"NodeName={host}", "State=RESUME"],
                }
            )
        else:
            why = f"drained by someone else ({node['reason']})" if drained else "in service"
            actions.append({"node": host, "action": "keep", "why": why, "argv": []})
    return actions


def slurm_unapplied(actions: list[dict[str, Any]], nodes: dict[str, dict[str, str]]) -> list[str]:
    """The drains / resumes that Slurm does not show (read back after running them)."""
    out: list[str] = []
    for a in actions:
        node = nodes.get(a["node"], {"state": "", "reason": ""})
        drained = "DRAIN" in node["state"].upper()
        if a["action"] == "drain" and not (drained and node["reason"] == a["why"]):
            out.append(f"{a['node']} not drained (State={node['state']})")
        elif a["action"] == "resume" and drained:
            out.append(f"{a['node']} still drained (State={node['state']})")
    return out


def parse_kubectl_nodes(text: str) -> dict[str, list[dict[str, str]]]:
    """`kubectl get nodes -o json` -> {node: its taints}."""
    try:
        doc = parse_json(text or "{}", where="kubectl get nodes -o json")
    except InputError:
        return {}
    out: dict[str, list[dict[str, str]]] = {}
    for item in doc.get("items") or [] if isinstance(doc, dict) else []:
        name = (item.get("metadata") or {}).get("name")
        if name:
            out[name] = list((item.get("spec") or {}).get("taints") or [])
    return out


def plan_k8s(
    verdicts: dict[str, dict[str, Any]],
    taints: dict[str, list[dict[str, str]]],
    kubectl: str = "kubectl",
    key: str = TAINT_KEY,
) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = []
    for host, v in sorted(verdicts.items()):
        if host not in taints:
            actions.append(
                {"node": host, "action": "keep", "why": "not a Kubernetes node", "argv": []}
            )
            continue
        has = any(t.get("key") == key for t in taints[host])
        if v["status"] == "bad" and not has:
            actions.append(
                {
                    "node": host,
                    "action": "taint",
                    "why": "; ".join(v["reasons"]),
                    "argv": [
                        kubectl,
                        "taint",
                        "nodes",
                        host,
                        f"{key}=bad:{TAINT_EFFECT}",
                        "--overwrite",
                    ],
                }
            )
        elif v["status"] != "bad" and has:
            actions.append(
                {
                    "node": host,
                    "action": "untaint",
                    "why": "healthy again",
                    "argv": [kubectl, "taint", "nodes", host, f"{key}:{TAINT_EFFECT}-"],
                }
            )
        else:
            actions.append(
                {
                    "node": host,
                    "action": "keep",
                    "argv": [],
                    "why": "tainted" if has else "in service",
                }
            )
    return actions
