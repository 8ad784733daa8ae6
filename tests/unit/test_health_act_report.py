"""Step 2's traffic parsers and step 3's drain / taint plans, report JSON and HTML."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import capture

from gpufabric.health import act, report, traffic

DATA = Path(__file__).parent / "data" / "health"
OK = {"status": "ok", "reasons": [], "warnings": []}
BAD = {"status": "bad", "reasons": ["slow link: fwd 0.02 Gbit/s"], "warnings": []}


def test_scontrol_oneliner_from_the_lab_slurm() -> None:
    nodes = act.parse_scontrol_nodes((DATA / "scontrol_show_node_oneliner_lab.txt").read_text())
    assert nodes["h1"] == {"state": "UNKNOWN", "reason": ""}
    assert nodes["h2"]["reason"] == "gpufabric-health: slow link: fwd 0.02"
    assert nodes["h3"] == {"state": "UNKNOWN+DRAIN", "reason": "operator: bad fan"}


def test_slurm_drains_bad_resumes_only_its_own_and_keeps_an_operators_drain() -> None:
    nodes = act.parse_scontrol_nodes((DATA / "scontrol_show_node_oneliner_lab.txt").read_text())
    plan = {a["node"]: a for a in act.plan_slurm({"h1": BAD, "h2": OK, "h3": OK, "h9": BAD}, nodes)}
    assert plan["h1"]["action"] == "drain"
    assert plan["h1"]["argv"] == [
        "scontrol",
        "update",
        "NodeName=h1",
        "State=DRAIN",
        "Reason=gpufabric-health: slow link: fwd 0.02 Gbit/s",
    ]
    assert plan["h2"]["action"] == "resume"
    assert plan["h2"]["argv"] == ["scontrol", "update", "NodeName=h2", "State=RESUME"]
    assert plan["h3"]["action"] == "keep" and "someone else" in plan["h3"]["why"]
    assert plan["h9"]["action"] == "keep" and plan["h9"]["why"] == "not a Slurm node"
    again = act.plan_slurm({"h3": BAD}, nodes)  # bad AND hand-drained: the operator's reason stays
    assert again[0]["action"] == "keep"


def test_drains_and_resumes_are_checked_after_the_fact() -> None:
    nodes = act.parse_scontrol_nodes((DATA / "scontrol_show_node_oneliner_lab.txt").read_text())
    actions = [
        {"node": "h1", "action": "drain", "why": "gpufabric-health: x"},
        {"node": "h2", "action": "drain", "why": "gpufabric-health: slow link: fwd 0.02"},
        {"node": "h3", "action": "resume", "why": "healthy again"},
        {"node": "h1", "action": "keep", "why": "in service"},
    ]
    assert act.slurm_unapplied(actions, nodes) == [
        "h1 not drained (State=UNKNOWN)",
        "h3 still drained (State=UNKNOWN+DRAIN)",
    ]


def test_slurm_reason_is_one_bounded_line() -> None:
    r = act.slurm_reason(["a\nb", "x" * 500])
    assert "\n" not in r and len(r) == act.MAX_REASON and r.startswith("gpufabric-health: a b")


def test_kubernetes_taints_bad_and_removes_only_its_own_taint() -> None:
    nodes = json.dumps(
        {
            "items": [
                {"metadata": {"name": "n1"}, "spec": {}},
                {
                    "metadata": {"name": "n2"},
                    "spec": {
                        "taints": [{"key": act.TAINT_KEY, "value": "bad", "effect": "NoSchedule"}]
                    },
                },
                {
                    "metadata": {"name": "n3"},
                    "spec": {"taints": [{"key": "other", "value": "x", "effect": "NoSchedule"}]},
                },
            ]
        }
    )
    plan = {
        a["node"]: a
        for a in act.plan_k8s({"n1": BAD, "n2": OK, "n3": OK}, act.parse_kubectl_nodes(nodes))
    }
    assert plan["n1"]["argv"] == [
        "kubectl",
        "taint",
        "nodes",
        "n1",
        f"{act.TAINT_KEY}=bad:NoSchedule",
        "--overwrite",
    ]
    assert plan["n2"]["argv"] == ["kubectl", "taint", "nodes", "n2", f"{act.TAINT_KEY}:NoSchedule-"]
    assert plan["n3"]["action"] == "keep"
    assert act.parse_kubectl_nodes("not json") == {}


def test_iperf3_bidir_json_from_the_lab() -> None:
    fwd, rev, err = traffic.parse_iperf3((DATA / "iperf3_bidir_lab.json").read_text())
    assert err == "" and len(fwd) == 2 and len(rev) == 2
    assert all(0.15 < v < 0.25 for v in fwd + rev)  # paced at 200 Mbit/s
    _f, _r, err = traffic.parse_iperf3((DATA / "iperf3_refused_lab.json").read_text())
    assert err == "iperf3: unable to connect to server: Connection refused"
    assert traffic.parse_iperf3("")[2] == "iperf3 printed no JSON"
    assert traffic.parse_iperf3("[1]")[2] == "iperf3 printed no JSON object"
    # a report with a key twice is not trusted: a test without a result, measured again
    twice = '{"intervals": [], "error": "", "error": "x"}'
    assert traffic.parse_iperf3(twice)[2] == (
        "iperf3 printed no JSON (key 'error' given twice in one JSON object)"
    )


def test_iperf3_ring_commands_and_results() -> None:
    tests = [
        {"id": "r1t1", "kind": "split", "hosts": ["a", "b", "c"]},
        {"id": "r1t2", "kind": "confirm", "hosts": ["d", "e"]},
    ]
    cmds = traffic.iperf3_commands(tests, {"b": "10.0.0.2"})
    assert sorted(cmds) == ["a", "b", "c", "d"]  # ring a->b->c->a; pair d->e
    assert cmds["a"][0][:3] == ["iperf3", "--client", "10.0.0.2"] and "--bidir" in cmds["a"][0]
    good = (DATA / "iperf3_bidir_lab.json").read_text()
    res = traffic.iperf3_results(tests, {"a": [good], "b": [good], "c": [], "d": [good]})
    assert res[0]["error"] == "c -> a: no output (host unreachable?)"
    assert res[1]["error"] == "" and len(res[1]["fwd"]) == 2
    assert traffic.outputs_of({"results": [{"stdout": "x"}, {"skipped": True}]}) == ["x"]
    assert traffic.outputs_of({"skipped": True, "results": []}) == []


def test_nccl_commands_and_results_on_real_nccl_tests_output() -> None:
    path = capture("nccl-tests/all_reduce_perf_2x_p5_efa_srun_prefix.txt")
    tests = [{"id": "r1t1", "kind": "split", "hosts": ["n1", "n2"]}]
    cmds = traffic.nccl_commands(tests, gpus_per_host=8, repeats=2)
    assert list(cmds) == ["n1"] and len(cmds["n1"]) == 4
    assert "n1:8,n2:8" in cmds["n1"][0] and "n2:8,n1:8" in cmds["n1"][2]
    text = path.read_text()
    res = traffic.nccl_results(tests, {"n1": [text] * 4}, repeats=2)
    assert res[0]["error"] == "" and res[0]["fwd"] == res[0]["rev"] and res[0]["fwd"][0] > 100
    short = traffic.nccl_results(tests, {"n1": [text]}, repeats=2)
    assert "1 of 4" in short[0]["error"]


def test_report_names_unreachable_hosts_and_renders_escaped_html() -> None:
    step1 = {
        "h1": {"reasons": [], "warnings": [], "checks": []},
        "h2": {
            "reasons": ["mtu: eth0 mtu 9000, the peers' 1500"],
            "warnings": [],
            "checks": [{"check": "mtu", "ok": False, "detail": "<script>"}],
        },
    }
    traffic_state = {
        "hosts": ["h1", "h2"],
        "bad": {},
        "findings": [],
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
                        "gbps": {"fwd": 0.2, "rev": 0.2},
                    }
                ],
            }
        ],
    }
    rep = report.build(["h1", "h2", "h3"], step1, traffic_state, [], {"traffic_tool": "iperf3"})
    assert rep["hosts"]["h3"] == {"status": "bad", "reasons": [report.UNREACHABLE], "warnings": []}
    assert rep["bad"] == ["h2", "h3"] and rep["rounds"] == 1
    page = report.render_html(rep)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "h2               BAD  mtu: eth0 mtu 9000" in report.text(rep)
