"""Readable diff of offline plans (base branch vs pull request) for the job summary.

    python .github/scripts/plan_diff.py BASE_DIR HEAD_DIR >> "$GITHUB_STEP_SUMMARY"

Each dir holds `<stack>.json` from `gpufabric plan -s <stack> --json` (absent or unreadable:
the stack has no plan on that side). HEAD_DIR may also hold `<stack>.policy` (what
`--policy` printed) and `<stack>.rc` (its exit code). Prints Markdown; exits 1 when a head
plan failed or broke a policy, so the check fails with the summary explaining why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

MAX_PATHS = 25
MAX_VALUE = 80
NOTICE = (
    "Offline plans: the real Pulumi program under mocks (`gpufabric plan`), no provider "
    "validation and no live state. `pulumi preview` (below, when cloud credentials are "
    "configured) is the diff against what is deployed."
)


def load(folder: Path, stack: str) -> dict[str, Any] | None:
    try:
        doc = json.loads((folder / f"{stack}.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) else None


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": [1]}} -> {"a.b[0]": 1}: leaf paths, so a change names exactly what moved."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out or {prefix: {}}
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{index}]"))
        return out or {prefix: []}
    return {prefix: value}


def short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."


def changes(old: Any, new: Any) -> list[str]:
    """`path: old -> new` lines for every leaf that differs."""
    before, after = flatten(old), flatten(new)
    lines = []
    for path in sorted(before.keys() | after.keys()):
        if path not in after:
            lines.append(f"{path}: {short(before[path])} -> (removed)")
        elif path not in before:
            lines.append(f"{path}: (added) {short(after[path])}")
        elif before[path] != after[path]:
            lines.append(f"{path}: {short(before[path])} -> {short(after[path])}")
    if len(lines) > MAX_PATHS:
        lines = [*lines[:MAX_PATHS], f"... and {len(lines) - MAX_PATHS} more"]
    return lines


def _by_key(plan: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    resources = (plan or {}).get("resources") or []
    return {f"{r['type']} {r['name']}": r.get("inputs", {}) for r in resources}


def stack_diff(
    base: dict[str, Any] | None, head: dict[str, Any] | None
) -> tuple[list[str], dict[str, int]]:
    """Diff lines (`+`, `-`, `~`, then indented changes) and counts per kind."""
    old, new = _by_key(base), _by_key(head)
    lines: list[str] = []
    counts = {"added": 0, "removed": 0, "changed": 0, "unchanged": 0}
    for key in sorted(old.keys() | new.keys()):
        if key not in old:
            counts["added"] += 1
            lines.append(f"+ {key}")
        elif key not in new:
            counts["removed"] += 1
            lines.append(f"- {key}")
        elif old[key] != new[key]:
            counts["changed"] += 1
            lines.append(f"~ {key}")
            lines += [f"    {line}" for line in changes(old[key], new[key])]
        else:
            counts["unchanged"] += 1
    output_changes = changes((base or {}).get("outputs", {}), (head or {}).get("outputs", {}))
    if output_changes:
        lines.append("~ outputs")
        lines += [f"    {line}" for line in output_changes]
    return lines, counts


def policy_lines(head_dir: Path, stack: str) -> tuple[bool, list[str]]:
    """(failed, lines): the head plan's exit code and what `--policy` printed."""
    rc_file, text_file = head_dir / f"{stack}.rc", head_dir / f"{stack}.policy"
    rc = int(rc_file.read_text().strip() or 0) if rc_file.is_file() else 0
    text = text_file.read_text().strip().splitlines() if text_file.is_file() else []
    return rc != 0, text


def stacks_in(*folders: Path) -> list[str]:
    names: set[str] = set()
    for folder in folders:
        names |= {p.stem for p in folder.glob("*.json")} | {p.stem for p in folder.glob("*.rc")}
    return sorted(names)


def render(base_dir: Path, head_dir: Path) -> tuple[str, bool]:
    """The Markdown summary, and whether any head plan or policy check failed."""
    out = ["## Offline plan: pull request vs base branch", "", f"_{NOTICE}_", ""]
    out += [
        "| stack | added | removed | changed | unchanged | policies |",
        "|---|---|---|---|---|---|",
    ]
    sections: list[str] = []
    failed_any = False
    for stack in stacks_in(base_dir, head_dir):
        base, head = load(base_dir, stack), load(head_dir, stack)
        failed, policy = policy_lines(head_dir, stack)
        failed_any |= failed or head is None
        lines, counts = stack_diff(base, head)
        verdict = "FAILED" if failed or head is None else "pass"
        note = " (new)" if base is None else (" (removed)" if head is None else "")
        out.append(
            f"| {stack}{note} | {counts['added']} | {counts['removed']} | {counts['changed']} "
            f"| {counts['unchanged']} | {verdict} |"
        )
        sections += [f"### {stack}", ""]
        if policy and (failed or head is None):
            sections += ["```text", *policy, "```", ""]
        if lines:
            sections += [
                "<details><summary>resource diff</summary>",
                "",
                "```diff",
                *lines,
                "```",
                "</details>",
                "",
            ]
        else:
            sections += ["No change to the planned resources or outputs.", ""]
    return "\n".join([*out, "", *sections]), failed_any


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: plan_diff.py BASE_DIR HEAD_DIR", file=sys.stderr)
        return 2
    text, failed = render(Path(argv[0]), Path(argv[1]))
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
