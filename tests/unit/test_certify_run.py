"""`gpufabric certify`'s stages over stand-in nodes (tests/unit/certify_fakes.py): holds from
the start, the failing nodes kept with stage and reason, the others released one by one, and a
CTRF scorecard that validates."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.certify_fakes import FakeRunner, doctor_report, node_report
from tests.unit.ctrf_schema import ctrf_schema

from gpufabric.certify.hosts import PREFIX, Holder, Inventory
from gpufabric.certify.run import Options, certify
from gpufabric.certify.scorecard import compare, ctrf, from_ctrf, render_html

HOSTS = [f"h{i}" for i in range(1, 9)]


def inventory(**hostvars: Any) -> Inventory:
    hv = {"gpufabric_fabric": "lab", **hostvars}
    return Inventory(HOSTS, "h1", {h: dict(hv) for h in HOSTS}, {"gpu_nodes": HOSTS})


def slurm(**over: dict[str, str]) -> dict[str, dict[str, str]]:
    return {h: over.get(h, {"state": "IDLE", "reason": ""}) for h in HOSTS}


def run(reports, slurm_nodes, fabric_bad=None, soak_bad=None, soak=1):
    runner = FakeRunner(reports, slurm_nodes)
    calls: list[tuple[list[str], str]] = []

    def fabric(hosts: list[str], label: str) -> dict[str, Any]:
        calls.append((list(hosts), label))
        bad = (fabric_bad or {}) if label == "fabric" else (soak_bad or {})
        return doctor_report(hosts, {h: r for h, r in bad.items() if h in hosts})

    holder = Holder("slurm", runner, "h1")
    report = certify(inventory(), runner, holder, fabric, None, Options(soak_repeats=soak))
    return report, runner, calls


def test_healthy_cluster_every_node_held_then_released_one_by_one():
    report, runner, calls = run({h: node_report() for h in HOSTS}, slurm())
    assert report["verdict"] == "certified"
    assert {h: v["status"] for h, v in report["hosts"].items()} == dict.fromkeys(HOSTS, "certified")
    updates = [a for a in runner.calls if a[1] == "update"]
    drains = [a for a in updates if "State=DRAIN" in a]
    resumes = [a for a in updates if "State=RESUME" in a]
    assert len(drains) == 8 and all(f"Reason={PREFIX} held until certified" in a for a in drains)
    assert [a[2] for a in resumes] == [f"NodeName={h}" for h in HOSTS]  # one by one
    assert updates.index(drains[-1]) < updates.index(resumes[0])  # held before any release
    assert all(v == {"state": "IDLE", "reason": ""} for v in runner.slurm.values())
    assert [label for _h, label in calls] == ["fabric", "soak1"]
    skipped = {r["stage"]: r["measurement"] for r in report["rows"] if r["status"] == "skipped"}
    assert set(skipped) == {3, 5, 6}  # one line each: no GPU tools, no GPU, no storage goal
    assert "no GPU in the lab" in skipped[5]


def test_failures_named_with_stage_reason_and_what_to_do_operator_drain_kept():
    reports: dict[str, Any] = {h: node_report() for h in HOSTS}
    reports["h2"] = None  # unreachable
    reports["h3"] = node_report(nccl_conf="NCCL_ALGO=Ring\n" + node_report()["nccl_conf"])
    nodes = slurm(h8={"state": "IDLE+DRAIN", "reason": "operator: bad fan"})
    report, runner, calls = run(
        reports,
        nodes,
        fabric_bad={"h5": ["mtu: eth0 mtu 9000, the peers' 1500"]},
        soak_bad={"h6": ["slow link: fwd 0.02 Gbit/s < 70% of expected 0.2"]},
    )
    assert report["verdict"] == "not certified"
    held = {h: v for h, v in report["hosts"].items() if v["status"] == "held"}
    assert sorted(held) == ["h2", "h3", "h5", "h6"]
    assert held["h2"]["stage"] == "1 sanity" and held["h2"]["reason"].startswith("unreachable")
    assert held["h3"]["stage"] == "2 configuration" and "nccl-autoconfig" in held["h3"]["reason"]
    assert held["h5"]["stage"] == "4 fabric" and held["h5"]["todo"].startswith(
        "set the fabric's MTU"
    )
    assert held["h6"]["stage"] == "7 soak" and held["h6"]["reason"].startswith("inconsistent: ")
    # later stages never saw the hosts an earlier stage held
    assert "h2" not in calls[0][0] and "h3" not in calls[0][0] and "h5" not in calls[1][0]
    for h in ("h2", "h3", "h5", "h6"):
        st = runner.slurm[h]
        assert "DRAIN" in st["state"] and st["reason"].startswith(f"{PREFIX} stage "), st
    assert runner.slurm["h5"]["reason"].startswith(f"{PREFIX} stage 4 fabric: mtu: eth0 mtu 9000")
    assert runner.slurm["h8"] == {"state": "IDLE+DRAIN", "reason": "operator: bad fan"}
    assert all(runner.slurm[h]["state"] == "IDLE" for h in ("h1", "h4", "h7"))


def test_scorecard_is_valid_ctrf_and_leads_with_the_verdict():
    reports: dict[str, Any] = {h: node_report() for h in HOSTS}
    report, _r, _c = run(
        reports, slurm(), fabric_bad={"h4": ["mtu: eth0 mtu 9000, the peers' 1500"]}
    )
    doc = ctrf(report)
    s = doc["results"]["summary"]
    assert s["failed"] == 1 and s["tests"] == s["passed"] + s["failed"] + s["skipped"]
    assert all(isinstance(t["duration"], int) for t in doc["results"]["tests"])
    page = render_html(report)
    assert page.index("NOT CERTIFIED: 7 of 8") < page.index("<h2>Nodes")
    assert "nccl-autoconfig" in page and "h4" in page


def test_scorecard_validates_against_the_ctrf_projects_schema():
    """The schema the CTRF project publishes (npm ctrf, installed by `make venv`): the
    scorecard validates, formats included, and names the schema's spec version; a custom key
    outside `extra`, a status CTRF does not know, a fractional duration and a report id that is
    no UUID are each refused by it."""
    version, validator = ctrf_schema()
    report, _r, _c = run(
        {h: node_report() for h in HOSTS},
        slurm(),
        fabric_bad={"h4": ["mtu: eth0 mtu 9000, the peers' 1500"]},
    )
    doc = ctrf(report)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == []
    assert doc["specVersion"].startswith(f"{version}.")
    assert not validator.is_valid({**doc, "reportId": "certify-1"})
    test0 = doc["results"]["tests"][0]
    for bad_test in (
        {**test0, "busbw": 1},
        {**test0, "status": "held"},
        {**test0, "duration": 1.5},
    ):
        bad = {**doc, "results": {**doc["results"], "tests": [bad_test]}}
        assert not validator.is_valid(bad), bad_test


def test_compare_names_what_changed():
    ok, _r, _c = run({h: node_report() for h in HOSTS}, slurm())
    bad, _r, _c = run({h: node_report() for h in HOSTS}, slurm(), fabric_bad={"h7": ["mtu: x"]})
    lines = compare(from_ctrf(ctrf(ok), "old"), from_ctrf(ctrf(bad), "new"))
    assert lines[0] == "verdict: certified -> not certified"
    assert "host h7: certified -> held (mtu: x)" in lines


def test_configuration_audit_names_each_problem_and_keeps_warnings_apart():
    from gpufabric.certify.stages import audit_host

    conf = '# gpufabric NCCL profile "roce"\nNCCL_IB_TC=106\nNCCL_IB_GID_INDEX=5\nNCCL_TOPO_FILE=/t.xml\n'
    d = node_report(nccl_conf=conf, roce_v2=True, rdma=["mlx5_0"])
    d["paths"] = {"/t.xml": False, "/opt/plugin": False}
    problems, warnings = audit_host(d, "roce", "", nodes=128, tiers=0)
    assert sorted(problems) == [
        "net-plugin: /opt/plugin is missing",
        "topo-file: /t.xml is missing",
    ]
    assert [w.split(":")[0] for w in warnings] == ["nccl-gid-index", "nccl-ib-qps-entropy"]
    missing = node_report(nccl_conf="")
    assert audit_host(missing, "lab", "", 8, 0)[0] == [
        "nccl-conf: /etc/nccl.conf is missing (tune-fabric not run)"
    ]
    other = node_report(nccl_conf='# gpufabric NCCL profile "roce"\n')
    assert (
        "nccl-conf: /etc/nccl.conf is not the lab profile" in audit_host(other, "lab", "", 8, 0)[0]
    )


def test_docs_name_every_threshold():
    from pathlib import Path

    from gpufabric.certify.limits import table

    doc = (Path(__file__).resolve().parents[2] / "docs" / "certify.md").read_text()
    t = table()
    for algo in ("ring", "tree", "intra_node"):
        assert f">= {t['efficiency'][algo]['min']:.2f}" in doc, algo
    assert f"{t['floor_gbytes']['value']} GB/s" in doc
    assert f"-b {t['sizes']['min_bytes']} -e {t['sizes']['max_bytes']}" in doc
    for c in ("nccl-autoconfig", "nccl-gid-index", "nccl-ib-qps-entropy"):
        assert f"`{c}`" in doc


def test_an_inventory_without_a_fabric_is_refused_before_any_hold():
    from gpufabric.errors import UserError

    runner = FakeRunner({h: node_report() for h in HOSTS}, slurm())
    inv = Inventory(HOSTS, "h1", {h: {} for h in HOSTS}, {"gpu_nodes": HOSTS})
    with pytest.raises(UserError, match="gpufabric_fabric must be set"):
        certify(inv, runner, Holder("slurm", runner, "h1"), lambda _h, _label: {}, None, Options())
    bad_type = inventory(gpufabric_instance_type="p9.nope")
    with pytest.raises(UserError, match="gpufabric_instance_type"):
        certify(
            bad_type, runner, Holder("slurm", runner, "h1"), lambda _h, _label: {}, None, Options()
        )
    assert runner.calls == []  # nothing drained
