"""What gpufabric's policies read of Sixth: nodes typed by machineType, placed by rack, with an
optional public address; firewall rules that open one TCP port to one source."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.policies.cloud import CloudPolicy
from gpufabric.policies.model import Ingress, Node, Resource, Stack

NODE = "sixth:compute:Node"
RULE = "sixth:network:Rule"


def _machine_type(resource: Resource) -> str | None:
    value = resource.props.get("machineType")
    return value if isinstance(value, str) and value else None


def _public_ip(resource: Resource) -> Iterator[str]:
    if resource.type == NODE and resource.props.get("publicIp"):
        yield "publicIp is set"


def _rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    port = int(props.get("port", 0))
    yield Ingress(str(props.get("source", "0.0.0.0/0")), "tcp", ((port, port),))


def _zones(stack: Stack, node: Node) -> set[str]:
    return {str(node.resource.props.get("zone") or "")}


def _placement(stack: Stack, node: Node) -> str:
    return "" if node.resource.props.get("rack") else "the node is in no rack"


POLICY = CloudPolicy(
    node_types=(NODE,),
    instance_type=_machine_type,
    own_public_ip=_public_ip,
    ingress={RULE: _rule},
    node_zones=_zones,
    placement=_placement,
    words={"gpu-nodes-in-placement-group": "a rack"},
)
