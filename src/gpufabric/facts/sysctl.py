"""Which sysctls a host can change, and which differ from what we want (host_tuning role).

The role probes each wanted key on the node with one shell loop printing `key|state|value`
(state: writable, read-only, absent). In the lab, `vm.*` and `kernel.*` are read-only inside
systemd-nspawn while `net.*` is writable (measured in the lab), so the plan applies
what it can and names what it skipped and why, in one line.
"""

from __future__ import annotations

from typing import Any

from gpufabric.errors import UserError

STATES = ("writable", "read-only", "absent")
WHY = {
    "read-only": (
        "read-only here (lab hosts: vm.*, kernel.* and global net.core.* stay the machine's own)"
    ),
    "absent": "not present in this kernel/network namespace",
}


def normalize(value: Any) -> str:
    """'4096\\t87380  6291456' -> '4096 87380 6291456' (sysctl prints tabs)."""
    return " ".join(str(value).split())


def parse_probe(text: str) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.split("|", 2)
        if len(parts) != 3 or parts[1] not in STATES:
            raise UserError(f"host_tuning: unexpected sysctl probe line {line!r}")
        out[parts[0]] = (parts[1], normalize(parts[2]))
    return out


def plan(wanted: list[dict[str, Any]], probe_text: str) -> dict[str, Any]:
    """{'apply': [settings], 'skipped': [{name, why}], 'differ': [names], 'line': str}."""
    probe = parse_probe(probe_text)
    apply: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    differ: list[str] = []
    for item in wanted:
        name = str(item["name"])
        if name not in probe:
            # the probe prints one line per key it is given: none means it was cut short, and
            # reading that as "absent" would pass the verify step on nothing read back
            raise UserError(f"host_tuning: the sysctl probe printed no line for {name}")
        state, current = probe[name]
        if state != "writable":
            skipped.append({"name": name, "why": WHY[state]})
            continue
        apply.append(
            {"name": name, "value": normalize(item["value"]), "why": str(item.get("why", ""))}
        )
        if current != normalize(item["value"]):
            differ.append(name)
    line = ""
    if skipped:
        groups: dict[str, list[str]] = {}
        for s in skipped:
            groups.setdefault(s["why"], []).append(s["name"])
        line = "host_tuning: sysctl skipped " + "; ".join(
            f"{', '.join(names)}: {why}" for why, names in groups.items()
        )
    return {"apply": apply, "skipped": skipped, "differ": differ, "line": line}
