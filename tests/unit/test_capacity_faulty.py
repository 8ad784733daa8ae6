"""Day 2: reporting a bad GCP host or sub-block; request shapes are the SDK's own types, and
nothing is sent without --send."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
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
    """`gpufabric capacity report-faulty ARGS` in this process (as the console script runs it)."""
    from gpufabric.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", "200")
        patch.setenv("GPUFABRIC_PROJECT", str(REPO))
        patch.setattr(sys, "argv", ["gpufabric", "capacity", "report-faulty", *args])
        with redirect_stdout(out), redirect_stderr(err), pytest.raises(SystemExit) as done:
            main()
    code = done.value.code
    assert code is None or isinstance(code, int), code
    return subprocess.CompletedProcess(list(args), code or 0, out.getvalue(), err.getvalue())


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


def _report(cfg: Any, **kw: Any) -> Any:
    args = {"host": None, "block": None, "behavior": "PERFORMANCE", "description": "slow"}
    return faulty.fault_report(cfg, **{**args, **kw})


def _refusal(cfg: Any, **kw: Any) -> str:
    with pytest.raises(UserError) as err:
        _report(cfg, **kw)
    return error_line(err.value)


HOST_63 = "n" + "0" * 61 + "z"


@pytest.mark.parametrize(
    ("kw", "line"),
    [
        ({"host": "n1", "block": SUB}, "error: name one of --host INSTANCE or --block SUB_BLOCK_PATH"),
        ({}, "error: name one of --host INSTANCE or --block SUB_BLOCK_PATH"),
        ({"host": "n1\n"}, "error: --host 'n1\\n': not a Compute Engine instance name"),
        ({"host": HOST_63 + "z"}, f"error: --host '{HOST_63}z': not a Compute Engine instance name"),
        ({"host": "1n"}, "error: --host '1n': not a Compute Engine instance name"),
        ({"host": "n1-"}, "error: --host 'n1-': not a Compute Engine instance name"),
        ({"host": "n1", "description": ""}, "error: --description: one line of 1-1000 characters"),
        ({"host": "n1", "description": "x" * 1001}, "error: --description: one line of 1-1000 characters"),
        ({"host": "n1", "description": "a\nb"}, "error: --description: one line of 1-1000 characters"),
        ({"host": "n1", "behavior": "GPU_ERROR"}, "error: --behavior 'GPU_ERROR': choose one of CHIP_ERROR, PERFORMANCE, SILENT_DATA_CORRUPTION, UNRECOVERABLE_GPU_ERROR"),
        ({"host": "n1", "schedule": "LATER"}, "error: --disruption 'LATER': choose one of IMMEDIATE, FUTURE"),
        ({"host": "n1", "component": "NVLINK_SWITCH"}, "error: --component is for a sub-block (--block), not a host"),
        ({"block": SUB + "\n"}, f"error: --block {SUB + chr(10)!r}: expected projects/P/reservations/R/reservationBlocks/B/reservationSubBlocks/S (as `gpufabric capacity plan` prints it)"),
        ({"block": "x/" + SUB}, f"error: --block {'x/' + SUB!r}: expected projects/P/reservations/R/reservationBlocks/B/reservationSubBlocks/S (as `gpufabric capacity plan` prints it)"),
        ({"block": SUB, "behavior": "CHIP_ERROR"}, "error: --behavior 'CHIP_ERROR': choose one of GPU_ERROR, PERFORMANCE, SILENT_DATA_CORRUPTION, SWITCH_FAILURE"),
        ({"block": SUB, "component": "GPU"}, "error: --component 'GPU': choose one of MULTIPLE_FAULTY_HOSTS, NVLINK_SWITCH"),
    ],
)  # fmt: skip
def test_each_refusal_word_for_word(cfg: Any, kw: dict[str, Any], line: str):
    assert _refusal(cfg, **kw) == line


def test_names_and_descriptions_at_their_limits(cfg: Any):
    report = _report(cfg, host=HOST_63, description="  " + "x" * 1000 + "  ")
    assert report.request.instance == HOST_63
    reason = report.to_dict()["request"]["instancesReportHostAsFaultyRequestResource"]
    assert reason["faultReasons"] == [{"behavior": "PERFORMANCE", "description": "x" * 1000}]
    assert _report(cfg, host="n", schedule="FUTURE").request.instance == "n"
    body = _report(cfg, host="n", schedule="FUTURE").to_dict()["request"]
    assert body["instancesReportHostAsFaultyRequestResource"]["disruptionSchedule"] == "FUTURE"
    # project ids of 6 and 30 characters
    for project in ("abcdef", "a" + "b" * 28 + "c"):
        block = SUB.replace("my-gpu-project", project)
        assert _report(cfg, block=block).request.project == project
    for project in ("abcde", "a" + "b" * 29 + "c"):
        assert "expected projects/P" in _refusal(cfg, block=SUB.replace("my-gpu-project", project))


def test_a_sub_block_report_defaults_to_multiple_faulty_hosts(cfg: Any):
    report = _report(cfg, block=SUB)
    assert report.method == "reservationSubBlocks.reportFaulty"
    assert report.to_dict()["request"] == {
        "project": "my-gpu-project",
        "zone": "europe-west1-b",
        "parentName": "reservations/a3u/reservationBlocks/b1",
        "reservationSubBlock": "s1",
        "reservationSubBlocksReportFaultyRequestResource": {
            "disruptionSchedule": "IMMEDIATE",
            "failureComponent": "MULTIPLE_FAULTY_HOSTS",
            "faultReasons": [{"behavior": "PERFORMANCE", "description": "slow"}],
        },
    }


def test_send_a_host_report_and_a_cloud_error_is_one_line(cfg: Any):
    from google.api_core.exceptions import Forbidden

    report = _report(cfg, host="n1")
    assert report.to_dict()["method"] == "instances.reportHostAsFaulty"

    class Instances:
        def __init__(self, answer: Any) -> None:
            self.answer, self.calls = answer, []

        def report_host_as_faulty(self, request: Any) -> Any:
            self.calls.append(request)
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer

    client = Instances(type("Operation", (), {"name": "operation-9"})())
    assert faulty.send(report, client) == "operation-9"
    assert client.calls == [report.request]
    assert faulty.send(report, Instances("op-without-name")) == "op-without-name"
    with pytest.raises(UserError) as err:
        faulty.send(report, Instances(Forbidden("no permission\ndetails")))
    assert str(err.value) == "gcp instances.reportHostAsFaulty: 403 no permission"


def test_a_missing_sdk_is_one_line_naming_the_extra(cfg: Any, monkeypatch: pytest.MonkeyPatch):
    from gpufabric import extras

    monkeypatch.setattr(extras, "find_spec", lambda name: None)
    with pytest.raises(UserError) as err:
        _report(cfg, host="n1")
    assert str(err.value) == (
        "reporting a faulty host or sub-block needs the gcp extra (google.cloud.compute_v1 is "
        "not installed): pip install 'gpufabric[gcp]'"
    )


def test_send_without_a_client_makes_the_sdks_own(cfg: Any, monkeypatch: pytest.MonkeyPatch):
    from types import SimpleNamespace

    host, sub_block = _report(cfg, host="n1"), _report(cfg, block=SUB)
    made: list[str] = []

    class Client:
        def __init__(self, kind: str) -> None:
            made.append(kind)

        def report_host_as_faulty(self, request: Any) -> str:
            return "host-op"

        def report_faulty(self, request: Any) -> str:
            return "sub-block-op"

    fake = SimpleNamespace(
        InstancesClient=lambda: Client("instances"),
        ReservationSubBlocksClient=lambda: Client("sub-blocks"),
    )
    monkeypatch.setattr(faulty, "sdk", lambda: fake)
    assert faulty.send(host) == "host-op"
    assert faulty.send(sub_block) == "sub-block-op"
    assert made == ["instances", "sub-blocks"]


def test_the_sdk_is_imported_without_googles_future_warning(monkeypatch: pytest.MonkeyPatch):
    """google-api-core warns (FutureWarning) about Python versions Google stops supporting when
    compute_v1 is imported: `sdk()` hides that one warning, and only that one."""
    import types
    import warnings

    raised = [
        (FutureWarning, "google.api_core._python_version_support"),
        (FutureWarning, "somelib"),
        (DeprecationWarning, "google.auth"),
    ]

    class Cloud(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            if name != "compute_v1":
                raise AttributeError(name)
            for category, module in raised:
                warnings.warn_explicit("support ends", category, "x.py", 1, module=module)
            return "the compute_v1 module"

    monkeypatch.setitem(sys.modules, "google.cloud", Cloud("google.cloud"))
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        assert faulty.sdk() == "the compute_v1 module"
        warnings.warn_explicit("after", FutureWarning, "x.py", 2, module="google.api_core")
    assert [(w.category, str(w.message)) for w in shown] == [
        (FutureWarning, "support ends"),  # somelib's
        (DeprecationWarning, "support ends"),
        (FutureWarning, "after"),  # outside sdk(): shown
    ]
