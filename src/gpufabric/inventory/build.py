"""Ansible JSON inventory (the `--list` shape) from stack outputs and discovered nodes."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gpufabric.clouds import registry
from gpufabric.discovery import Node
from gpufabric.stack_outputs import StackOutputs

TARGET_GROUP = "gpu_nodes"


def group_name(prefix: str, raw: str) -> str:
    """A valid Ansible group name: 'cluster_aws_h100', 'leaf_nn_3333333333example'."""
    return f"{prefix}_" + re.sub(r"[^A-Za-z0-9_]", "_", raw).strip("_").lower()


def inventory(
    outputs: StackOutputs, nodes: Sequence[Node], leaf_map: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Groups: gpu_nodes (the target, with the gpufabric_* switches), cluster_<name>,
    leaf_<id> where the leaf is known, partition_<n> where the cloud splits the nodes into partitions.

    `leaf_map` (host name or address -> leaf) wins over what discovery found."""
    cluster = group_name("cluster", outputs.cluster.name)
    hostvars: dict[str, dict[str, Any]] = {}
    extra: dict[str, list[str]] = {}
    for node in nodes:
        hv: dict[str, Any] = {"ansible_host": node.address, "gpufabric_node_group": node.group}
        if node.instance_id:
            hv["gpufabric_instance_id"] = node.instance_id
        leaf = (leaf_map or {}).get(node.name) or (leaf_map or {}).get(node.address) or node.leaf
        if leaf:
            hv["gpufabric_leaf"] = leaf
            extra.setdefault(group_name("leaf", leaf), []).append(node.name)
        if node.nvlink_domain:
            hv["gpufabric_nvlink_domain"] = node.nvlink_domain
        if node.partition is not None:
            hv["gpufabric_partition"] = node.partition
            extra.setdefault(f"partition_{node.partition}", []).append(node.name)
        hostvars[node.name] = hv
    names = [n.name for n in nodes]
    group_vars = outputs.group_vars()
    # with every leaf known the topology role reads the inventory; else it asks the cloud
    all_leaves = all("gpufabric_leaf" in hv for hv in hostvars.values())
    group_vars["gpufabric_topology_source"] = (
        "inventory" if all_leaves else registry.get(outputs.cluster.cloud).topology_source
    )
    inv: dict[str, Any] = {
        "_meta": {"hostvars": hostvars},
        "all": {"children": ["ungrouped", TARGET_GROUP, cluster, *sorted(extra)]},
        TARGET_GROUP: {"hosts": names, "vars": group_vars},
        cluster: {"hosts": names},
    }
    for group, members in sorted(extra.items()):
        inv[group] = {"hosts": members}
    return inv


def unmatched(leaf_map: Mapping[str, str], nodes: Sequence[Node]) -> list[str]:
    """The leaf map's keys that name no node (neither its name nor its address): a typo there
    would otherwise leave that node's leaf to discovery without a word."""
    known = {n.name for n in nodes} | {n.address for n in nodes}
    return [key for key in leaf_map if key not in known]
