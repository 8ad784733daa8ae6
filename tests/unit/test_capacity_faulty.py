"""Day 2: reporting a bad GCP host or sub-block; request shapes are the SDK's own types, and
nothing is sent without --send."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufabric.cli.conventions import error_line
from gpufabric.clouds.gcp import faulty
from gpufabric.config.load import parse
from gpufabric.errors import UserError
from gpufabric.plan.project import read_stack

REPO = Path(__file__).resolve().parents[2]
SUB = "projects/my-gpu-project/reservations/a3u/reservationBlocks/b1/reservationSubBlocks/s1"


@pytest.fixture(scope="module")
def cfg() -> Any:
    return parse(read_stack(REPO, "gcp-a3-ultra"), "gcp-a3-ultra")


def _names(enum: Any) -> tuple[str, ...]:
    return tuple(
        n for n in enum.__members__ if not n.startswith("UNDEFINED") and "UNSPECIFIED" not in n
    )


def test_allowed_values_are_the_sdks_enums():
    from google.cloud import compute_v1 as c

    pairs = [
        (faulty.HOST_BEHAVIORS, c.InstancesReportHostAsFaultyRequestFaultReason.Behavior),
        (faulty.HOST_SCHEDULES, c.InstancesReportHostAsFaultyRequest.DisruptionSchedule),
        (faulty.SUB_BLOCK_BEHAVIORS, c.ReservationSubBlocksReportFaultyRequestFaultReason.Behavior),
        (faulty.SUB_BLOCK_COMPONENTS, c.ReservationSubBlocksReportFaultyRequest.FailureComponent),
        (faulty.SUB_BLOCK_SCHEDULES, c.ReservationSubBlocksReportFaultyRequest.DisruptionSchedule),
    ]
    for ours, enum in pairs:
        assert set(ours) == set(_names(enum)), enum


def test_host_report_request(cfg: Any):
    from google.cloud import compute_v1 as c

    report = faulty.fault_report(
        cfg,
        host="gcp-a3-ultra-node-0003",
        block=None,
        behavior="PERFORMANCE",
        description="busbw 40% under its peers",
    )
    assert report.request == c.ReportHostAsFaultyInstanceRequest(
        project="my-gpu-project",
        zone="europe-west1-b",
        instance="gcp-a3-ultra-node-0003",
        instances_report_host_as_faulty_request_resource=c.InstancesReportHostAsFaultyRequest(
            disruption_schedule="IMMEDIATE",
            fault_reasons=[
                c.InstancesReportHostAsFaultyRequestFaultReason(
                    behavior="PERFORMANCE", description="busbw 40% under its peers"
                )
            ],
        ),
    )
    body = report.to_dict()["request"]["instancesReportHostAsFaultyRequestResource"]
    assert body == {
        "disruptionSchedule": "IMMEDIATE",
        "faultReasons": [{"behavior": "PERFORMANCE", "description": "busbw 40% under its peers"}],
    }


def test_sub_block_report_request_and_send(cfg: Any):
    from google.cloud import compute_v1 as c

    report = faulty.fault_report(
        cfg,
        host=None,
        block=SUB,
        behavior="SWITCH_FAILURE",
        description="NVLink down on 3 hosts",
        component="NVLINK_SWITCH",
    )
    request = report.request
    assert isinstance(request, c.ReportFaultyReservationSubBlockRequest)
    assert (request.project, request.zone, request.parent_name, request.reservation_sub_block) == (
        "my-gpu-project",
        "europe-west1-b",
        "reservations/a3u/reservationBlocks/b1",
        "s1",
    )
    assert report.to_dict()["request"]["reservationSubBlocksReportFaultyRequestResource"] == {
        "disruptionSchedule": "IMMEDIATE",
        "failureComponent": "NVLINK_SWITCH",
        "faultReasons": [{"behavior": "SWITCH_FAILURE", "description": "NVLink down on 3 hosts"}],
    }

    class Client:
        calls: list[Any] = []

        def report_faulty(self, request: Any) -> Any:
            self.calls.append(request)
            return type("Operation", (), {"name": "operation-123"})()

    client = Client()
    assert faulty.send(report, client) == "operation-123"
    assert client.calls == [request]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"host": "n1", "block": SUB}, "name one of --host"),
        ({"host": None, "block": None}, "name one of --host"),
        ({"host": "Node_1"}, "not a Compute Engine instance name"),
        (
            {"host": "n1", "behavior": "GPU_ERROR"},
            "--behavior 'GPU_ERROR': choose one of CHIP_ERROR",
        ),
        ({"host": "n1", "component": "NVLINK_SWITCH"}, "--component is for a sub-block"),
        ({"host": "n1", "description": "a\nb"}, "--description: one line"),
        ({"block": "res/reservationBlocks/b"}, "expected projects/P/reservations/R"),
        ({"block": SUB, "schedule": "FUTURE"}, "--disruption 'FUTURE': choose one of IMMEDIATE"),
    ],
)
def test_bad_requests_are_one_line(cfg: Any, kw: dict[str, Any], message: str):
    args = {"host": None, "block": None, "behavior": "PERFORMANCE", "description": "slow"}
    args.update(kw)
    with pytest.raises(UserError) as err:
        faulty.fault_report(cfg, **args)
    assert message in error_line(err.value)  # what the CLI prints: arguments said as flags


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", "capacity", "report-faulty", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_prints_the_request_and_sends_nothing_without_send():
    result = run(
        "-s", "gcp-a3-ultra", "--host", "n1", "--behavior", "PERFORMANCE", "--description", "slow"
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["method"] == "instances.reportHostAsFaulty"
    assert result.stderr == "not sent: add --send to report it to the cloud\n"


def test_cli_refuses_a_cloud_without_fault_reports():
    result = run(
        "-s", "aws-h100", "--host", "n1", "--behavior", "PERFORMANCE", "--description", "x"
    )
    assert result.returncode == 2
    assert result.stderr == "error: AWS takes no fault reports from here\n"
