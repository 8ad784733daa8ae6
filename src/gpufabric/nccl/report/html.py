"""`gpufabric nccl report`: one self-contained HTML page (plots inlined as base64 PNG) + the PNGs.

Plots use matplotlib's object API with the Agg canvas (no pyplot, no global backend switch).
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment

from gpufabric.catalog import InstanceType
from gpufabric.nccl.gate.ceilings import ceiling
from gpufabric.nccl.gate.thresholds import thresholds
from gpufabric.nccl.gate.verdict import GateReport
from gpufabric.nccl.model import Capture
from gpufabric.nccl.report import summary
from gpufabric.nccl.units import human_bytes


@dataclass(frozen=True)
class Plot:
    name: str  # file name of the PNG
    title: str
    png: bytes

    @property
    def data_uri(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


def size_label(size: float) -> str:
    """A power-of-two message size as nccl-tests users say it: 8 B, 64 KiB, 1 MiB, 8 GiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size:g} B"


def spans_orders_of_magnitude(values: list[float], orders: int = 2) -> bool:
    positive = [v for v in values if v > 0]
    return bool(positive) and max(positive) / min(positive) >= 10**orders


def _figure_png(draw: Any, log_y: bool = False) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator

    fig = Figure(figsize=(9, 6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw(ax)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(LogLocator(base=2, numticks=12))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: size_label(x)))
    ax.set_xlabel("message size (bytes; KiB/MiB/GiB = 2^10/2^20/2^30)")
    ax.grid(True, which="major", alpha=0.3)
    if log_y:  # gains over several orders of magnitude: a linear axis hides the small sizes
        ax.set_yscale("log")
        ax.set_ylabel("bus bandwidth (GB/s, log scale)")
    else:
        ax.set_ylabel("bus bandwidth (GB/s)")
        ax.set_ylim(bottom=0, top=ax.get_ylim()[1] * 1.05)
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8
    )  # below: hides nothing
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def busbw_plot(
    collective: str, captures: list[Capture], facts: InstanceType, nodes: int | None
) -> Plot:
    """busbw vs size for every table of `collective`, with the ring line rate and threshold."""
    limits = thresholds()

    def draw(ax: Any) -> None:
        for cap in captures:
            for res in cap.results:
                if res.collective != collective:
                    continue
                rows = [r for r in res.rows if r.size > 0 and r.out_of_place is not None]
                label = Path(cap.path).name
                ax.plot(
                    [r.size for r in rows],
                    [r.out_of_place.busbw for r in rows if r.out_of_place is not None],
                    marker="o",
                    markersize=3,
                    label=f"{label} (out-of-place)",
                )
        if nodes:
            cap_ = ceiling(
                collective,
                nodes,
                facts.gpu.count,
                facts.fabric_gbps,
                facts.fabric_nics,
                facts.nvlink_gbytes_per_gpu,
            )
            eff = limits.efficiency_for(facts.name)
            need = eff.intra_node if nodes == 1 else eff.ring
            ax.axhline(
                cap_.ring,
                color="black",
                linewidth=1.5,
                label=f"ring line rate {cap_.ring:.0f} GB/s ({cap_.basis})",
            )
            ax.axhline(
                cap_.ring * need,
                color="red",
                linestyle=":",
                label=f"gate threshold {need:.2f} x line rate",
            )
            if cap_.hierarchical:
                ax.axhline(
                    cap_.hierarchical,
                    color="gray",
                    linestyle="--",
                    label=f"tree / NVLS-tree bound {cap_.hierarchical:.0f} GB/s",
                )
        ax.set_title(f"{collective} on {facts.name} x {nodes or '?'} nodes")

    return Plot(f"busbw_{collective}.png", f"{collective}: bus bandwidth", _figure_png(draw))


def tuned_plot(collective: str, curves: dict[str, list[list[float]]]) -> Plot:
    """NCCL defaults vs the tuned per-bucket choices."""

    def draw(ax: Any) -> None:
        for key, style in (("default", "o-"), ("tuned", "s-")):
            points = curves.get(key) or []
            ax.plot(
                [p[0] for p in points], [p[1] for p in points], style, markersize=3, label=f"{key}"
            )
        ax.set_title(f"{collective}: NCCL defaults vs tuned")

    values = [p[1] for key in ("default", "tuned") for p in curves.get(key) or []]
    png = _figure_png(draw, log_y=spans_orders_of_magnitude(values))
    return Plot(f"tuned_{collective}.png", f"{collective}: default vs tuned", png)


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>NCCL fabric report: {{ instance_type }}</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 1100px; }
table { border-collapse: collapse; margin: 1em 0; } td, th { border: 1px solid #ccc; padding: 4px 8px; }
th { text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { background: #e6f4ea; } .warn { background: #fff4ce; } .fail { background: #fde0dc; }
#verdict { padding: 0.8em 1.2em; border-radius: 6px; font-size: 1.3em; margin: 1em 0 0.4em; }
#verdict.pass { border: 2px solid #1e8e3e; } #verdict.fail { border: 2px solid #d93025; }
#headline { font-size: 1.6em; margin: 0.3em 0 1em; } #headline small { font-size: 0.55em; color: #444; }
code { background: #f4f4f4; padding: 1px 3px; }
</style></head><body>
<h1>NCCL fabric report: {{ instance_type }} x {{ nodes or "?" }} nodes</h1>
<div id="verdict" class="{{ 'pass' if verdict.passed else 'fail' }}"><strong>{{ "PASS" if verdict.passed else "FAIL" }}</strong>:
{% if verdict.passed %}every gate check passed{% elif verdict.fails %}{{ verdict.fails }} check{{ "s" if verdict.fails != 1 }} failed{% else %}nothing to pass on{% endif %}{% if verdict.warns %}, {{ verdict.warns }} warning{{ "s" if verdict.warns != 1 }}{% endif %}.
{% if verdict.first_problem %}<br><small>{{ "First failure" if verdict.fails else "First warning" if verdict.passed else "Not judged" }}: {{ verdict.first_problem }}</small>{% endif %}</div>
<p id="headline">{% if headline %}<strong>{{ "%.1f" | format(headline.busbw) }} GB/s = {{ "%.2f" | format(headline.ratio) }} of line rate</strong><br>
<small>{{ headline.collective }} bus bandwidth at the largest messages, against the {{ "%.1f" | format(headline.line_rate) }} GB/s ring line rate of these nodes ({{ headline.basis }}); the gate asks for the fraction in the verdicts below.</small>
{% else %}<strong>no bandwidth figure</strong><br><small>no large-message table with a known node count (pass --nodes, run up to 1 GiB or more)</small>{% endif %}</p>
<h2>What was measured</h2>
<table><tr><th>file</th><th>modified</th><th>hosts</th><th>command (from the nccl-tests header)</th></tr>
{% for s in sources %}<tr><td>{{ s.file }}</td><td>{{ s.modified }}</td><td>{{ s.hosts | join(", ") or "not in the output" }}</td><td><code>{{ s.command }}</code></td></tr>
{% endfor %}</table>
<p>Fabric from the catalog: {{ facts.fabric }}, {{ facts.fabric_nics }} x {{ facts.fabric_nic_gbps }} Gbit/s
= {{ facts.fabric_gbps }} Gbit/s per node; {{ facts.gpu.count }} x {{ facts.gpu.model }}. Report written {{ generated }}.</p>
<h2>Gate verdicts</h2>
<table><tr><th>status</th><th>check</th><th>subject</th><th>cause</th></tr>
{% for v in verdicts %}<tr class="{{ v.status }}"><td>{{ v.status | upper }}</td><td>{{ v.check }}</td><td>{{ v.subject }}</td><td>{{ v.message }}</td></tr>
{% endfor %}</table>
<h2>Bus bandwidth vs message size</h2>
{% for p in plots %}<figure><img alt="{{ p.title }}" src="{{ p.data_uri }}"><figcaption>{{ p.title }}</figcaption></figure>
{% endfor %}
<h2>Results</h2>
<table><tr><th>file</th><th>collective</th><th>sizes (count)</th><th>largest size</th><th>peak busbw (GB/s)</th><th>avg busbw, footer (GB/s)</th></tr>
{% for r in results %}<tr><td>{{ r.file }}</td><td>{{ r.collective }}</td><td class="num">{{ r.sizes }}</td><td class="num">{{ r.largest }}</td><td class="num">{{ r.peak }}</td><td class="num">{{ r.avg }}</td></tr>
{% endfor %}</table>
{% if tune %}<h2>Default vs tuned</h2>
<table><tr><th>collective</th><th>message sizes</th><th>choice (algorithm / protocol / channels)</th><th>gain vs NCCL default (%)</th></tr>
{% for p in tune.picks %}<tr><td>{{ p.collective }}</td><td>{{ p.bucket }}</td><td>{{ p.choice.algorithm }}/{{ p.choice.protocol }}/{{ p.choice.channels }}ch</td><td class="num">{{ "%+.1f%%" | format(100 * p.gain) }}</td></tr>
{% endfor %}</table>
<p>Global settings kept: {% for k, v in tune.global_env.items() %}<code>{{ k }}={{ v }}</code> {% else %}none{% endfor %}</p>
{% for p in tuned_plots %}<figure><img alt="{{ p.title }}" src="{{ p.data_uri }}"><figcaption>{{ p.title }}</figcaption></figure>
{% endfor %}{% endif %}
<h2>Transport found</h2>
<table>
<tr><th>transport</th><td>{{ transport or "not in the logs" }}</td></tr>
<tr><th>NCCL version</th><td>{{ nccl_version or "-" }}</td></tr>
<tr><th>net plugin</th><td>{{ debug.net_plugin or "-" }}{% if debug.ofi_provider %} (provider {{ debug.ofi_provider }}){% endif %}</td></tr>
<tr><th>network</th><td>{{ debug.network or debug.net_devices_kind or "-" }}</td></tr>
<tr><th>NICs</th><td>{{ nics or "-" }}</td></tr>
<tr><th>GPUDirect RDMA</th><td>{{ {True: "yes", False: "no", None: "-"}[debug.gdr] }}</td></tr>
<tr><th>channels</th><td>{{ debug.channels or "-" }}</td></tr>
<tr><th>tuner</th><td>{{ debug.tuner or "-" }}</td></tr>
</table>
<p><small>Bus bandwidth as nccl-tests defines it (NVIDIA/nccl-tests, doc/PERFORMANCE.md).
Ceilings: ring = the node's line rate; tree/NVLS-tree all_reduce = B x k/(k-1) x (n-1)/n
(src/gpufabric/nccl/gate/ceilings.py). Thresholds: src/gpufabric/nccl/gate/thresholds.yaml.</small></p>
</body></html>
"""


def render_report(
    captures: list[Capture], gate_report: GateReport, debug: Any, tune: dict[str, Any] | None = None
) -> tuple[str, list[Plot]]:
    """The HTML page and the plots it embeds."""
    facts = gate_report.instance
    collectives = sorted({r.collective for c in captures for r in c.results if r.collective})
    plots = [busbw_plot(c, captures, facts, gate_report.nodes) for c in collectives]
    tuned_plots = [tuned_plot(c, curves) for c, curves in (tune or {}).get("curves", {}).items()]
    results = []
    for cap in captures:
        for res in cap.results:
            peak = max((r.best_busbw() for r in res.rows), default=0.0)
            results.append(
                {
                    "file": Path(cap.path).name,
                    "collective": res.collective or "?",
                    "sizes": len(res.rows),
                    "largest": human_bytes(res.max_size or 0),
                    "peak": f"{peak:.2f}",
                    "avg": res.avg_busbw if res.avg_busbw is not None else "-",
                }
            )
    nics = ", ".join(d.name for d in debug.net_devices) or ", ".join(debug.net_nics_used)
    env = Environment(autoescape=True)
    html = env.from_string(_PAGE).render(
        verdict=summary.verdict(gate_report),
        headline=summary.headline(gate_report),
        sources=summary.sources(captures),
        generated=summary.generated(),
        instance_type=gate_report.instance_type,
        nodes=gate_report.nodes,
        facts=facts,
        transport=gate_report.transport,
        debug=debug,
        # NCCL_DEBUG's "NCCL version" line, else the nccl-tests header's nccl-library=
        nccl_version=debug.nccl_version
        or next((r.nccl_version for c in captures for r in c.results if r.nccl_version), None),
        nics=nics,
        verdicts=gate_report.verdicts,
        plots=plots,
        tune=tune,
        tuned_plots=tuned_plots,
        results=results,
    )
    return html, plots + tuned_plots


def write_report(out: Path, html: str, plots: list[Plot]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    for plot in plots:
        (out / plot.name).write_bytes(plot.png)
    page = out / "report.html"
    page.write_text(html)
    return page
