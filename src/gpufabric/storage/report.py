"""The storage benchmark report: report.md (for people) and report.json (for tools)."""

from __future__ import annotations

import json
from pathlib import Path

from gpufabric.errors import UserError
from gpufabric.storage.gate import StorageGate
from gpufabric.storage.results import BYTE_PHASES, Results
from gpufabric.storage.sizing import Goal


def render_markdown(
    results: Results, result: StorageGate, goal: Goal | None, rated: float | None
) -> str:
    lines = [
        "# Storage benchmark",
        "",
        f"Results: `{results.directory}`; {len(results.hosts)} nodes: {', '.join(results.hosts)}",
        f"Goal: {goal.text() + f' = {goal.needed_gbps:.3f} GB/s' if goal else 'none given'}; "
        f"rated throughput: {f'{rated:.3f} GB/s' if rated else 'not given'}",
        "",
        f"Gate: **{'PASSED' if result.passed else 'FAILED'}**",
        "",
        "```",
        *(v.line() for v in result.verdicts),
        "```",
        "",
        "## Per phase, all nodes at once",
        "",
        "| phase | nodes | moved | window (s) | aggregate | sum of nodes | slowest node |",
        "|---|---|---|---|---|---|---|",
    ]
    for phase in results.phases.values():
        if phase.phase in BYTE_PHASES:
            moved = f"{phase.amount / 2**30:.2f} GiB"
            agg, total = f"{phase.aggregate / 1e9:.3f} GB/s", f"{phase.sum_of_nodes / 1e9:.3f} GB/s"
            slow = f"{phase.slowest.host} {phase.slowest.rate / 1e9:.3f} GB/s"
        else:
            moved = f"{phase.amount:,} files"
            agg, total = f"{phase.aggregate:,.0f}/s", f"{phase.sum_of_nodes:,.0f}/s"
            slow = f"{phase.slowest.host} {phase.slowest.rate:,.0f}/s"
        lines.append(
            f"| {phase.phase} | {len(phase.nodes)} | {moved} | {phase.window_s:.2f} | {agg} | {total} | {slow} |"
        )
    lines += [
        "",
        "## Per node",
        "",
        "| node | phase | moved | runtime (s) | rate |",
        "|---|---|---|---|---|",
    ]
    for phase in results.phases.values():
        for node in phase.nodes:
            if phase.phase in BYTE_PHASES:
                moved, rate = f"{node.amount / 2**20:.0f} MiB", f"{node.rate / 1e9:.3f} GB/s"
            else:
                moved, rate = f"{node.amount:,} files", f"{node.rate:,.0f}/s"
            lines.append(
                f"| {node.host} | {phase.phase} | {moved} | {node.runtime_s:.3f} | {rate} |"
            )
    return "\n".join(lines) + "\n"


def write_report(
    out: Path, results: Results, result: StorageGate, goal: Goal | None, rated: float | None
) -> Path:
    if out.exists() and not out.is_dir():
        raise UserError(f"{out}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    page = out / "report.md"
    page.write_text(render_markdown(results, result, goal, rated))
    data = {
        "passed": result.passed,
        "hosts": list(results.hosts),
        "goal": None
        if goal is None
        else {
            "sizeGiB": goal.size_gib,
            "writeSeconds": goal.write_seconds,
            "readGBps": goal.read_gbps,
        },
        "ratedGBps": rated,
        "figures": result.figures,
        "verdicts": [v.__dict__ for v in result.verdicts],
    }
    page.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n")
    return page
