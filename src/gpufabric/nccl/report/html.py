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

from gpufabric.catalog import lookup
from gpufabric.nccl.gate.ceilings import ceiling
from gpufabric.nccl.gate.thresholds import thresholds
from gpufabric.nccl.gate.verdict import GateReport, human_bytes
from gpufabric.nccl.model import Capture


@dataclass(frozen=True)
class Plot:
    name: str  # file name of the PNG
    title: str
    png: bytes

    @property
    def data_uri(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


def _figure_png(draw: Any) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 6), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw(ax)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.grid(True, which="major", alpha=0.3)
    ax.set_ylim(bottom=0, top=ax.get_ylim()[1] * 1.05)
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=8
    )  # below: hides nothing
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def busbw_plot(
    collective: str, captures: list[Capture], instance_type: str, nodes: int | None
) -> Plot:
    """busbw vs size for every table of `collective`, with the ring line rate and threshold."""
    facts = lookup(instance_type, key="--instance-type")
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
            eff = limits.efficiency_for(instance_type)
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
        ax.set_title(f"{collective} on {instance_type} x {nodes or '?'} nodes")

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

    return Plot(f"tuned_{collective}.png", f"{collective}: default vs tuned", _figure_png(draw))


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>NCCL fabric report: {{ instance_type }}</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 1100px; }
table { border-collapse: collapse; margin: 1em 0; } td, th { border: 1px solid #ccc; padding: 4px 8px; }
.pass { background: #e6f4ea; } .warn { background: #fff4ce; } .fail { background: #fde0dc; }
code { background: #f4f4f4; padding: 1px 3px; }
</style></head><body>
<h1>NCCL fabric report: {{ instance_type }} x {{ nodes or "?" }} nodes</h1>
<p>Gate: <strong class="{{ 'pass' if passed else 'fail' }}">{{ "PASSED" if passed else "FAILED" }}</strong>.
Fabric from the catalog: {{ facts.fabric }}, {{ facts.fabric_nics }} x {{ facts.fabric_nic_gbps }} Gbps
= {{ facts.fabric_gbps }} Gbps per node; {{ facts.gpu.count }} x {{ facts.gpu.model }}.</p>
<h2>Transport found</h2>
<table>
<tr><th>transport</th><td>{{ transport or "not in the logs" }}</td></tr>
<tr><th>NCCL version</th><td>{{ debug.nccl_version or "-" }}</td></tr>
<tr><th>net plugin</th><td>{{ debug.net_plugin or "-" }}{% if debug.ofi_provider %} (provider {{ debug.ofi_provider }}){% endif %}</td></tr>
<tr><th>network</th><td>{{ debug.network or debug.net_devices_kind or "-" }}</td></tr>
<tr><th>NICs</th><td>{{ nics or "-" }}</td></tr>
<tr><th>GPUDirect RDMA</th><td>{{ {True: "yes", False: "no", None: "-"}[debug.gdr] }}</td></tr>
<tr><th>channels</th><td>{{ debug.channels or "-" }}</td></tr>
<tr><th>tuner</th><td>{{ debug.tuner or "-" }}</td></tr>
</table>
<h2>Gate verdicts</h2>
<table><tr><th>status</th><th>check</th><th>subject</th><th>cause</th></tr>
{% for v in verdicts %}<tr class="{{ v.status }}"><td>{{ v.status | upper }}</td><td>{{ v.check }}</td><td>{{ v.subject }}</td><td>{{ v.message }}</td></tr>
{% endfor %}</table>
<h2>Bus bandwidth vs message size</h2>
{% for p in plots %}<figure><img alt="{{ p.title }}" src="{{ p.data_uri }}"><figcaption>{{ p.title }}</figcaption></figure>
{% endfor %}
{% if tune %}<h2>Default vs tuned</h2>
<table><tr><th>collective</th><th>bucket</th><th>choice</th><th>gain vs NCCL default</th></tr>
{% for p in tune.picks %}<tr><td>{{ p.collective }}</td><td>{{ p.bucket }}</td><td>{{ p.choice.algorithm }}/{{ p.choice.protocol }}/{{ p.choice.channels }}ch</td><td>{{ "%+.1f%%" | format(100 * p.gain) }}</td></tr>
{% endfor %}</table>
<p>Global settings kept: {% for k, v in tune.global_env.items() %}<code>{{ k }}={{ v }}</code> {% else %}none{% endfor %}</p>
{% for p in tuned_plots %}<figure><img alt="{{ p.title }}" src="{{ p.data_uri }}"><figcaption>{{ p.title }}</figcaption></figure>
{% endfor %}{% endif %}
<h2>Results</h2>
<table><tr><th>file</th><th>collective</th><th>sizes</th><th>largest</th><th>peak busbw</th><th>avg busbw (footer)</th></tr>
{% for r in results %}<tr><td>{{ r.file }}</td><td>{{ r.collective }}</td><td>{{ r.sizes }}</td><td>{{ r.largest }}</td><td>{{ r.peak }}</td><td>{{ r.avg }}</td></tr>
{% endfor %}</table>
<p><small>Ceilings: performance-anchors.md 1.2 (ring = node line rate; tree/NVLS-tree all_reduce =
B x k/(k-1) x (n-1)/n). Thresholds: src/gpufabric/nccl/gate/thresholds.yaml.</small></p>
</body></html>
"""


def render_report(
    captures: list[Capture], gate_report: GateReport, debug: Any, tune: dict[str, Any] | None = None
) -> tuple[str, list[Plot]]:
    """The HTML page and the plots it embeds."""
    facts = lookup(gate_report.instance_type, key="--instance-type")
    collectives = sorted({r.collective for c in captures for r in c.results if r.collective})
    plots = [
        busbw_plot(c, captures, gate_report.instance_type, gate_report.nodes) for c in collectives
    ]
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
        instance_type=gate_report.instance_type,
        nodes=gate_report.nodes,
        passed=gate_report.passed,
        facts=facts,
        transport=gate_report.transport,
        debug=debug,
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
