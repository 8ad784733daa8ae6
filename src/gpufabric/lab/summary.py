"""What a playbook run configured on each lab host, readable: `gpufabric lab summary`.

Two sources, both real: the PLAY RECAP of the run (ok / changed / failed per host) and the
files on each host that Ansible wrote (every file under /etc headed with "Ansible managed"),
with their settings shown inline when they are short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpufabric.lab import lab
from gpufabric.lab.state import LabState

RECAP_RE = re.compile(r"^(?P<host>\S+)\s*:\s*(?P<counts>(?:\w+=\d+\s*)+)$")
MANAGED_MARKER = "Ansible managed"
INLINE_SETTINGS = 6
# Lists every Ansible-managed file under /etc with its non-comment lines, in one round trip.
_FIND_MANAGED = (
    "grep -rlI --exclude-dir=ssl --exclude-dir=alternatives -e '" + MANAGED_MARKER + "' /etc "
    '2>/dev/null | sort | while read -r f; do echo "== $f"; '
    "grep -vE '^[[:space:]]*(#|;|$)' \"$f\" | head -n 50; done"
)


def parse_recap(text: str) -> dict[str, dict[str, int]]:
    """Host -> {ok, changed, unreachable, failed, skipped, rescued, ignored} from PLAY RECAP."""
    out: dict[str, dict[str, int]] = {}
    lines = text.splitlines()
    try:
        start = max(i for i, ln in enumerate(lines) if ln.startswith("PLAY RECAP"))
    except ValueError:
        return out
    for line in lines[start + 1 :]:
        m = RECAP_RE.match(line.strip())
        if not m:
            continue
        out[m["host"]] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m["counts"])}
    return out


@dataclass
class ManagedFile:
    path: str
    settings: list[str] = field(default_factory=list)


def parse_managed(text: str) -> list[ManagedFile]:
    files: list[ManagedFile] = []
    for line in text.splitlines():
        if line.startswith("== "):
            files.append(ManagedFile(line[3:]))
        elif files and line.strip():
            files[-1].settings.append(line.strip())
    return files


def managed_files(st: LabState, host: str) -> list[ManagedFile]:
    proc = lab.run_in_host(st, host, ["sh", "-c", _FIND_MANAGED], timeout=60)
    return parse_managed(proc.stdout)


def render(
    st: LabState, recap: dict[str, dict[str, int]], files: dict[str, list[ManagedFile]]
) -> str:
    out: list[str] = []
    for h in st.layout.hosts:
        counts = recap.get(h.name)
        head = f"{h.name} ({h.address}, {h.leaf})"
        if counts is not None:
            head += (
                f": ok={counts.get('ok', 0)} changed={counts.get('changed', 0)} "
                f"failed={counts.get('failed', 0)} unreachable={counts.get('unreachable', 0)}"
            )
        out.append(head)
        mf = files.get(h.name, [])
        if not mf:
            out.append("    (no Ansible-managed files under /etc)")
        for f in mf:
            if len(f.settings) <= INLINE_SETTINGS:
                shown = "; ".join(f.settings) or "(no settings)"
            else:
                shown = f"{len(f.settings)} settings"
            out.append(f"    {f.path}: {shown}")
    return "\n".join(out) + "\n"
