"""What the report page and its plots say, read back from the page and the plots' axes.

Inputs are built here: gate reports with chosen verdicts and peaks, nccl-tests tables with
chosen rows, and the p5.48xlarge / a3-highgpu-8g catalog entries (p5: 3,200 Gbit/s per node,
8 GPUs, 900 GB/s NVLink per GPU; a3-highgpu-8g: the gate asks 0.45 of the ring line rate
across nodes and 0.80 within one node).
"""

from __future__ import annotations

import base64
import math
import os
import re
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from gpufabric.catalog import lookup
from gpufabric.nccl.gate.fabric import Verdict
from gpufabric.nccl.gate.verdict import GateReport
from gpufabric.nccl.model import (
    Capture,
    DebugInfo,
    Measurement,
    NetDevice,
    RankInfo,
    Row,
)
from gpufabric.nccl.model import TestsResult as NcclResult  # not a pytest test class
from gpufabric.nccl.report import html as page
from gpufabric.nccl.report import summary

P5 = lookup("p5.48xlarge")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _row(size: int, busbw: float | None, in_place: float | None = None) -> Row:
    def meas(bw: float | None) -> Measurement | None:
        return None if bw is None else Measurement(10.0, bw, bw, 0)

    return Row(size, size // 4, "float", "sum", -1, meas(busbw), meas(in_place))


def _result(collective: str | None, rows: tuple[Row, ...], **kw: Any) -> NcclResult:
    return NcclResult(collective=collective, rows=rows, **kw)


def _report(
    verdicts: tuple[Verdict, ...] = (),
    peaks: dict[str, float] | None = None,
    nodes: int | None = 2,
    strict: bool = False,
) -> GateReport:
    return GateReport(P5, nodes, "NET/IB", verdicts, strict, peaks if peaks is not None else {})


def _v(status: str, subject: str, message: str = "why") -> Verdict:
    return Verdict("bandwidth", status, subject, message)  # type: ignore[arg-type]


# ---------------------------------------------------------------- summary: banner and headline
def test_banner_counts_fails_and_warns_and_names_the_first_failure() -> None:
    report = _report(
        (_v("pass", "a"), _v("warn", "w1", "slow"), _v("fail", "f1", "low"), _v("fail", "f2")),
        {"all_reduce": 300.0},
    )
    banner = summary.verdict(report)
    assert banner == summary.Banner(False, 2, 1, "f1: low")


def test_banner_names_the_first_warning_when_nothing_failed() -> None:
    report = _report((_v("pass", "a"), _v("warn", "w1", "slow"), _v("warn", "w2")), {"x": 1.0})
    assert summary.verdict(report) == summary.Banner(True, 0, 2, "w1: slow")


def test_banner_passes_with_no_problem_line_when_all_passed_and_measured() -> None:
    assert summary.verdict(_report((_v("pass", "a"),), {"x": 1.0})) == summary.Banner(
        True, 0, 0, None
    )


def test_banner_never_passes_without_a_bandwidth_figure() -> None:
    no_peaks = summary.verdict(_report((_v("pass", "a"),), {}))
    assert no_peaks == summary.Banner(False, 0, 0, summary.NOT_MEASURED)
    no_nodes = summary.verdict(_report((_v("pass", "a"),), {"all_reduce": 1.0}, nodes=None))
    assert no_nodes == summary.Banner(False, 0, 0, summary.NOT_MEASURED)
    # a failed gate keeps its own first failure, not the "no figure" line
    failed = summary.verdict(_report((_v("fail", "f", "bad"),), {}))
    assert failed == summary.Banner(False, 1, 0, "f: bad")


def test_headline_prefers_all_reduce_then_all_gather_then_reduce_scatter_then_by_name() -> None:
    def chosen(*names: str) -> str:
        line = summary.headline(_report(peaks=dict.fromkeys(names, 100.0)))
        assert line is not None
        return line.collective

    assert chosen("zz", "reduce_scatter", "all_gather", "all_reduce") == "all_reduce"
    assert chosen("zz", "reduce_scatter", "all_gather") == "all_gather"
    assert chosen("zz", "reduce_scatter", "broadcast") == "reduce_scatter"
    assert chosen("zz", "broadcast", "alltoall") == "alltoall"


def test_headline_is_the_peak_against_the_ring_line_rate() -> None:
    line = summary.headline(_report(peaks={"all_gather": 300.0, "all_reduce": 360.0}))
    assert line is not None
    # 2 x p5: 3,200 Gbit/s per node = 400 GB/s ring line rate
    assert (line.collective, line.busbw, line.line_rate) == ("all_reduce", 360.0, 400.0)
    assert line.ratio == pytest.approx(0.9)
    assert line.text() == (
        "360.0 GB/s = 0.90 of line rate (all_reduce bus bandwidth, largest messages; line rate "
        "400.0 GB/s: 2 nodes x 3200 Gbps = 400 GB/s per node)"
    )
    one_node = summary.headline(_report(peaks={"all_reduce": 360.0}, nodes=1))
    assert one_node is not None and one_node.line_rate == 450.0  # 900 GB/s NVLink / 2


def test_headline_line_rate_follows_the_collective_measured() -> None:
    # 2 x p5, 16 GPUs, 400 GB/s per node: alltoall's share is 400 x 15 / (8 x 8) = 93.75 GB/s;
    # sendrecv's one GPU's share is 400 / min(8 GPUs, 32 NICs) = 50 GB/s (all_reduce's ring
    # would be the whole 400 GB/s)
    alltoall = summary.headline(_report(peaks={"alltoall": 80.0}))
    assert alltoall is not None
    assert alltoall.line_rate == pytest.approx(93.75)
    assert alltoall.basis.endswith(", alltoall share")
    sendrecv = summary.headline(_report(peaks={"sendrecv": 45.0}))
    assert sendrecv is not None
    assert sendrecv.line_rate == pytest.approx(50.0)
    assert sendrecv.basis.endswith(", one GPU's share 50 GB/s")


@pytest.fixture
def east_of_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The local time zone 5 h 30 min east of UTC: what is said in UTC must not follow it (a
    POSIX TZ string, so that no time zone database is needed)."""
    monkeypatch.setenv("TZ", "IST-5:30")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# ---------------------------------------------------------------- summary: sources, generated
def test_sources_name_file_hosts_and_commands(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("x")
    os.utime(path, (0, 86400 + 3600 + 60))  # 1970-01-02 01:01 UTC

    def rank(r: int, host: str) -> RankInfo:
        return RankInfo(r, 0, 1, host, r, "0x1", "H100")

    first = _result(
        "all_reduce",
        (),
        ranks=(rank(0, "h1"), rank(1, "h0"), rank(2, "h1")),
        params={"nThread": "1", "nGpus": "8"},
    )
    second = _result(None, (), ranks=(rank(0, "h2"), rank(1, "h0")))
    cap = Capture(str(path), (first, second), DebugInfo())
    stdin = Capture("-", (), DebugInfo())
    assert summary.sources([cap, stdin]) == [
        summary.Source(
            "run.txt",
            "1970-01-02 01:01 UTC",
            ("h1", "h0", "h2"),
            "all_reduce_perf (nThread 1 nGpus 8); nccl-tests",
        ),
        summary.Source("-", "-", (), "-"),
    ]


def test_sources_say_the_modified_time_in_utc_whatever_the_local_zone(
    tmp_path: Path, east_of_utc: None
) -> None:
    path = tmp_path / "run.txt"
    path.write_text("x")
    os.utime(path, (0, 86400 + 3600 + 60))  # 1970-01-02 01:01 UTC, 06:31 at UTC+5:30
    assert time.localtime(86400).tm_gmtoff == 19800  # the zone is in force
    (source,) = summary.sources([Capture(str(path), (), DebugInfo())])
    assert source.modified == "1970-01-02 01:01 UTC"


def test_generated_says_the_time_in_utc_whatever_the_local_zone(east_of_utc: None) -> None:
    before = datetime.now(UTC).replace(second=0, microsecond=0)
    stamp = summary.generated(["gpufabric"]).split(" UTC,")[0]
    after = datetime.now(UTC)
    said = datetime.strptime(stamp, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
    assert before <= said <= after


def test_generated_names_the_time_and_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    text = summary.generated(["gpufabric", "nccl", "report", "x.txt"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC, by `gpufabric nccl report x\.txt`", text)
    monkeypatch.setattr(sys, "argv", ["/usr/bin/gpufabric", "nccl", "report", "-n", "2"])
    assert summary.generated().endswith(" UTC, by `gpufabric nccl report -n 2`")


# ---------------------------------------------------------------- html helpers
def test_size_labels_at_each_unit_boundary() -> None:
    labels = [page.size_label(s) for s in (1, 1023, 1024, 1536, (1 << 20) - 512, 1 << 20)]
    assert labels == ["1 B", "1023 B", "1 KiB", "1.5 KiB", "1023.5 KiB", "1 MiB"]
    assert page.size_label((1 << 30) - (1 << 19)) == "1023.5 MiB"
    assert page.size_label(1 << 30) == "1 GiB"
    assert page.size_label(3 << 29) == "1.5 GiB"


def test_orders_of_magnitude_count_only_positive_values() -> None:
    assert page.spans_orders_of_magnitude([1.0, 100.0])  # exactly two orders
    assert not page.spans_orders_of_magnitude([1.0, 99.0])
    assert not page.spans_orders_of_magnitude([1.0, 100.0], orders=3)
    assert page.spans_orders_of_magnitude([1.0, 10.0], orders=1)
    assert not page.spans_orders_of_magnitude([0.0, -5.0, 50.0])  # zero / negative ignored
    assert not page.spans_orders_of_magnitude([])
    assert not page.spans_orders_of_magnitude([0.0])


def test_plot_data_uri_is_the_png_in_base64() -> None:
    plot = page.Plot("a.png", "A", b"\x89PNG-bytes")
    assert plot.data_uri == "data:image/png;base64," + base64.b64encode(b"\x89PNG-bytes").decode()


def _draw_into(seen: list[Axes], points: list[tuple[float, float]]) -> Any:
    def draw(ax: Axes) -> None:
        seen.append(ax)
        ax.plot([p[0] for p in points], [p[1] for p in points], label="data")

    return draw


def test_figure_axes_read_as_sizes_and_bandwidth() -> None:
    seen: list[Axes] = []
    png = page._figure_png(_draw_into(seen, [(1024, 10.0), (1 << 20, 200.0)]))
    assert png.startswith(PNG_MAGIC)
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (900, 600)
    ax = seen[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert ax.xaxis.get_major_formatter()(1 << 20, 0) == "1 MiB"
    assert ax.get_xlabel() == "message size (bytes; KiB/MiB/GiB = 2^10/2^20/2^30)"
    assert ax.get_ylabel() == "bus bandwidth (GB/s)"
    assert ax.xaxis.get_transform().base == 2  # pyright: ignore[reportAttributeAccessIssue]
    locator = ax.xaxis.get_major_locator()
    # nccl-tests' whole range, 8 B .. 8 GiB: a label every third power of two (8 B, 64 B,
    # 512 B, 4 KiB, ...), not every fourth (matplotlib's default density)
    ticks = locator.tick_values(8, 8 << 30)
    assert [int(math.log2(t)) for t in ticks] == list(range(0, 37, 3))
    # at most 14 labels over any range a run covers (1 KiB .. 16 GiB is the widest odd one)
    for low, high in [(8, 8 << 30), (8, 1 << 20), (1 << 10, 16 << 30), (8, 16 << 30)]:
        ticks = locator.tick_values(low, high)
        assert all(math.log2(t).is_integer() for t in ticks) and len(ticks) <= 14
    # matplotlib's autoscale gives 200 + 5% of 190 = 209.5; the page adds 5% headroom on top
    assert ax.get_ylim() == (0, pytest.approx(209.5 * 1.05))
    legend = ax.get_legend()
    assert legend is not None and [t.get_text() for t in legend.get_texts()] == ["data"]
    assert [t.get_fontsize() for t in legend.get_texts()] == [8]
    assert legend._loc == 9 and legend._ncols == 2  # pyright: ignore[reportAttributeAccessIssue]
    anchor = legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    assert (anchor.x0, anchor.y0) == (pytest.approx(0.5), pytest.approx(-0.14))  # below the axes
    grid = ax.xaxis.get_gridlines()[0]
    assert grid.get_visible() and grid.get_alpha() == 0.3
    assert ax.get_position().y0 > 0.15  # laid out tight: room for the legend below


def test_figure_goes_log_when_asked() -> None:
    seen: list[Axes] = []
    page._figure_png(_draw_into(seen, [(1024, 0.1), (1 << 20, 200.0)]), log_y=True)
    ax = seen[0]
    assert ax.get_yscale() == "log"
    assert ax.get_ylabel() == "bus bandwidth (GB/s, log scale)"
    assert ax.get_ylim()[0] > 0


def test_figure_is_a_png_whatever_format_the_users_matplotlibrc_saves() -> None:
    import matplotlib

    with matplotlib.rc_context({"savefig.format": "svg"}):
        png = page._figure_png(_draw_into([], [(1024, 10.0), (2048, 20.0)]))
    assert png.startswith(PNG_MAGIC)


@pytest.fixture
def axes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Axes, bool]]:
    """The plots' draw functions run on a real axes kept here (no PNG is made)."""
    seen: list[tuple[Axes, bool]] = []

    def fake_png(draw: Any, log_y: bool = False) -> bytes:
        ax = Figure().add_subplot()
        draw(ax)
        seen.append((ax, log_y))
        return b"png"

    monkeypatch.setattr(page, "_figure_png", fake_png)
    return seen


def _capture(name: str, *results: NcclResult) -> Capture:
    return Capture(f"/some/dir/{name}", results, DebugInfo())


def _lines(ax: Axes) -> dict[str, Any]:
    return {str(line.get_label()): line for line in ax.get_lines()}


def test_busbw_plot_draws_each_table_of_the_collective_and_the_bounds(
    axes: list[tuple[Axes, bool]],
) -> None:
    rows = (_row(0, 1.0), _row(1024, 5.0), _row(2048, None, 7.0), _row(4096, 9.0, 11.0))
    other = _result("all_gather", (_row(1024, 50.0),))
    caps = [_capture("a.txt", _result("all_reduce", rows), other), _capture("b.txt")]
    plot = page.busbw_plot("all_reduce", caps, P5, 2)
    assert (plot.name, plot.title, plot.png) == (
        "busbw_all_reduce.png",
        "all_reduce: bus bandwidth",
        b"png",
    )
    ax, log_y = axes[0]
    assert not log_y
    assert ax.get_title() == "all_reduce on p5.48xlarge x 2 nodes"
    lines = _lines(ax)
    data = lines["a.txt (out-of-place)"]
    # size 0 and rows without an out-of-place figure are left out; the other table too
    assert list(data.get_xdata()) == [1024, 4096] and list(data.get_ydata()) == [5.0, 9.0]
    assert data.get_marker() == "o" and data.get_markersize() == 3
    basis = "2 nodes x 3200 Gbps = 400 GB/s per node"
    ring = lines[f"ring line rate 400 GB/s ({basis})"]
    assert list(ring.get_ydata()) == [400.0, 400.0] and ring.get_color() == "black"
    assert ring.get_linewidth() == 1.5
    gate = lines["gate threshold 0.80 x line rate"]
    assert list(gate.get_ydata()) == [pytest.approx(320.0)] * 2
    assert gate.get_color() == "red" and gate.get_linestyle() == ":"
    tree = lines["tree / NVLS-tree bound 750 GB/s"]  # 400 x 2/(2-1) x 15/16
    assert list(tree.get_ydata()) == [750.0, 750.0]
    assert tree.get_color() == "gray" and tree.get_linestyle() == "--"
    assert len(lines) == 4


def test_busbw_plot_reads_tables_after_another_collectives_from_one_byte_up(
    axes: list[tuple[Axes, bool]],
) -> None:
    sendrecv = _result("sendrecv", (_row(1, 2.0), _row(8, 3.0)))
    caps = [_capture("a.txt", _result("all_gather", (_row(8, 50.0),)), sendrecv)]
    page.busbw_plot("sendrecv", caps, P5, 2)
    lines = _lines(axes[0][0])
    assert list(lines["a.txt (out-of-place)"].get_xdata()) == [1, 8]
    # sendrecv's line rate is one GPU's share: 400 GB/s / min(8 GPUs, 32 NICs)
    basis = "2 nodes x 3200 Gbps = 400 GB/s per node, one GPU's share 50 GB/s"
    assert f"ring line rate 50 GB/s ({basis})" in lines


def test_busbw_plot_threshold_is_the_instance_types_ring_or_intra_node_share(
    axes: list[tuple[Axes, bool]],
) -> None:
    a3 = lookup("a3-highgpu-8g")
    caps = [_capture("a.txt", _result("all_gather", (_row(1024, 5.0),)))]
    page.busbw_plot("all_gather", caps, a3, 2)
    page.busbw_plot("all_gather", caps, a3, 1)
    across, within = (_lines(ax) for ax, _ in axes)
    assert "gate threshold 0.45 x line rate" in across  # the instance's override
    assert "gate threshold 0.80 x line rate" in within  # one node: the intra-node share
    # no tree bound for all_gather
    assert not any(name.startswith("tree") for name in [*across, *within])


def test_busbw_plot_without_a_node_count_draws_no_bounds(axes: list[tuple[Axes, bool]]) -> None:
    caps = [_capture("a.txt", _result("all_reduce", (_row(1024, 5.0),)))]
    page.busbw_plot("all_reduce", caps, P5, None)
    ax, _ = axes[0]
    assert list(_lines(ax)) == ["a.txt (out-of-place)"]
    assert ax.get_title() == "all_reduce on p5.48xlarge x ? nodes"


def test_tuned_plot_draws_defaults_and_tuned_and_goes_log_over_wide_gains(
    axes: list[tuple[Axes, bool]],
) -> None:
    curves = {"default": [[1024.0, 0.1], [2048.0, 40.0]], "tuned": [[1024.0, 0.2]]}
    plot = page.tuned_plot("all_reduce", curves)
    assert (plot.name, plot.title) == ("tuned_all_reduce.png", "all_reduce: default vs tuned")
    ax, log_y = axes[0]
    assert log_y  # 0.1 .. 40: over two orders of magnitude
    assert ax.get_title() == "all_reduce: NCCL defaults vs tuned"
    lines = _lines(ax)
    assert list(lines["default"].get_xdata()) == [1024.0, 2048.0]
    assert list(lines["default"].get_ydata()) == [0.1, 40.0]
    assert lines["default"].get_marker() == "o" and lines["tuned"].get_marker() == "s"
    assert lines["default"].get_linestyle() == "-" and lines["default"].get_markersize() == 3
    assert list(lines["tuned"].get_ydata()) == [0.2]
    page.tuned_plot("all_gather", {"default": [[1.0, 30.0]], "tuned": [[1.0, 40.0]]})
    assert not axes[1][1]  # 30 .. 40: linear
    page.tuned_plot("x", {"tuned": [[1.0, 0.1], [2.0, 30.0]]})  # no default curve at all
    assert axes[2][1] and list(_lines(axes[2][0])["default"].get_xdata()) == []


# ---------------------------------------------------------------- the page
def _render(captures: list[Capture], report: GateReport, debug: DebugInfo, tune: Any = None) -> str:
    html, _plots = page.render_report(captures, report, debug, tune)
    return html


def test_page_banner_words_follow_the_counts(axes: list[tuple[Axes, bool]]) -> None:
    def banner(report: GateReport) -> str:
        html = _render([], report, DebugInfo())
        return html[html.index('id="verdict"') : html.index('id="headline"')]

    one = banner(_report((_v("fail", "f", "bad"), _v("warn", "w")), {"all_reduce": 1.0}))
    assert "1 check failed, 1 warning." in one and "First failure: f: bad" in one
    two = banner(_report((_v("fail", "f"), _v("fail", "g"), _v("warn", "w"), _v("warn", "x"))))
    assert "2 checks failed, 2 warnings." in two
    warned = banner(_report((_v("warn", "w", "slow"),), {"all_reduce": 1.0}))
    assert 'class="pass"' in warned and "<strong>PASS</strong>" in warned
    assert "every gate check passed, 1 warning." in warned and "First warning: w: slow" in warned
    clean = banner(_report((_v("pass", "p"),), {"all_reduce": 1.0}))
    assert "every gate check passed." in clean and "<small>" not in clean
    unjudged = banner(_report((_v("pass", "p"),), {}))
    assert "nothing to pass on." in unjudged and "Not judged: no bandwidth figure" in unjudged


def test_page_escapes_what_the_files_say(axes: list[tuple[Axes, bool]]) -> None:
    report = _report((_v("fail", "<b>x.txt</b>", "busbw < 0.8 x line rate"),))
    html = _render([], report, DebugInfo(tuner="<script>alert(1)</script>"))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "First failure: &lt;b&gt;x.txt&lt;/b&gt;: busbw &lt; 0.8 x line rate" in html


def test_page_results_table_and_transport_facts(axes: list[tuple[Axes, bool]]) -> None:
    res = _result(
        "all_reduce",
        (_row(1024, 5.0, 6.5), _row(1 << 30, 300.0)),
        avg_busbw=12.5,
        nccl_version="2.21.5",
    )
    bare = _result(None, ())
    caps = [_capture("a.txt", res, bare)]
    debug = DebugInfo(
        net_plugin="aws-ofi-nccl",
        ofi_provider="efa",
        net_devices_kind="IB",
        net_devices=(NetDevice(0, "rdmap0"), NetDevice(1, "rdmap1")),
        gdr=False,
        coll_channels=16,
        tuner="internal",
    )
    html = _render(caps, _report(peaks={"all_reduce": 300.0}), debug)
    results = html[html.index("<h2>Results</h2>") : html.index("<h2>Transport found</h2>")]
    cells = [
        r.split("</tr>")[0] for r in results.split("<tr><td>")[1:]
    ]  # one per table, header left out
    assert cells[0] == (
        'a.txt</td><td>all_reduce</td><td class="num">2</td><td class="num">1 GiB</td>'
        '<td class="num">300.00</td><td class="num">12.5</td>'
    )
    assert cells[1] == (
        'a.txt</td><td>?</td><td class="num">0</td><td class="num">0 B</td>'
        '<td class="num">0.00</td><td class="num">-</td>'
    )
    transport = html[html.index("<h2>Transport found</h2>") :]
    assert "<th>transport</th><td>NET/IB</td>" in transport
    assert "<th>NCCL version</th><td>2.21.5</td>" in transport  # from the nccl-tests header
    assert "<td>aws-ofi-nccl (provider efa)</td>" in transport
    assert "<th>network</th><td>IB</td>" in transport
    assert "<th>NICs</th><td>rdmap0, rdmap1</td>" in transport
    assert "<th>GPUDirect RDMA</th><td>no</td>" in transport
    assert "<th>channels</th><td>16</td>" in transport
    assert "<th>tuner</th><td>internal</td>" in transport
    assert "<title>NCCL fabric report: p5.48xlarge</title>" in html
    assert "<h1>NCCL fabric report: p5.48xlarge x 2 nodes</h1>" in html
    assert "Fabric from the catalog: efa, 32 x 100 Gbit/s\n= 3200 Gbit/s per node; 8 x H100" in html
    assert "<h2>Default vs tuned</h2>" not in html


def test_page_prefers_the_logs_nccl_version_and_used_nics(axes: list[tuple[Axes, bool]]) -> None:
    caps = [_capture("a.txt", _result("all_reduce", (), nccl_version="2.18.1"))]
    debug = DebugInfo(nccl_version="2.21.5", net_nics_used=("0", "1"), gdr=True)
    html = _render(caps, _report(), debug)
    assert "<th>NCCL version</th><td>2.21.5</td>" in html
    assert "<th>NICs</th><td>0, 1</td>" in html
    assert "<th>GPUDirect RDMA</th><td>yes</td>" in html
    empty = _render([], _report(nodes=None), DebugInfo())
    assert "<th>NCCL version</th><td>-</td>" in empty and "<td>not in the logs</td>" not in empty
    assert "<th>GPUDirect RDMA</th><td>-</td>" in empty and "x ? nodes</h1>" in empty


def test_page_embeds_each_collectives_plot_and_the_tuned_curves(
    axes: list[tuple[Axes, bool]],
) -> None:
    caps = [
        _capture("a.txt", _result("all_reduce", (_row(8, 1.0),)), _result(None, ())),
        _capture("b.txt", _result("all_gather", (_row(8, 1.0),)), _result("all_reduce", ())),
    ]
    tune = {
        "picks": [],
        "global_env": {},
        "curves": {"all_reduce": {"default": [[8, 1.0]], "tuned": [[8, 2.0]]}},
    }
    html, plots = page.render_report(caps, _report(), DebugInfo(), tune)
    assert [p.name for p in plots] == [
        "busbw_all_gather.png",
        "busbw_all_reduce.png",
        "tuned_all_reduce.png",
    ]
    assert html.count('src="data:image/png;base64,cG5n"') == 3  # b"png"
    # each collective's plot has the bounds of the report's node count
    for ax, _ in axes[:2]:
        assert any(name.startswith("ring line rate 400 GB/s") for name in _lines(ax))
    assert "Global settings kept: none" in html


def test_write_report_writes_the_page_and_each_plot(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "report"
    plots = [page.Plot("a.png", "A", b"aa"), page.Plot("b.png", "B", b"bb")]
    written = page.write_report(out, "<html>é</html>", plots)
    assert written == out / "report.html" and written.read_text() == "<html>é</html>"
    assert (out / "a.png").read_bytes() == b"aa" and (out / "b.png").read_bytes() == b"bb"
    page.write_report(out, "again", [])  # an existing folder is fine
    assert written.read_text() == "again"
