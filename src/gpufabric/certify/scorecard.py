"""The scorecard: CTRF JSON (ctrf-io/ctrf schema: one test per stage and host, custom data under
`extra`), an HTML page led by the verdict, and the difference between two runs."""

from __future__ import annotations

import html
import json
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from gpufabric.errors import UserError
from gpufabric.inputs.models import validate

SPEC_VERSION = "0.0.0"  # the CTRF specification's own version (a working draft)
STATUSES = ("passed", "failed", "skipped", "pending", "other")


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def ctrf(report: dict[str, Any]) -> dict[str, Any]:
    meta = report["meta"]
    start, stop = _ms(meta["start"]), _ms(meta["stop"])
    tests = []
    for r in report["rows"]:
        test: dict[str, Any] = {
            "name": r["name"],
            "status": r["status"],
            "duration": 0,
            "suite": [f"stage {r['stage']} {r['stage_name']}"],
            "extra": {
                "host": r["host"],
                "measurement": r["measurement"],
                "todo": r["todo"],
                **{k: v for k, v in (r.get("extra") or {}).items() if v is not None},
            },
        }
        if r["reason"]:
            test["message"] = r["reason"]
        tests.append(test)
    counts = {s: sum(1 for t in tests if t["status"] == s) for s in STATUSES}
    return {
        "reportFormat": "CTRF",
        "specVersion": SPEC_VERSION,
        "reportId": str(uuid.uuid4()),
        "timestamp": datetime.fromtimestamp(meta["stop"], UTC).isoformat(),
        "generatedBy": "gpufabric certify",
        "results": {
            "tool": {"name": "gpufabric certify", "version": meta["versions"]["gpufabric"]},
            "summary": {"tests": len(tests), **counts, "start": start, "stop": stop},
            "tests": tests,
            "environment": {"reportName": "cluster certification", "healthy": not _failed(report)},
            "extra": {
                "verdict": report["verdict"],
                "hosts": report["hosts"],
                "headline": headline(report),
                "collectives": report["collectives"],
                "holds": report["holds"],
                "meta": meta,
                "criteria": report["criteria"],
            },
        },
    }


def _failed(report: dict[str, Any]) -> bool:
    return report["verdict"] != "certified"


def headline(report: dict[str, Any]) -> dict[str, Any]:
    """The lowest efficiency per collective over the groups measured (the cluster's worst)."""
    out: dict[str, Any] = {}
    worst: dict[str, float] = {}  # compared unrounded: two groups may round alike
    for c in report["collectives"]:
        eff = c.get("efficiency")
        if eff is None:
            continue
        key = c["collective"]
        if key not in worst or eff < worst[key]:
            worst[key] = eff
            out[key] = {
                "efficiency": round(eff, 3),
                "busbw_gbytes": c["peak_gbytes"],
                "algorithm": c["algorithm"],
                "bound_gbytes": c["bound_gbytes"],
                "group": c["name"],
                "transport": c["transport"],
            }
    return out


class _Read(BaseModel):
    """What `compare` reads of a scorecard, typed (other keys kept, unread)."""

    model_config = ConfigDict(extra="allow", strict=True)


class HostVerdict(_Read):
    status: str
    reason: str | None = None


class Headline(_Read):
    efficiency: float | None = None


class RunMeta(_Read):
    fabric: str | None = None
    instance_type: str | None = None


class ScorecardSummary(_Read):
    verdict: str
    hosts: dict[str, HostVerdict]
    headline: dict[str, Headline]
    meta: RunMeta


def from_ctrf(doc: Any, name: str) -> dict[str, Any]:
    """The certify data inside a scorecard written by this tool (for compare)."""
    try:
        extra = doc["results"]["extra"]
        out = {
            "verdict": extra["verdict"],
            "hosts": extra["hosts"],
            "headline": extra["headline"],
            "meta": extra["meta"],
        }
    except (KeyError, TypeError):
        raise UserError(
            f"{name}: not a gpufabric certify scorecard (results.extra missing)"
        ) from None
    validate(ScorecardSummary, out, where=f"{name}: results.extra")
    return out


def compare(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """One line per difference: verdict, headline efficiencies, hosts that changed."""
    lines = [f"verdict: {old['verdict']} -> {new['verdict']}"]
    for m in ("fabric", "instance_type"):
        a, b = old["meta"].get(m), new["meta"].get(m)
        lines.append(f"{m}: {a} -> {b}" if a != b else f"{m}: {a}")
    for coll in sorted(set(old["headline"]) | set(new["headline"])):
        a = old["headline"].get(coll, {}).get("efficiency")
        b = new["headline"].get(coll, {}).get("efficiency")
        delta = f" ({b - a:+.3f})" if a is not None and b is not None else ""
        lines.append(f"{coll} efficiency: {a} -> {b}{delta}")
    for h in sorted(set(old["hosts"]) | set(new["hosts"])):
        a = old["hosts"].get(h, {}).get("status", "absent")
        b = new["hosts"].get(h, {}).get("status", "absent")
        if a != b:
            why = new["hosts"].get(h, {}).get("reason") or ""
            lines.append(f"host {h}: {a} -> {b}" + (f" ({why})" if why else ""))
    return lines


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def render_html(report: dict[str, Any]) -> str:
    """One self-contained page (no scripts, every value escaped), verdict first."""
    meta = report["meta"]
    held = sorted(h for h, v in report["hosts"].items() if v["status"] != "certified")
    cls = "ok" if report["verdict"] == "certified" else "bad"
    out = [
        "<!doctype html><html><head><meta charset='utf-8'><title>certify</title>",
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:2px 6px}"
        "table{border-collapse:collapse}.bad,.failed{background:#fdd}.ok,.passed{background:#dfd}"
        ".skipped{background:#eee}</style></head><body>",
        f"<h1 class='{cls}'>{_e(report['verdict'].upper())}: {len(report['hosts']) - len(held)} of "
        f"{len(report['hosts'])} node(s) certified</h1>",
    ]
    head = headline(report)
    if head:
        out.append(
            "<h2>Efficiency (busbw / algorithm-aware bound, worst group)</h2><table>"
            "<tr><th>collective</th><th>efficiency</th><th>busbw GB/s</th><th>bound</th>"
            "<th>group</th><th>transport</th></tr>"
        )
        for coll, h in head.items():
            out.append(
                "<tr>"
                + "".join(
                    f"<td>{_e(x)}</td>"
                    for x in (
                        coll,
                        f"{h['efficiency']:.2f}",
                        f"{h['busbw_gbytes']:.1f}",
                        f"{h['algorithm']} {h['bound_gbytes']:.1f}",
                        h["group"],
                        h["transport"],
                    )
                )
                + "</tr>"
            )
        out.append("</table>")
    else:
        out.append("<p>No collective measured (see stage 5).</p>")
    out.append(
        "<h2>Nodes</h2><table><tr><th>node</th><th>status</th><th>stage</th>"
        "<th>reason</th><th>what to do</th></tr>"
    )
    for h, v in report["hosts"].items():
        c = "ok" if v["status"] == "certified" else "bad"
        out.append(
            f"<tr class='{c}'>"
            + "".join(
                f"<td>{_e(x or '')}</td>"
                for x in (h, v["status"], v["stage"], v["reason"], v["todo"])
            )
            + "</tr>"
        )
    out.append(
        "</table><h2>Stages</h2><table><tr><th>test</th><th>status</th>"
        "<th>measurement</th><th>reason</th></tr>"
    )
    for r in report["rows"]:
        out.append(
            f"<tr class='{_e(r['status'])}'>"
            + "".join(
                f"<td>{_e(x)}</td>" for x in (r["name"], r["status"], r["measurement"], r["reason"])
            )
            + "</tr>"
        )
    out.append(
        "</table><h2>ClusterMAX criteria</h2><table><tr><th>criterion</th>"
        "<th>stage</th><th>what</th><th>result</th></tr>"
    )
    for c in report["criteria"]:
        res = sorted({r["status"] for r in report["rows"] if r["stage"] == c["stage"]})
        out.append(
            "<tr>"
            + "".join(
                f"<td>{_e(x)}</td>" for x in (c["id"], c["stage"], c["what"], ", ".join(res) or "-")
            )
            + "</tr>"
        )
    out.append("</table><h2>Holds</h2><ul>")
    out += [f"<li>{_e(a['action'])} {_e(a['node'])} {_e(a['why'])}</li>" for a in report["holds"]]
    out.append("</ul><h2>Run</h2><table>")
    when = datetime.fromtimestamp(meta["start"], UTC).isoformat(timespec="seconds")
    for k, v in (
        ("command", meta["command"]),
        ("started", when),
        ("seconds", f"{meta['stop'] - meta['start']:.0f}"),
        ("fabric", meta["fabric"]),
        ("instance type", meta["instance_type"]),
        ("hold", meta["hold"]),
        ("versions", json.dumps(meta["versions"], sort_keys=True)),
    ):
        out.append(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>")
    out.append("</table></body></html>\n")
    return "\n".join(out)
