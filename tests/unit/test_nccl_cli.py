"""`gpufabric nccl parse|gate|tune plan` output shapes (text and --json)."""

from __future__ import annotations

import json

from tests.conftest import FIXTURES, needs_captures
from typer.testing import CliRunner

from gpufabric.cli.main import app

P4D = FIXTURES / "nccl-tests" / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"
SOCKET = FIXTURES / "nccl-debug" / "net_socket_eth0.txt"
runner = CliRunner()


@needs_captures
def test_parse_text_summary() -> None:
    res = runner.invoke(app, ["nccl", "parse", str(P4D)])
    assert res.exit_code == 0, res.output
    assert "all_reduce: 30 sizes, 16 ranks, 2 hosts, NCCL 2.9.9+cuda11.2, avg busbw 11.2432" in (
        res.output
    )
    assert "largest: 4 GiB busbw 43.81 GB/s" in res.output
    assert "NCCL 2.9.9+cuda11.2; transport efa; plugin aws-ofi-nccl; NICs 0, 1, 2, 3" in res.output


@needs_captures
def test_parse_json() -> None:
    res = runner.invoke(app, ["nccl", "parse", "--json", str(P4D), str(SOCKET)])
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert [d["debug"]["transport"] for d in data] == ["efa", "socket"]
    last = data[0]["results"][0]["rows"][-1]
    assert last["size"] == 4294967296 and last["out_of_place"]["busbw"] == 43.81


@needs_captures
def test_gate_json_and_exit_code() -> None:
    res = runner.invoke(app, ["nccl", "gate", "--json", str(SOCKET), "-t", "p5.48xlarge"])
    assert res.exit_code == 1
    data = json.loads(res.output)
    assert data["passed"] is False and data["transport"] == "socket"
    # the socket fallback, then: a log without a results table measured nothing
    assert [(v["check"], v["status"]) for v in data["verdicts"]] == [
        ("transport", "fail"),
        ("input", "fail"),
    ]
    ok = runner.invoke(app, ["nccl", "gate", "--json", str(P4D), "-t", "p4d.24xlarge"])
    assert ok.exit_code == 0 and json.loads(ok.output)["nodes"] == 2


def test_tune_plan_json() -> None:
    res = runner.invoke(
        app, ["nccl", "tune", "plan", "-t", "p5.48xlarge", "-n", "2", "--json", "-c", "all_reduce"]
    )
    assert res.exit_code == 0
    plan = json.loads(res.output)
    assert plan["collectives"] == ["all_reduce"] and plan["net_devices"] == 8
    assert {t["collective"] for t in plan["trials"]} == {"all_reduce", "alltoall", "sendrecv"}
