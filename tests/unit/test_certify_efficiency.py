"""Certify's collectives judge on real nccl-tests outputs (the shared captures, tests/conftest.py): efficiencies
against the algorithm-aware bound agree with the published figures, a run whose log does not
prove its transport fails, and a socket fallback fails on the transport and the floor."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import capture
from tests.unit.certify_fakes import node_report

from gpufabric.certify.hosts import Holder, Inventory
from gpufabric.certify.limits import judge, table
from gpufabric.certify.run import Options, certify
from gpufabric.certify.scorecard import ctrf, render_html
from gpufabric.nccl.profiles import render

# (capture, fabric, instance type, collective, published busbw GB/s, published ratio, algorithm)
# Published: awslabs/awsome-distributed-ai micro-benchmarks/nccl-tests/README.md (p5: 16 GiB
# busbw 487.09, tree bound 750 -> 0.65; p4de: 2 GiB 78.33 of 93.75 -> 0.84); the nccl gate's
# table (A3 Mega all_gather 0.94 of the ring bound); docs/sources.md 1.3.
PUBLISHED = [
    (
        "all_reduce_perf_2x_p5_efa_srun_prefix.txt",
        "efa",
        "p5.48xlarge",
        "all_reduce",
        487.09,
        0.65,
        "tree",
    ),
    (
        "all_reduce_perf_2x_p4de_efa_srun_prefix.txt",
        "efa",
        "p4de.24xlarge",
        "all_reduce",
        78.33,
        0.84,
        "tree",
    ),
    (
        "all_gather_perf_gke_a3mega_tcpxo_2node.txt",
        "tcpxo",
        "a3-megagpu-8g",
        "all_gather",
        None,
        0.94,
        "ring",
    ),
]


@pytest.mark.parametrize(("name", "fabric", "itype", "coll", "busbw", "ratio", "algo"), PUBLISHED)
def test_efficiency_agrees_with_the_published_figure(name, fabric, itype, coll, busbw, ratio, algo):
    [c] = judge(capture(f"nccl-tests/{name}").read_text(), name, fabric, itype, 2)
    assert c.collective == coll and c.algorithm == algo and c.nodes == 2
    assert c.efficiency is not None and round(c.efficiency, 2) == ratio
    if busbw is not None:
        assert c.peak_gbytes == pytest.approx(busbw, rel=0.002)
    # these tables were published without their NCCL_DEBUG log: fail closed
    assert not c.ok and "transport not proven" in c.reason


def test_a_log_that_proves_the_fabric_passes_the_transport_check():
    text = capture("nccl-tests/all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt").read_text()
    [c] = judge(text, "p4d", "efa", "p4d.24xlarge", 2, "all_reduce")
    assert c.transport == "efa" and "transport" not in c.reason
    need = table()["efficiency"]["tree"]["min"]
    assert c.efficiency is not None and c.efficiency < need and not c.ok  # 43.8 of 93.75 GB/s


def test_socket_fallback_fails_on_transport_and_floor():
    table_text = capture("nccl-tests/all_reduce_perf_2x_p4de_efa_srun_prefix.txt").read_text()
    log = capture("nccl-debug/net_socket_eth0.txt").read_text()  # a real socket-transport log
    [c] = judge(log + "\n" + table_text, "fallback", "efa", "p4de.24xlarge", 2, "all_reduce")
    assert c.transport == "socket" and not c.ok
    # its busbw alone would pass: only the transport proof catches this run
    assert c.reason == "transport socket: fell back to kernel TCP"


def test_the_absolute_floor_catches_a_tcp_class_figure():
    """The p4de capture cut at 4 MiB (its real rows up to there: under 40 GB/s)."""
    lines = capture("nccl-tests/all_reduce_perf_2x_p4de_efa_srun_prefix.txt").read_text()
    kept = [ln for ln in lines.splitlines() if not _row_size(ln) or _row_size(ln) <= 4 << 20]
    [c] = judge("\n".join(kept), "cut", "efa", "p4de.24xlarge", 2, "all_reduce")
    floor = table()["floor_gbytes"]["value"]
    assert c.peak_gbytes is not None and c.peak_gbytes < floor
    assert f"under the {floor:g} GB/s floor (TCP-class)" in c.reason


def _row_size(line: str) -> int:
    parts = line.replace("0: ", "", 1).split()
    return int(parts[0]) if parts and parts[0].isdigit() else 0


def test_the_scorecard_shows_the_published_efficiency():
    hosts = ["n1", "n2"]
    prof = render({}, "efa", versions={"aws_ofi_nccl": "1.22.0"})
    conf = f'# gpufabric NCCL profile "{prof["profile"]}"\n' + "".join(
        f"{e['name']}={e['value']}\n" for e in prof["conf"]
    )
    reports = {h: node_report(gpus=8, nccl_conf=conf) for h in hosts}
    hv = {"gpufabric_fabric": "efa", "gpufabric_instance_type": "p5.48xlarge"}
    inv = Inventory(hosts, "n1", {h: dict(hv) for h in hosts}, {"gpu_nodes": hosts})
    text = capture("nccl-tests/all_reduce_perf_2x_p5_efa_srun_prefix.txt").read_text()

    class Nodes:
        def script(self, hosts: list[str], path: Any, args: list[str]) -> dict[str, Any]:
            import json

            return {h: {"rc": 0, "stdout": json.dumps(reports[h])} for h in hosts}

        def run(self, hosts: list[str], argv: list[str]) -> dict[str, Any]:
            raise AssertionError("no hold asked")

    def fabric(hs: list[str], _label: str) -> dict[str, Any]:
        return {"hosts": {h: {"status": "ok", "reasons": []} for h in hs}}

    nodes = Nodes()
    report = certify(
        inv,
        nodes,
        Holder("none", nodes, "n1"),
        fabric,
        lambda h, c: text if c == "all_reduce" else "",
        Options(),
    )
    head = ctrf(report)["results"]["extra"]["headline"]["all_reduce"]
    assert head["efficiency"] == pytest.approx(0.65, abs=0.005) and head["algorithm"] == "tree"
    assert "<td>0.65</td>" in render_html(report)
    assert report["verdict"] == "not certified"  # the capture has no NCCL_DEBUG log
