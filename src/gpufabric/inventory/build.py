"""Ansible JSON inventory (the `--list` shape) from stack outputs and discovered nodes."""

from __future__ import annotations

import re
from typing import Any

from gpufabric.inventory.aws import Node
from gpufabric.inventory.outputs import StackOutputs

TARGET_GROUP = "gpu_nodes"


def group_name(prefix: str, raw: str) -> str:
    """A valid Ansible group name: 'cluster_aws_h100', 'leaf_nn_3333333333example'."""
    return f"{prefix}_" + re.sub(r"[^A-Za-z0-9_]", "_", raw).strip("_").lower()


def inventory(outputs: StackOutputs, nodes: list[Node]) -> dict[str, Any]:
    """Groups: gpu_nodes (the target, with the gpufabric_* switches), cluster_<name>, leaf_<id>."""
    info = outputs.inventory
    cluster = group_name("cluster", info.cluster)
    hostvars: dict[str, dict[str, Any]] = {}
    leaves: dict[str, list[str]] = {}
    for node in nodes:
        hv: dict[str, Any] = {"ansible_host": node.address}
        if node.instance_id:
            hv["gpufabric_instance_id"] = node.instance_id
        leaf = node.leaf or info.leaves.get(node.name, "") or info.leaves.get(node.address, "")
        if leaf:
            hv["gpufabric_leaf"] = leaf
            leaves.setdefault(group_name("leaf", leaf), []).append(node.name)
        hostvars[node.name] = hv
    names = [n.name for n in nodes]
    inv: dict[str, Any] = {
        "_meta": {"hostvars": hostvars},
        "all": {"children": ["ungrouped", TARGET_GROUP, cluster, *sorted(leaves)]},
        TARGET_GROUP: {
            "hosts": names,
            "vars": {
                "gpufabric_fabric": info.fabric,
                "gpufabric_encryption": info.encryption,
                "gpufabric_cloud": info.cloud,
                "gpufabric_region": info.region,
                "gpufabric_zone": info.zone,
                "gpufabric_cluster": info.cluster,
                "gpufabric_instance_type": info.instance_type,
                "gpufabric_gpus_per_node": info.gpus_per_node,
            },
        },
        cluster: {"hosts": names},
    }
    for leaf, members in sorted(leaves.items()):
        inv[leaf] = {"hosts": members}
    return inv


def from_outputs(
    outputs: StackOutputs, *, ec2: Any = None, topology: bool = True
) -> dict[str, Any]:
    """Addresses from the outputs when the stack knows them, else discovery in the cloud."""
    info = outputs.inventory
    if outputs.addresses:
        nodes = [
            Node(
                name=a, address=a, instance_id="", instance_type=info.instance_type, zone=info.zone
            )
            for a in outputs.addresses
        ]
    elif info.cloud == "aws":
        from gpufabric.inventory import aws

        nodes = aws.discover(
            info.discovery.filters, info.discovery.hostname, info.region, topology=topology, ec2=ec2
        )
    else:
        from gpufabric.errors import UserError

        raise UserError(
            f"inventory.cloud: {info.cloud!r} outputs list no addresses and node "
            "discovery is only implemented for aws"
        )
    return inventory(outputs, nodes)
