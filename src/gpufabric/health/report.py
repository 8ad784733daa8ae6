"""The run's verdicts: per host status and reasons, every check and round (JSON, text, HTML)."""

from __future__ import annotations

import html
from typing import Any

UNREACHABLE = "unreachable: no answer over ssh (host down, link down or ssh broken)"


def verdicts(
    hosts: list[str], step1: dict[str, dict[str, Any]], traffic: dict[str, Any] | None
) -> dict[str, dict[str, Any]]:
    """Host -> {"status": ok | bad, "reasons": [...], "warnings": [...]}."""
    bad_traffic: dict[str, str] = dict((traffic or {}).get("bad") or {})
    out: dict[str, dict[str, Any]] = {}
    for h in hosts:
        if h not in step1:
            out[h] = {"status": "bad", "reasons": [UNREACHABLE], "warnings": []}
            continue
        reasons = list(step1[h]["reasons"])
        if h in bad_traffic:
            reasons.append(bad_traffic[h])
        out[h] = {
            "status": "bad" if reasons else "ok",
            "reasons": reasons,
            "warnings": list(step1[h].get("warnings") or []),
        }
    return out


def build(
    hosts: list[str],
    step1: dict[str, dict[str, Any]],
    traffic: dict[str, Any] | None,
    actions: list[dict[str, Any]],
    meta: dict[str, Any],
) -> dict[str, Any]:
    v = verdicts(hosts, step1, traffic)
    rounds = list((traffic or {}).get("rounds") or [])
    return {
        "hosts": v,
        "rounds": len(rounds),
        "bad": sorted(h for h, x in v.items() if x["status"] == "bad"),
        "findings": list((traffic or {}).get("findings") or []),
        "checks": {h: step1[h]["checks"] for h in hosts if h in step1},
        "traffic": {"tested": list((traffic or {}).get("hosts") or []), "rounds": rounds},
        "actions": [{k: a[k] for k in ("node", "action", "why")} for a in actions],
        "meta": meta,
    }


def text(report: dict[str, Any]) -> str:
    """The human summary the CLI prints: one line per host, then rounds and findings."""
    lines = []
    for h, v in report["hosts"].items():
        lines.append(f"{h:<16} {v['status'].upper():<4} {'; '.join(v['reasons'])}".rstrip())
        lines += [f"{'':<16} warn {w}" for w in v.get("warnings", [])]
    lines.append(
        f"traffic: {report['rounds']} round(s) over {len(report['traffic']['tested'])} "
        f"host(s) ({report['meta'].get('traffic_tool', '?')})"
    )
    lines += [f"finding: {f}" for f in report["findings"]]
    lines += [
        f"{a['action']}: {a['node']} ({a['why']})"
        for a in report["actions"]
        if a["action"] != "keep"
    ]
    return "\n".join(lines) + "\n"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def render_html(report: dict[str, Any]) -> str:
    """A self-contained HTML page (no scripts, every value escaped)."""
    out = [
        "<!doctype html><html><head><meta charset='utf-8'><title>fabric health</title>",
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:2px 6px}"
        "table{border-collapse:collapse}.bad{background:#fdd}.ok{background:#dfd}</style>",
        "</head><body><h1>Fabric health</h1>",
        f"<p>{_e(len(report['bad']))} bad of {_e(len(report['hosts']))} host(s); "
        f"{_e(report['rounds'])} traffic round(s); "
        f"{_e(report['meta'].get('traffic_tool', ''))}</p>",
        "<h2>Hosts</h2><table><tr><th>host</th><th>status</th><th>reasons</th>"
        "<th>warnings</th></tr>",
    ]
    for h, v in report["hosts"].items():
        out.append(
            f"<tr class='{_e(v['status'])}'><td>{_e(h)}</td><td>{_e(v['status'])}</td>"
            f"<td>{'<br>'.join(_e(r) for r in v['reasons'])}</td>"
            f"<td>{'<br>'.join(_e(w) for w in v.get('warnings', []))}</td></tr>"
        )
    out.append(
        "</table><h2>Checks (no traffic)</h2><table><tr><th>host</th><th>check</th>"
        "<th>result</th></tr>"
    )
    for h, rows in report["checks"].items():
        for r in rows:
            cls = "ok" if r["ok"] else "bad"
            out.append(
                f"<tr class='{cls}'><td>{_e(h)}</td><td>{_e(r['check'])}</td>"
                f"<td>{_e(r['detail'])}</td></tr>"
            )
    out.append(
        "</table><h2>Traffic rounds</h2><table><tr><th>round</th><th>test</th>"
        "<th>hosts</th><th>fwd Gbit/s</th><th>rev Gbit/s</th><th>verdict</th></tr>"
    )
    for rnd in report["traffic"]["rounds"]:
        for t in rnd["tests"]:
            g = t.get("gbps") or {}
            cells = [
                rnd["round"],
                f"{t['id']} {t['kind']}",
                " ".join(t["hosts"]),
                _fmt(g.get("fwd")),
                _fmt(g.get("rev")),
                t["reason"] or "ok",
            ]
            cls = "ok" if t["ok"] else "bad"
            out.append(
                f"<tr class='{cls}'>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>"
            )
    out.append("</table>")
    if report["findings"]:
        out.append(
            "<h2>Findings</h2><ul>"
            + "".join(f"<li>{_e(f)}</li>" for f in report["findings"])
            + "</ul>"
        )
    if report["actions"]:
        out.append(
            "<h2>Actions</h2><ul>"
            + "".join(
                f"<li>{_e(a['action'])} {_e(a['node'])}: {_e(a['why'])}</li>"
                for a in report["actions"]
            )
            + "</ul>"
        )
    out.append("</body></html>\n")
    return "\n".join(out)


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3g}"
