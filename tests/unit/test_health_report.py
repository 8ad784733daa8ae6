"""The run's report as the user reads it: the verdict per host (step 1, traffic, unreachable),
the JSON document, the text summary line by line and the HTML page's tables."""

from __future__ import annotations

from gpufabric.health import report

SLOW = "slow link: fwd 0.02 Gbit/s < 70% of expected 0.2 (with known-good partner h1)"
MTU = "mtu: eth0 mtu 9000, the peers' 1500"
STEP1 = {
    "h1": {
        "reasons": [],
        "warnings": ["errors: eth0 rx_crc_errors_phy 3"],
        "checks": [{"check": "mtu", "ok": True, "detail": "ok"}],
    },
    "h2": {
        "reasons": [MTU],
        "warnings": [],
        "checks": [{"check": "mtu", "ok": False, "detail": "eth0 mtu 9000, the peers' 1500"}],
    },
    "h4": {"reasons": [], "checks": [{"check": "mtu", "ok": True, "detail": "ok"}]},
}
TRAFFIC = {
    "hosts": ["h1", "h2", "h4"],
    "bad": {"h4": SLOW},
    "findings": ["h1+h2 failed once, passed on retest (noise)"],
    "rounds": [
        {
            "round": 1,
            "tests": [
                {
                    "id": "r1t1",
                    "kind": "split",
                    "hosts": ["h1", "h2"],
                    "ok": True,
                    "reason": "",
                    "gbps": {"fwd": 0.2, "rev": 0.19876},
                },
                {
                    "id": "r1t2",
                    "kind": "confirm",
                    "hosts": ["h4", "h1"],
                    "ok": False,
                    "reason": "fwd: no usable measurement",
                    "gbps": {"fwd": None, "rev": 0.2},
                },
            ],
        }
    ],
}
ACTIONS = [
    {"node": "h1", "action": "keep", "why": "in service", "argv": []},
    {"node": "h2", "action": "drain", "why": f"gpufabric-health: {MTU}", "argv": ["scontrol"]},
]


def build() -> dict:
    return report.build(
        ["h1", "h2", "h3", "h4"], STEP1, TRAFFIC, ACTIONS, {"traffic_tool": "iperf3"}
    )


def test_the_json_report_of_a_run() -> None:
    rep = build()
    assert rep["hosts"] == {
        "h1": {"status": "ok", "reasons": [], "warnings": ["errors: eth0 rx_crc_errors_phy 3"]},
        "h2": {"status": "bad", "reasons": [MTU], "warnings": []},
        "h3": {"status": "bad", "reasons": [report.UNREACHABLE], "warnings": []},
        "h4": {"status": "bad", "reasons": [SLOW], "warnings": []},
    }
    assert rep["bad"] == ["h2", "h3", "h4"] and rep["rounds"] == 1
    assert rep["findings"] == ["h1+h2 failed once, passed on retest (noise)"]
    assert list(rep["checks"]) == ["h1", "h2", "h4"]  # h3 answered nothing
    assert rep["checks"]["h2"] == STEP1["h2"]["checks"]
    assert rep["traffic"] == {"tested": ["h1", "h2", "h4"], "rounds": TRAFFIC["rounds"]}
    assert rep["actions"] == [
        {"node": "h1", "action": "keep", "why": "in service"},
        {"node": "h2", "action": "drain", "why": f"gpufabric-health: {MTU}"},
    ]
    assert rep["meta"] == {"traffic_tool": "iperf3"}


def test_a_run_without_traffic() -> None:
    rep = report.build(["h1"], {"h1": STEP1["h1"]}, None, [], {})
    assert rep["rounds"] == 0 and rep["findings"] == [] and rep["bad"] == []
    assert rep["traffic"] == {"tested": [], "rounds": []}
    assert report.text(rep).splitlines()[-1] == "traffic: 0 round(s) over 0 host(s) (?)"


def test_the_text_summary_line_by_line() -> None:
    assert report.text(build()) == (
        "h1               OK\n"
        "                 warn errors: eth0 rx_crc_errors_phy 3\n"
        f"h2               BAD  {MTU}\n"
        f"h3               BAD  {report.UNREACHABLE}\n"
        f"h4               BAD  {SLOW}\n"
        "traffic: 1 round(s) over 3 host(s) (iperf3)\n"
        "finding: h1+h2 failed once, passed on retest (noise)\n"
        f"drain: h2 (gpufabric-health: {MTU})\n"
    )


def test_two_reasons_of_one_host_are_one_line() -> None:
    rep = report.build(["h2"], {"h2": {**STEP1["h2"], "reasons": [MTU, "flap: x"]}}, None, [], {})
    assert report.text(rep).splitlines()[0] == f"h2               BAD  {MTU}; flap: x"


def test_the_html_page_tables() -> None:
    page = report.render_html(build())
    assert "<p>3 bad of 4 host(s); 1 traffic round(s); iperf3</p>" in page
    assert (
        "<tr class='ok'><td>h1</td><td>ok</td><td></td>"
        "<td>errors: eth0 rx_crc_errors_phy 3</td></tr>"
    ) in page
    assert (
        "<tr class='bad'><td>h2</td><td>bad</td><td>mtu: eth0 mtu 9000, the peers&#x27; 1500</td>"
        in page
    )
    assert (
        "<tr class='bad'><td>h2</td><td>mtu</td><td>eth0 mtu 9000, the peers&#x27; 1500</td></tr>"
    ) in page
    assert "<tr class='ok'><td>h1</td><td>mtu</td><td>ok</td></tr>" in page
    assert (
        "<tr class='ok'><td>1</td><td>r1t1 split</td><td>h1 h2</td><td>0.2</td><td>0.199</td>"
        "<td>ok</td></tr>"
    ) in page
    assert (
        "<tr class='bad'><td>1</td><td>r1t2 confirm</td><td>h4 h1</td><td>-</td><td>0.2</td>"
        "<td>fwd: no usable measurement</td></tr>"
    ) in page
    assert "<h2>Findings</h2><ul><li>h1+h2 failed once, passed on retest (noise)</li></ul>" in page
    assert (
        "<h2>Actions</h2><ul><li>keep h1: in service</li>"
        "<li>drain h2: gpufabric-health: mtu: eth0 mtu 9000, the peers&#x27; 1500</li></ul>"
    ) in page
    assert page.endswith("</table>\n<h2>Findings</h2>" + page.split("<h2>Findings</h2>")[1])
    assert page.endswith("</ul>\n</body></html>\n")


def test_the_html_page_frame_and_table_headings() -> None:
    rep = build()
    rep["findings"] = ["one", "two"]
    page = report.render_html(rep)
    assert page.startswith("<!doctype html><html><head><meta charset='utf-8'><title>fabric health")
    assert (
        ".bad{background:#fdd}.ok{background:#dfd}</style>\n</head><body><h1>Fabric health</h1>"
        in page
    )
    assert (
        "<h2>Hosts</h2><table><tr><th>host</th><th>status</th><th>reasons</th>"
        "<th>warnings</th></tr>"
    ) in page
    assert (
        "</table><h2>Checks (no traffic)</h2><table><tr><th>host</th><th>check</th>"
        "<th>result</th></tr>"
    ) in page
    assert (
        "</table><h2>Traffic rounds</h2><table><tr><th>round</th><th>test</th>"
        "<th>hosts</th><th>fwd Gbit/s</th><th>rev Gbit/s</th><th>verdict</th></tr>"
    ) in page
    assert "<ul><li>one</li><li>two</li></ul>" in page


def test_a_report_without_a_traffic_tool_names_none() -> None:
    page = report.render_html(report.build(["h1"], {"h1": STEP1["h1"]}, None, [], {}))
    assert "<p>0 bad of 1 host(s); 0 traffic round(s); </p>" in page


def test_a_host_with_two_reasons_shows_both_in_its_cell() -> None:
    rep = report.build(
        ["h2"],
        {"h2": {"reasons": ["a<b", "c"], "warnings": ["w1", "w2"], "checks": []}},
        None,
        [],
        {},
    )
    page = report.render_html(rep)
    assert "<td>a&lt;b<br>c</td><td>w1<br>w2</td>" in page
    assert "Findings" not in page and "Actions" not in page
