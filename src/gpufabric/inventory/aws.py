"""Find an AWS node group's instances (describe_instances) and their leaf switch (topology).

The outputs' `inventory.discovery.filters` are EC2 filters ({name: value}); the hostname
rule says which address names a host. The leaf is the last of `NetworkNodes` from
describe_instance_topology (the AWS user guide lists the nodes top-down, last = the node the
instance attaches to; docs/sources.md A.5 / U.14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpufabric.errors import UserError
from gpufabric.extras import require

TOPOLOGY_BATCH = 100  # DescribeInstanceTopology takes at most 100 instance ids per call


@dataclass(frozen=True)
class Node:
    name: str
    address: str
    instance_id: str
    instance_type: str
    zone: str
    leaf: str = ""


def ec2_filters(filters: dict[str, str]) -> list[dict[str, Any]]:
    return [{"Name": k, "Values": [v]} for k, v in sorted(filters.items())]


def describe_nodes(ec2: Any, filters: dict[str, str], hostname: str) -> list[Node]:
    """Every instance matching the filters, sorted by name."""
    nodes: list[Node] = []
    paginator = ec2.get_paginator("describe_instances")
    for page in paginator.paginate(Filters=ec2_filters(filters)):
        for reservation in page.get("Reservations", []):
            for inst in reservation.get("Instances", []):
                address = inst.get("PrivateIpAddress", "")
                name = {
                    "private-ip-address": address,
                    "private-dns-name": inst.get("PrivateDnsName", ""),
                    "instance-id": inst["InstanceId"],
                }[hostname]
                if not name or not address:
                    continue  # not yet addressed (pending); the next run will see it
                nodes.append(
                    Node(
                        name=name,
                        address=address,
                        instance_id=inst["InstanceId"],
                        instance_type=inst.get("InstanceType", ""),
                        zone=inst.get("Placement", {}).get("AvailabilityZone", ""),
                    )
                )
    return sorted(nodes, key=lambda n: n.name)


def leaves(ec2: Any, instance_ids: list[str]) -> dict[str, str]:
    """instance id -> the network node it attaches to (last NetworkNodes entry)."""
    out: dict[str, str] = {}
    paginator = ec2.get_paginator("describe_instance_topology")
    for start in range(0, len(instance_ids), TOPOLOGY_BATCH):
        batch = instance_ids[start : start + TOPOLOGY_BATCH]
        for page in paginator.paginate(InstanceIds=batch):
            for inst in page.get("Instances", []):
                nodes = inst.get("NetworkNodes") or []
                if nodes:
                    out[inst["InstanceId"]] = nodes[-1]
    return out


def discover(
    filters: dict[str, str], hostname: str, region: str, *, topology: bool = True, ec2: Any = None
) -> list[Node]:
    """Nodes of the group, with leaves where the topology API knows them."""
    if not filters:
        raise UserError("inventory.discovery.filters: empty; the outputs name no way to find nodes")
    if ec2 is None:
        require("boto3", "AWS node discovery")
        import boto3  # only when really talking to AWS

        ec2 = boto3.client("ec2", region_name=region)
    try:
        nodes = describe_nodes(ec2, filters, hostname)
        if topology and nodes:
            leaf = leaves(ec2, [n.instance_id for n in nodes])
            nodes = [Node(**{**n.__dict__, "leaf": leaf.get(n.instance_id, "")}) for n in nodes]
    except Exception as exc:
        if type(exc).__name__ in ("NoCredentialsError", "ClientError", "EndpointConnectionError"):
            raise UserError(f"aws discovery in {region}: {exc}") from None
        raise
    return nodes
