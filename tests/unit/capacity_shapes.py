"""Synthetic capacity written out in each cloud's real output shape (constructed, not captured).

Field names come from the clouds' own SDKs: botocore's EC2 service model (checked in the
tests), google-cloud-compute's types serialized with `to_json`, and the `oci` SDK's models
turned into the OCI CLI's spelling (its `to_dict`: '_' -> '-', under {"data": {"items"}}).
"""

from __future__ import annotations

import json
from typing import Any

from gpufabric.capacity.model import Capacity

ZONE = "us-east-1a"
ITYPE = "p5.48xlarge"


def aws_docs(cap: Capacity) -> list[tuple[str, Any]]:
    """describe-capacity-reservations, -topology and -block-status for `cap`'s units.

    Unhealthy units become capacity blocks whose interconnect is impaired, or pending
    reservations (alternately)."""
    reservations, topology, statuses = [], [], []
    for i, unit in enumerate(cap.units):
        rid = f"cr-{i:017x}"
        block = f"cb-{i:017x}" if not unit.healthy and i % 2 else None
        state = "pending" if not unit.healthy and not block else "active"
        kind = "capacity-block" if block or unit.group == "capacity-block" else "default"
        reservation = {
            "CapacityReservationId": rid,
            "OwnerId": "123456789012",
            "AvailabilityZone": ZONE,
            "AvailabilityZoneId": "use1-az1",
            "InstanceType": ITYPE,
            "InstancePlatform": "Linux/UNIX",
            "TotalInstanceCount": unit.free + 2,
            "AvailableInstanceCount": unit.free,
            "State": state,
            "InstanceMatchCriteria": "targeted",
            "ReservationType": kind,
        }
        if block:
            reservation["CapacityBlockId"] = block
            statuses.append(
                {"CapacityBlockId": block, "InterconnectStatus": "impaired", "TotalCapacity": 4}
            )
        reservations.append(reservation)
        spine = f"nn-spine{len(unit.leaf) % 3}"
        topology.append(
            {
                "CapacityReservationId": rid,
                "State": state,
                "InstanceType": ITYPE,
                "NetworkNodes": [spine, f"nn-agg-{unit.leaf}", f"nn-{unit.leaf}"],
                "AvailabilityZone": ZONE,
                "AvailabilityZoneId": "use1-az1",
            }
        )
    return [
        ("reservations.json", {"CapacityReservations": reservations}),
        ("topology.json", {"CapacityReservations": topology}),
        ("status.json", {"CapacityBlockStatuses": statuses}),
    ]


GCP_PROJECT, GCP_ZONE = "my-project", "us-central1-b"


def gcp_sub_block(reservation: str, block: str, name: str, **fields: Any) -> Any:
    from google.cloud import compute_v1

    link = (
        f"https://www.googleapis.com/compute/v1/projects/{GCP_PROJECT}/zones/{GCP_ZONE}"
        f"/reservations/{reservation}/reservationBlocks/{block}/reservationSubBlocks/{name}"
    )
    return compute_v1.ReservationSubBlock(name=name, self_link=link, zone=GCP_ZONE, **fields)


def gcp_docs(cap: Capacity) -> list[tuple[str, Any]]:
    """`gcloud compute reservations sub-blocks list --format=json` per block for `cap`'s units
    (one sub-block per unit; 4 sub-blocks per block). Unhealthy units are DEGRADED."""
    from google.cloud import compute_v1

    by_block: dict[str, list[Any]] = {}
    for i, unit in enumerate(cap.units):
        block = f"block-{i // 4}"
        used = 18 - unit.free if unit.free <= 18 else 0
        sub = gcp_sub_block(
            "res-a",
            block,
            f"sub-{i}",
            count=max(18, unit.free),
            in_use_count=used,
            in_use_host_count=used,
            status="READY",
            health_info=compute_v1.ReservationSubBlockHealthInfo(
                health_status="HEALTHY" if unit.healthy else "DEGRADED"
            ),
            physical_topology=compute_v1.ReservationSubBlockPhysicalTopology(
                cluster="c1", block=f"pb{i // 4}", sub_block=f"ps-{unit.leaf}"
            ),
        )
        by_block.setdefault(block, []).append(
            json.loads(compute_v1.ReservationSubBlock.to_json(sub))
        )
    return [(f"{b}.json", items) for b, items in by_block.items()]


OCI_SHAPE = "BM.GPU.H100.8"


def oci_cli(models: list[Any]) -> dict[str, Any]:
    """What the OCI CLI prints for a list call: to_dict with '-' for '_', under data.items."""
    import oci

    def kebab(value: Any) -> Any:
        if isinstance(value, dict):
            return {k.replace("_", "-"): kebab(v) for k, v in value.items()}
        if isinstance(value, list):
            return [kebab(v) for v in value]
        return value

    return {"data": {"items": [kebab(oci.util.to_dict(m)) for m in models]}}


def oci_docs(cap: Capacity) -> list[tuple[str, Any]]:
    """bare-metal-host list output: per unit (network block) `free` AVAILABLE hosts, two busy
    hosts, and for an unhealthy unit one DEGRADED host."""
    from oci.core.models import ComputeBareMetalHostSummary

    hosts = []
    for i, unit in enumerate(cap.units):
        island, block = f"ocid1.island.{unit.group}", f"ocid1.block.{unit.id}"
        states = ["AVAILABLE"] * unit.free + ["BUSY", "BUSY"]
        if not unit.healthy:
            states.append("DEGRADED")
        for j, state in enumerate(states):
            hosts.append(
                ComputeBareMetalHostSummary(
                    id=f"ocid1.host.{i}.{j}",
                    compute_capacity_topology_id="ocid1.topology.t",
                    compute_hpc_island_id=island,
                    compute_network_block_id=block,
                    compute_local_block_id=f"ocid1.local.{i}.{j // 8}",
                    instance_id=f"ocid1.instance.{i}.{j}" if state == "BUSY" else None,
                    instance_shape=OCI_SHAPE,
                    lifecycle_state="ACTIVE",
                    lifecycle_details="AVAILABLE" if state == "BUSY" else state,
                )
            )
    return [("hosts.json", oci_cli(hosts))]
