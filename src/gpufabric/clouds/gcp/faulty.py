"""Day 2: report a bad host or sub-block to Compute Engine (only on an explicit --send).

Requests as google-cloud-compute 1.48.0 defines them:
- a host: `instances.reportHostAsFaulty` (InstancesClient.report_host_as_faulty) with
  InstancesReportHostAsFaultyRequest{disruptionSchedule IMMEDIATE | FUTURE,
  faultReasons[{behavior, description}]};
- a sub-block: `reservationSubBlocks.reportFaulty` (ReservationSubBlocksClient.report_faulty)
  with ReservationSubBlocksReportFaultyRequest{disruptionSchedule IMMEDIATE, failureComponent
  MULTIPLE_FAULTY_HOSTS | NVLINK_SWITCH, faultReasons[{behavior, description}]}.
The values allowed below are those types' enums (a test compares them with the installed SDK).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpufabric.clouds.gcp.settings import GcpStackConfig
from gpufabric.errors import Arg, ArgumentError, UserError
from gpufabric.inputs.formats import parse_json

HOST_BEHAVIORS = ("CHIP_ERROR", "PERFORMANCE", "SILENT_DATA_CORRUPTION", "UNRECOVERABLE_GPU_ERROR")
HOST_SCHEDULES = ("IMMEDIATE", "FUTURE")
SUB_BLOCK_BEHAVIORS = ("GPU_ERROR", "PERFORMANCE", "SILENT_DATA_CORRUPTION", "SWITCH_FAILURE")
SUB_BLOCK_COMPONENTS = ("MULTIPLE_FAULTY_HOSTS", "NVLINK_SWITCH")
SUB_BLOCK_SCHEDULES = ("IMMEDIATE",)
MAX_DESCRIPTION = 1000  # ours: one readable line (the API documents no limit)

_INSTANCE_RE = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
_SUB_BLOCK_RE = re.compile(
    r"^projects/(?P<project>[a-z][a-z0-9-]{4,28}[a-z0-9])/reservations/(?P<reservation>[a-z0-9-]+)"
    r"/reservationBlocks/(?P<block>[a-z0-9-]+)/reservationSubBlocks/(?P<sub>[a-z0-9-]+)$"
)


@dataclass(frozen=True)
class FaultReport:
    method: (
        str  # what is called: "instances.reportHostAsFaulty" | "reservationSubBlocks.reportFaulty"
    )
    request: Any  # the compute_v1 request object

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "request": parse_json(
                type(self.request).to_json(self.request), where=type(self.request).__name__
            ),
        }


def sdk() -> Any:
    """google.cloud.compute_v1, without google-api-core's Python-version FutureWarning on the
    user's terminal (it concerns Google's support, not this command)."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, module="google")
        from google.cloud import compute_v1

    return compute_v1


def _one_of(argument: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ArgumentError(argument, f"choose one of {', '.join(allowed)}", value=repr(value))
    return value


def _description(text: str) -> str:
    text = text.strip()
    if not text or "\n" in text or len(text) > MAX_DESCRIPTION:
        raise ArgumentError("description", f"one line of 1-{MAX_DESCRIPTION} characters")
    return text


def fault_report(
    cfg: GcpStackConfig,
    *,
    host: str | None,
    block: str | None,
    behavior: str,
    description: str,
    component: str | None = None,
    schedule: str = "IMMEDIATE",
) -> FaultReport:
    """The request that reports `host` (an instance name) or `block` (a sub-block path)."""
    from gpufabric.extras import require

    require("google.cloud.compute_v1", "reporting a faulty host or sub-block")
    compute_v1 = sdk()

    if (host is None) == (block is None):
        raise UserError(
            "name one of ", Arg("host"), " INSTANCE or ", Arg("block"), " SUB_BLOCK_PATH"
        )
    text = _description(description)
    if host is not None:
        # fullmatch: `$` alone also matches before a final newline
        if not _INSTANCE_RE.fullmatch(host):
            raise ArgumentError("host", "not a Compute Engine instance name", value=repr(host))
        if component is not None:
            raise UserError(
                Arg("component"), " is for a sub-block (", Arg("block"), "), not a host"
            )
        body = compute_v1.InstancesReportHostAsFaultyRequest(
            disruption_schedule=_one_of("disruption", schedule, HOST_SCHEDULES),
            fault_reasons=[
                compute_v1.InstancesReportHostAsFaultyRequestFaultReason(
                    behavior=_one_of("behavior", behavior, HOST_BEHAVIORS), description=text
                )
            ],
        )
        request = compute_v1.ReportHostAsFaultyInstanceRequest(
            project=cfg.gcp.project,
            zone=cfg.zone,
            instance=host,
            instances_report_host_as_faulty_request_resource=body,
        )
        return FaultReport("instances.reportHostAsFaulty", request)
    assert block is not None
    match = _SUB_BLOCK_RE.fullmatch(block)
    if not match:
        raise ArgumentError(
            "block",
            "expected projects/P/reservations/R/reservationBlocks/B/reservationSubBlocks/S "
            "(as `gpufabric capacity plan` prints it)",
            value=repr(block),
        )
    body = compute_v1.ReservationSubBlocksReportFaultyRequest(
        disruption_schedule=_one_of("disruption", schedule, SUB_BLOCK_SCHEDULES),
        failure_component=_one_of(
            "component", component or "MULTIPLE_FAULTY_HOSTS", SUB_BLOCK_COMPONENTS
        ),
        fault_reasons=[
            compute_v1.ReservationSubBlocksReportFaultyRequestFaultReason(
                behavior=_one_of("behavior", behavior, SUB_BLOCK_BEHAVIORS), description=text
            )
        ],
    )
    request = compute_v1.ReportFaultyReservationSubBlockRequest(
        project=match["project"],
        zone=cfg.zone,
        parent_name=f"reservations/{match['reservation']}/reservationBlocks/{match['block']}",
        reservation_sub_block=match["sub"],
        reservation_sub_blocks_report_faulty_request_resource=body,
    )
    return FaultReport("reservationSubBlocks.reportFaulty", request)


def send(report: FaultReport, client: Any = None) -> str:
    """Send the report; the operation's name. Errors are one line."""
    compute_v1 = sdk()
    from google.api_core.exceptions import GoogleAPIError
    from google.auth.exceptions import GoogleAuthError

    host = report.method == "instances.reportHostAsFaulty"
    if client is None:
        client = compute_v1.InstancesClient() if host else compute_v1.ReservationSubBlocksClient()
    call = client.report_host_as_faulty if host else client.report_faulty
    try:
        operation = call(request=report.request)
    except (GoogleAPIError, GoogleAuthError) as exc:
        raise UserError(f"gcp {report.method}: {str(exc).splitlines()[0]}") from None
    return str(getattr(operation, "name", operation))
