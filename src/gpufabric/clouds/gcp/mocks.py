"""What GCP fills in under the plan's recording mocks (gpufabric.plan.mocks)."""

from __future__ import annotations

import ipaddress
from typing import Any

from gpufabric.plan.mocks import MockFacts, Recorded


def computed(
    typ: str, name: str, inputs: dict[str, Any], records: list[Recorded], facts: MockFacts
) -> dict[str, Any]:
    """What GCP fills in for the types whose outputs the GCP component reads."""
    project = inputs.get("project", "my-project")
    out: dict[str, Any] = {
        "selfLink": f"https://www.googleapis.com/compute/v1/projects/{project}/{name}",
        "project": project,
    }
    if typ == "gcp:compute/instance:Instance":
        node = int("".join(ch for ch in name[-4:] if ch.isdigit()) or 0)
        out["networkInterfaces"] = [
            {**nic, "networkIp": f"10.{index}.0.{node % 250 + 2}", "name": f"nic{index}"}
            for index, nic in enumerate(inputs.get("networkInterfaces", []))
        ]
    if typ == "gcp:compute/instanceGroupManager:InstanceGroupManager":
        zone = inputs.get("zone")
        out["instanceGroup"] = f"projects/{project}/zones/{zone}/instanceGroups/{name}"
    storage_ips = _psa_addresses(records)
    if typ == "gcp:lustre/instance:Instance":
        out["mountPoint"] = f"{storage_ips[0]}@tcp:/{inputs.get('filesystem')}"
    if typ == "gcp:parallelstore/instance:Instance":
        out["accessPoints"] = storage_ips[:3]
    if typ == "gcp:filestore/instance:Instance":
        out["networks"] = [
            {**network, "ipAddresses": storage_ips[:1]} for network in inputs.get("networks", [])
        ]
    return out


def _psa_addresses(records: list[Recorded]) -> list[str]:
    """Addresses inside the recorded private-service-access range (where GCP puts storage)."""
    for record in records:
        if record.type == "gcp:compute/globalAddress:GlobalAddress":
            net = ipaddress.IPv4Network(
                f"{record.inputs.get('address')}/{int(record.inputs.get('prefixLength', 24))}"
            )
            return [str(net.network_address + offset) for offset in (2, 3, 4)]
    return ["10.0.0.2", "10.0.0.3", "10.0.0.4"]


def answer(token: str, facts: MockFacts) -> dict[str, Any]:
    """No GCP function call needs an answer under the mocks."""
    return {}
