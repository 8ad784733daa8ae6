"""GCP network wiring under mocks: what the stacks' defaults do not show (flow logs' settings,
the choices a config turns on or off), each read from the plan `pulumi up` would send."""

from __future__ import annotations

from .plans import plan_for

SUBNET = "gcp:compute/subnetwork:Subnetwork"
MEGA, ULTRA = "gcp-a3-mega", "gcp-a3-ultra"


def test_flow_logs_record_every_regular_subnet_every_5_seconds_with_all_metadata() -> None:
    plan = plan_for(MEGA, "gpufabric:network.flowLogs={}")
    logs = {s.name: s.inputs.get("logConfig") for s in plan.of_type(SUBNET)}
    expected = {
        "aggregationInterval": "INTERVAL_5_SEC",
        "flowSampling": 1,
        "metadata": "INCLUDE_ALL_METADATA",
    }
    # the host, management and each GPU VPC's subnet: none is RDMA, so every one is logged
    assert len(logs) == 10
    assert all(log == expected for log in logs.values()), logs
