"""certify's scorecard from a report built here (every field chosen): the CTRF document's
summary, timestamps and per-test data, the headline (each collective's worst group), `compare`
line by line, reading a scorecard back, and the HTML page with every value escaped."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from gpufabric.certify.scorecard import compare, ctrf, from_ctrf, headline, render_html
from gpufabric.errors import UserError

START, STOP = 1764892800.0, 1764892925.4996  # 2025-12-05T00:00:00Z, 125.4996 s later


def coll(name: str, collective: str, eff: float | None, **over: Any) -> dict[str, Any]:
    return {
        "name": name,
        "collective": collective,
        "efficiency": eff,
        "peak_gbytes": 300.0,
        "algorithm": "ring",
        "bound_gbytes": 400.0,
        "transport": "ib",
        **over,
    }


def report(**over: Any) -> dict[str, Any]:
    rows = [
        {
            "stage": 1,
            "stage_name": "sanity",
            "name": "1 sanity: h1",
            "host": "h1",
            "status": "passed",
            "measurement": "8 GPU(s)",
            "reason": "",
            "todo": "",
            "extra": {},
        },
        {
            "stage": 4,
            "stage_name": "fabric",
            "name": "4 fabric: h2",
            "host": "h2",
            "status": "failed",
            "measurement": "checks",
            "reason": "mtu: <eth0> & co",
            "todo": "set the MTU",
            "extra": {"warnings": ["w"], "gone": None},
        },
        {
            "stage": 6,
            "stage_name": "storage",
            "name": "6 storage: 2 host(s)",
            "host": "",
            "status": "skipped",
            "measurement": "no goal",
            "reason": "",
            "todo": "",
            "extra": {},
        },
    ]
    doc = {
        "verdict": "not certified",
        "hosts": {
            "h1": {"status": "certified", "stage": None, "reason": "", "todo": ""},
            "h2": {
                "status": "held",
                "stage": "4 fabric",
                "reason": "mtu: <eth0> & co",
                "todo": "set the MTU",
            },
        },
        "rows": rows,
        "collectives": [],
        "holds": [{"node": "h2", "action": "drain", "why": "gpufabric-certify: <x>"}],
        "meta": {
            "command": "gpufabric certify -i inv",
            "start": START,
            "stop": STOP,
            "fabric": "infiniband",
            "cloud": "",
            "instance_type": "p4de.24xlarge",
            "hold": "slurm",
            "versions": {"gpufabric": "9.9.9", "python": "3.11"},
            "argv": ["gpufabric"],
        },
        "criteria": [
            {"id": "fabric-class", "stage": 4, "what": "every NIC"},
            {"id": "dcgm-healthchecks", "stage": 3, "what": "dcgmi"},
        ],
    }
    doc.update(over)
    return doc


def test_ctrf_summary_times_and_tests() -> None:
    doc = ctrf(report())
    res = doc["results"]
    assert (doc["reportFormat"], doc["specVersion"], doc["generatedBy"]) == (
        "CTRF",
        "0.0.0",
        "gpufabric certify",
    )
    assert doc["timestamp"] == "2025-12-05T00:02:05.499600+00:00"
    assert res["tool"] == {"name": "gpufabric certify", "version": "9.9.9"}
    assert res["summary"] == {
        "tests": 3,
        "passed": 1,
        "failed": 1,
        "skipped": 1,
        "pending": 0,
        "other": 0,
        "start": 1764892800000,
        "stop": 1764892925500,
    }
    assert res["environment"] == {"reportName": "cluster certification", "healthy": False}
    first, second, third = res["tests"]
    assert first == {
        "name": "1 sanity: h1",
        "status": "passed",
        "duration": 0,
        "suite": ["stage 1 sanity"],
        "extra": {"host": "h1", "measurement": "8 GPU(s)", "todo": ""},
    }
    assert second["message"] == "mtu: <eth0> & co"
    assert second["extra"] == {
        "host": "h2",
        "measurement": "checks",
        "todo": "set the MTU",
        "warnings": ["w"],
    }
    assert "message" not in third and third["extra"]["host"] == ""
    extra = res["extra"]
    assert extra["verdict"] == "not certified" and extra["hosts"]["h2"]["stage"] == "4 fabric"
    assert extra["holds"] == report()["holds"] and extra["meta"]["fabric"] == "infiniband"
    assert extra["criteria"][0]["id"] == "fabric-class" and extra["collectives"] == []
    healthy = ctrf(report(verdict="certified"))["results"]["environment"]["healthy"]
    assert healthy is True
    assert ctrf(report())["reportId"] != doc["reportId"]


def test_the_headline_is_each_collectives_worst_measured_group() -> None:
    colls = [
        coll("all_reduce leaf1", "all_reduce", 0.91),
        coll("all_reduce leaf2", "all_reduce", 0.8123456, peak_gbytes=320.5, transport="efa"),
        coll("all_reduce cluster", "all_reduce", 0.85),
        coll("all_reduce leaf3", "all_reduce", 0.8123456, peak_gbytes=1.0),  # a tie: the first
        coll("all_gather leaf1", "all_gather", None),
        coll("all_gather cluster", "all_gather", 0.95, algorithm="tree", bound_gbytes=750.0),
    ]
    assert headline(report(collectives=colls)) == {
        "all_reduce": {
            "efficiency": 0.812,
            "busbw_gbytes": 320.5,
            "algorithm": "ring",
            "bound_gbytes": 400.0,
            "group": "all_reduce leaf2",
            "transport": "efa",
        },
        "all_gather": {
            "efficiency": 0.95,
            "busbw_gbytes": 300.0,
            "algorithm": "tree",
            "bound_gbytes": 750.0,
            "group": "all_gather cluster",
            "transport": "ib",
        },
    }
    assert headline(report(collectives=[coll("x", "all_reduce", None)])) == {}


def test_the_worst_group_is_found_before_rounding() -> None:
    """Two groups that round alike: the lower one is named, wherever it comes."""
    for order in (1, -1):
        colls = [
            coll("all_reduce leaf1", "all_reduce", 0.8124, peak_gbytes=320.0),
            coll("all_reduce leaf2", "all_reduce", 0.8122, peak_gbytes=310.0),
        ][::order]
        worst = headline(report(collectives=colls))["all_reduce"]
        assert (worst["group"], worst["busbw_gbytes"], worst["efficiency"]) == (
            "all_reduce leaf2",
            310.0,
            0.812,
        )


def test_a_scorecard_is_read_back_or_refused_in_one_line() -> None:
    doc = ctrf(report(collectives=[coll("all_reduce leaf1", "all_reduce", 0.9)]))
    back = from_ctrf(doc, "old.json")
    assert back == {
        "verdict": "not certified",
        "hosts": report()["hosts"],
        "headline": headline(report(collectives=[coll("all_reduce leaf1", "all_reduce", 0.9)])),
        "meta": report()["meta"],
    }
    for bad in ({}, {"results": {}}, {"results": {"extra": {"verdict": "x"}}}, [], "text", None):
        with pytest.raises(UserError) as err:
            from_ctrf(bad, "new.json")
        assert (
            str(err.value) == "new.json: not a gpufabric certify scorecard (results.extra missing)"
        )


def test_a_scorecard_whose_fields_compare_cannot_read_is_refused_naming_the_field() -> None:
    """A scorecard edited by hand or written by something else: each field compare reads is
    typed, and a wrong one is one line naming the file and the field (never a traceback)."""
    good = ctrf(report(collectives=[coll("all_reduce leaf1", "all_reduce", 0.9)]))
    extra = good["results"]["extra"]
    for field, value, want in (
        ("verdict", None, "verdict: Input should be a valid string (got None)"),
        ("hosts", [], "hosts: Input should be a valid dictionary"),
        ("hosts", {"h1": {"reason": ""}}, "hosts.h1.status: Field required"),
        ("hosts", {"h1": {"status": 1}}, "hosts.h1.status: Input should be a valid string (got 1)"),
        ("hosts", {"h1": {"status": "held", "reason": 5}}, "hosts.h1.reason: Input should be"),
        ("headline", {"all_reduce": 0.9}, "headline.all_reduce: Input should be"),
        (
            "headline",
            {"all_reduce": {"efficiency": "0.9"}},
            "headline.all_reduce.efficiency: Input should be a valid number (got '0.9')",
        ),
        ("headline", {"all_reduce": {"efficiency": True}}, "headline.all_reduce.efficiency:"),
        ("meta", [], "meta: Input should be"),
        ("meta", {"fabric": 3}, "meta.fabric: Input should be a valid string (got 3)"),
        ("meta", {"instance_type": ["p5"]}, "meta.instance_type: Input should be"),
    ):
        doc = {**good, "results": {**good["results"], "extra": {**extra, field: value}}}
        with pytest.raises(UserError) as err:
            from_ctrf(doc, "new.json")
        assert str(err.value).startswith(f"new.json: results.extra: {want}"), str(err.value)
        assert "\n" not in str(err.value)
    # what compare reads may be absent where it reads it with a default; other keys are kept
    lean = {"verdict": "certified", "hosts": {"a": {"status": "certified", "x": 1}}}
    back = from_ctrf({"results": {"extra": {**lean, "headline": {"g": {}}, "meta": {}}}}, "a")
    assert back["hosts"] == {"a": {"status": "certified", "x": 1}}
    assert compare(back, back)[1:] == [
        "fabric: None",
        "instance_type: None",
        "g efficiency: None -> None",
    ]


def summary(**over: Any) -> dict[str, Any]:
    base = {
        "verdict": "certified",
        "hosts": {
            "a": {"status": "certified", "reason": ""},
            "b": {"status": "certified", "reason": ""},
        },
        "headline": {"all_reduce": {"efficiency": 0.9}},
        "meta": {"fabric": "efa", "instance_type": "p5.48xlarge"},
    }
    base.update(over)
    return base


def test_compare_says_each_difference_on_its_own_line() -> None:
    old = summary()
    new = summary(
        verdict="not certified",
        hosts={
            "a": {"status": "certified", "reason": ""},
            "b": {"status": "held", "reason": "mtu: x"},
            "c": {"status": "held", "reason": ""},
        },
        headline={"all_reduce": {"efficiency": 0.85}, "all_gather": {"efficiency": 0.93}},
        meta={"fabric": "tcpxo", "instance_type": "p5.48xlarge"},
    )
    assert compare(old, new) == [
        "verdict: certified -> not certified",
        "fabric: efa -> tcpxo",
        "instance_type: p5.48xlarge",
        "all_gather efficiency: None -> 0.93",
        "all_reduce efficiency: 0.9 -> 0.85 (-0.050)",
        "host b: certified -> held (mtu: x)",
        "host c: absent -> held",
    ]
    assert compare(new, old)[-2:] == ["host b: held -> certified", "host c: held -> absent"]
    assert compare(old, old) == [
        "verdict: certified -> certified",
        "fabric: efa",
        "instance_type: p5.48xlarge",
        "all_reduce efficiency: 0.9 -> 0.9 (+0.000)",
    ]


def test_the_page_leads_with_the_verdict_and_escapes_every_value() -> None:
    colls = [
        coll("all_reduce <leaf1>", "all_reduce", 0.8123, peak_gbytes=320.56, bound_gbytes=400.04)
    ]
    page = render_html(report(collectives=colls))
    assert page.startswith("<!doctype html>") and page.endswith("</html>\n")
    assert "<h1 class='bad'>NOT CERTIFIED: 1 of 2 node(s) certified</h1>" in page
    assert (
        "<tr><td>all_reduce</td><td>0.81</td><td>320.6</td><td>ring 400.0</td>"
        "<td>all_reduce &lt;leaf1&gt;</td><td>ib</td></tr>"
    ) in page
    assert "<script" not in page and "<eth0>" not in page
    assert (
        "<tr class='bad'><td>h2</td><td>held</td><td>4 fabric</td>"
        "<td>mtu: &lt;eth0&gt; &amp; co</td><td>set the MTU</td></tr>"
    ) in page
    assert "<tr class='ok'><td>h1</td><td>certified</td><td></td><td></td><td></td></tr>" in page
    assert (
        "<tr class='failed'><td>4 fabric: h2</td><td>failed</td><td>checks</td>"
        "<td>mtu: &lt;eth0&gt; &amp; co</td></tr>"
    ) in page
    assert "<tr><td>fabric-class</td><td>4</td><td>every NIC</td><td>failed</td></tr>" in page
    assert "<tr><td>dcgm-healthchecks</td><td>3</td><td>dcgmi</td><td>-</td></tr>" in page
    assert "<li>drain h2 gpufabric-certify: &lt;x&gt;</li>" in page
    assert "<tr><th>started</th><td>2025-12-05T00:00:00+00:00</td></tr>" in page
    assert "<tr><th>seconds</th><td>125</td></tr>" in page
    assert "<tr><th>instance type</th><td>p4de.24xlarge</td></tr>" in page
    assert "<tr><th>hold</th><td>slurm</td></tr>" in page
    assert "<tr><th>command</th><td>gpufabric certify -i inv</td></tr>" in page
    versions = html.escape('{"gpufabric": "9.9.9", "python": "3.11"}', quote=True)
    assert f"<tr><th>versions</th><td>{versions}</td></tr>" in page
    assert page.index("<h1") < page.index("<h2>Efficiency") < page.index("<h2>Nodes")
    assert page.index("<h2>Nodes") < page.index("<h2>Stages") < page.index("<h2>ClusterMAX")
    assert page.index("<h2>ClusterMAX") < page.index("<h2>Holds") < page.index("<h2>Run")


def test_the_page_of_a_certified_run_without_collectives() -> None:
    hosts = {"h1": {"status": "certified", "stage": None, "reason": "", "todo": ""}}
    page = render_html(report(verdict="certified", hosts=hosts))
    assert "<h1 class='ok'>CERTIFIED: 1 of 1 node(s) certified</h1>" in page
    assert "<p>No collective measured (see stage 5).</p>" in page and "<h2>Efficiency" not in page


VOID = {"meta"}  # elements without a closing tag in the page


class Page(HTMLParser):
    """The page read as a browser reads it: headings, each table's cells row by row, list items,
    the style sheet, and any text outside an element that shows text."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.open: list[str] = []
        self.text: dict[str, list[str]] = {}
        self.tables: list[list[list[str]]] = []
        self.row_classes: list[str | None] = []
        self.stray: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        self.open.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
            self.row_classes.append(dict(attrs).get("class"))
        elif tag in ("td", "th"):
            self.tables[-1][-1].append("")

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing it opened"

    def handle_data(self, data: str) -> None:
        where = self.open[-1] if self.open else ""
        if where in ("td", "th"):
            self.tables[-1][-1][-1] += data
        elif where in ("title", "style", "h1", "h2", "p", "li"):
            self.text.setdefault(where, []).append(data)
        elif data.strip():
            self.stray.append(data)

    def styles(self) -> dict[str, str]:
        rules = re.findall(r"([^{}]+)\{([^{}]*)\}", "".join(self.text["style"]))
        return {sel.strip(): body for sels, body in rules for sel in sels.split(",")}


def test_the_page_is_well_formed_and_every_table_has_its_header() -> None:
    colls = [coll("all_reduce leaf1", "all_reduce", 0.9)]
    crit = [{"id": "fabric-class", "stage": 4, "what": "every NIC"}]
    rows = [*report()["rows"], {**report()["rows"][1], "host": "h1", "status": "passed"}]
    meta = {**report()["meta"], "versions": {"python": "3.11", "gpufabric": "9.9.9"}}
    page = Page(render_html(report(collectives=colls, criteria=crit, rows=rows, meta=meta)))
    assert page.open == [] and page.stray == []
    assert page.text["title"] == ["certify"]
    assert page.text["h2"] == [
        "Efficiency (busbw / algorithm-aware bound, worst group)",
        "Nodes",
        "Stages",
        "ClusterMAX criteria",
        "Holds",
        "Run",
    ]
    efficiency, nodes, stages, criteria, run = page.tables
    assert efficiency[0] == [
        "collective",
        "efficiency",
        "busbw GB/s",
        "bound",
        "group",
        "transport",
    ]
    assert nodes[0] == ["node", "status", "stage", "reason", "what to do"]
    assert stages[0] == ["test", "status", "measurement", "reason"]
    assert criteria == [
        ["criterion", "stage", "what", "result"],
        ["fabric-class", "4", "every NIC", "failed, passed"],  # each status of the stage, once
    ]
    assert run == [
        ["command", "gpufabric certify -i inv"],
        ["started", "2025-12-05T00:00:00+00:00"],
        ["seconds", "125"],
        ["fabric", "infiniband"],
        ["instance type", "p4de.24xlarge"],
        ["hold", "slurm"],
        ["versions", '{"gpufabric": "9.9.9", "python": "3.11"}'],  # sorted by name
    ]
    # each row's class names a rule of the style sheet: failing rows red, passing green
    styles = page.styles()
    assert {c: styles.get(f".{c}") for c in ("bad", "failed", "ok", "passed", "skipped")} == {
        "bad": "background:#fdd",
        "failed": "background:#fdd",
        "ok": "background:#dfd",
        "passed": "background:#dfd",
        "skipped": "background:#eee",
    }
    assert {c for c in page.row_classes if c} == {"ok", "bad", "passed", "failed", "skipped"}
    lower = {k.lower(): v.lower() for k, v in styles.items()}
    assert lower["table"] == "border-collapse:collapse" and "border" in lower["td"]
    assert lower["td"] == lower["th"] and lower["body"] == "font-family:sans-serif"
    none = Page(render_html(report()))
    assert (
        none.open == []
        and none.stray == []
        and none.text["p"] == ["No collective measured (see stage 5)."]
    )
