"""The output shape every cloud's cluster component shares.

The same five outputs on AWS, GCP and Azure, so tune-fabric.yml and the dynamic inventory
read one shape; what differs by fabric is said by `inventory["fabric"]`, not hidden.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import pulumi

from gpufabric.catalog import InstanceType


@dataclass
class ClusterOutputs:
    nodes: pulumi.Output[dict[str, Any]]
    """{"kind": "autoscaling-group" | "instances" | ..., "name": ..., "count": N, "instanceType": ...}"""
    addresses: pulumi.Output[list[str]]
    """Private fabric addresses where known at deploy time ([] for a group: see inventory)."""
    network: pulumi.Output[dict[str, Any]]
    """Partitions: network id, subnets by role, security groups / firewalls, placement."""
    storage: pulumi.Output[dict[str, Any] | None]
    """{"type", "dnsName", "mountName", "mountPoint", "mountCommand"} or None."""
    inventory: pulumi.Output[dict[str, Any]]
    """What the dynamic inventory needs: cloud, region, fabric, encryption, how to find nodes."""

    def register(self, component: pulumi.ComponentResource) -> None:
        """The component's registered outputs: the same four on every cloud."""
        component.register_outputs(
            {name: getattr(self, name) for name in ("nodes", "network", "storage", "inventory")}
        )

    def export(self, secrets: Collection[str] = ()) -> None:
        """Export the outputs; one that holds a secret config value is exported as a secret
        (encrypted in the state, "[secret]" in `pulumi stack output`)."""
        for name in ("nodes", "addresses", "network", "storage", "inventory"):
            pulumi.export(name, keep_secret(getattr(self, name), secrets))


def holds(value: Any, secrets: Collection[str]) -> bool:
    """Whether `value` (JSON-like) contains one of the secret texts."""
    if isinstance(value, dict):
        return any(holds(k, secrets) or holds(v, secrets) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(holds(v, secrets) for v in value)
    return value is not None and any(s in str(value) for s in secrets)


def keep_secret(output: pulumi.Input[Any], secrets: Collection[str]) -> pulumi.Output[Any]:
    """`output`, made secret when its value holds a secret config value."""
    out = pulumi.Output.from_input(output)
    if not secrets:
        return out
    return out.apply(lambda v: pulumi.Output.secret(v) if holds(v, secrets) else v)


def check_instance(args_name: str, cloud: str, config_type: str, itype: InstanceType) -> None:
    """Constructor check shared by the components: the catalog entry is this cloud's and the
    config's; names the bad input."""
    if itype.cloud != cloud or getattr(itype, cloud) is None:
        raise ValueError(f"{args_name}.instance: {itype.name} is a {itype.cloud} type, not {cloud}")
    if config_type != itype.name:
        raise ValueError(
            f"{args_name}.instance: {itype.name} does not match config instanceType {config_type}"
        )
