"""The Ansible inventory built from stack outputs and discovered nodes (gpufabric.inventory.build),
in-process: the exact hosts, groups and variables, the leaf map's precedence, and which
topology source the hosts are told to use."""

from __future__ import annotations

import copy
from typing import Any

from gpufabric.discovery import Node
from gpufabric.inventory.build import group_name, inventory, unmatched
from gpufabric.stack_outputs import parse

# what `pulumi stack output --json` prints for a small AWS stack (written out by hand)
OUTPUTS: dict[str, Any] = {
    "cluster": {
        "cloud": "aws",
        "encryption": "provider-native",
        "fabric": "efa",
        "instanceType": "p5.48xlarge",
        "name": "Train-H100.x",
        "region": "us-east-1",
        "stack": "train-h100",
        "zone": "us-east-1a",
    },
    "network": {"vpcId": "vpc-0abc", "subnets": {"fabric": "subnet-0f"}},
    "nodes": {
        "count": 3,
        "groups": [{"count": 3, "kind": "autoscaling-group", "members": [], "name": "g1"}],
    },
    "storage": {
        "type": "fsx-lustre",
        "mountPoint": "/fsx",
        "mountCommand": "mount -t lustre fs@tcp:/x /fsx",
        "dnsName": "fs.example",
    },
}

GROUP_VARS = {
    "gpufabric_cloud": "aws",
    "gpufabric_cluster": "Train-H100.x",
    "gpufabric_stack": "train-h100",
    "gpufabric_region": "us-east-1",
    "gpufabric_zone": "us-east-1a",
    "gpufabric_instance_type": "p5.48xlarge",
    "gpufabric_fabric": "efa",
    "gpufabric_encryption": "provider-native",
}

# listed in name order (discovery sorts them); leaves and partitions deliberately not in order
N1 = Node("ip-10-0-0-1", "10.0.0.1", "g1", "i-01", leaf="nn-b", nvlink_domain="nvl-1", partition=1)
N2 = Node("ip-10-0-0-2", "10.0.0.2", "g1", leaf="nn-a", partition=0)
N3 = Node("ip-10-0-0-3", "10.0.0.3", "g2", "i-03", leaf="nn-b", partition=1)


def outputs(**cluster: Any) -> Any:
    data = copy.deepcopy(OUTPUTS)
    data["cluster"].update(cluster)
    return parse(data)


def test_group_name_is_a_valid_ansible_group_name() -> None:
    assert group_name("cluster", "aws-h100") == "cluster_aws_h100"
    assert group_name("leaf", "_Nn-3333.Example_") == "leaf_nn_3333_example"
    assert group_name("leaf", "XY/z-") == "leaf_xy_z"
    assert group_name("leaf", "c1/b0/s1") == "leaf_c1_b0_s1"


def test_every_group_host_and_variable() -> None:
    inv = inventory(outputs(), [N1, N2, N3])
    hosts = ["ip-10-0-0-1", "ip-10-0-0-2", "ip-10-0-0-3"]
    assert inv == {
        "_meta": {
            "hostvars": {
                "ip-10-0-0-1": {
                    "ansible_host": "10.0.0.1",
                    "gpufabric_node_group": "g1",
                    "gpufabric_instance_id": "i-01",
                    "gpufabric_leaf": "nn-b",
                    "gpufabric_nvlink_domain": "nvl-1",
                    "gpufabric_partition": 1,
                },
                "ip-10-0-0-2": {
                    "ansible_host": "10.0.0.2",
                    "gpufabric_node_group": "g1",
                    "gpufabric_leaf": "nn-a",
                    "gpufabric_partition": 0,
                },
                "ip-10-0-0-3": {
                    "ansible_host": "10.0.0.3",
                    "gpufabric_node_group": "g2",
                    "gpufabric_instance_id": "i-03",
                    "gpufabric_leaf": "nn-b",
                    "gpufabric_partition": 1,
                },
            }
        },
        "all": {
            "children": [
                "ungrouped",
                "gpu_nodes",
                "cluster_train_h100_x",
                "leaf_nn_a",
                "leaf_nn_b",
                "partition_0",
                "partition_1",
            ]
        },
        "gpu_nodes": {
            "hosts": hosts,
            "vars": {**GROUP_VARS, "gpufabric_topology_source": "inventory"},
        },
        "cluster_train_h100_x": {"hosts": hosts},
        "leaf_nn_a": {"hosts": ["ip-10-0-0-2"]},
        "leaf_nn_b": {"hosts": ["ip-10-0-0-1", "ip-10-0-0-3"]},
        "partition_0": {"hosts": ["ip-10-0-0-2"]},
        "partition_1": {"hosts": ["ip-10-0-0-1", "ip-10-0-0-3"]},
    }
    assert list(inv)[:4] == ["_meta", "all", "gpu_nodes", "cluster_train_h100_x"]


def test_a_node_with_nothing_but_a_name_and_an_address() -> None:
    bare = Node("n-1", "10.0.0.9", "g1")
    inv = inventory(outputs(), [bare])
    assert inv["_meta"]["hostvars"] == {
        "n-1": {"ansible_host": "10.0.0.9", "gpufabric_node_group": "g1"}
    }
    assert inv["all"]["children"] == ["ungrouped", "gpu_nodes", "cluster_train_h100_x"]
    assert set(inv) == {"_meta", "all", "gpu_nodes", "cluster_train_h100_x"}


def test_one_node_without_a_leaf_sends_the_topology_role_to_the_cloud() -> None:
    inv = inventory(outputs(), [N1, Node("n-2", "10.0.0.2", "g1")])
    assert inv["gpu_nodes"]["vars"] == {**GROUP_VARS, "gpufabric_topology_source": "aws"}
    assert inv["leaf_nn_b"] == {"hosts": ["ip-10-0-0-1"]}
    # the cloud's own source, by the outputs' cloud
    azure = parse(
        {
            **copy.deepcopy(OUTPUTS),
            "cluster": {**OUTPUTS["cluster"], "cloud": "azure", "fabric": "infiniband"},
        }
    )
    azure_vars = inventory(azure, [Node("n-2", "10.0.0.2", "g1")])["gpu_nodes"]["vars"]
    assert azure_vars["gpufabric_topology_source"] == "ib"


def test_the_leaf_map_wins_by_name_then_by_address() -> None:
    nodes = [N1, N2, N3, Node("n-4", "10.0.0.4", "g1")]
    leaf_map = {
        "ip-10-0-0-1": "by-name",
        "10.0.0.1": "by-address-loses",
        "10.0.0.2": "by-address",
        "10.0.0.4": "for-n-4",
        "no-such-host": "unused",
    }
    inv = inventory(outputs(), nodes, leaf_map)
    leaves = {h: hv.get("gpufabric_leaf") for h, hv in inv["_meta"]["hostvars"].items()}
    assert leaves == {
        "ip-10-0-0-1": "by-name",
        "ip-10-0-0-2": "by-address",
        "ip-10-0-0-3": "nn-b",  # not in the map: what discovery found
        "n-4": "for-n-4",
    }
    assert inv["leaf_by_name"] == {"hosts": ["ip-10-0-0-1"]}
    assert inv["leaf_by_address"] == {"hosts": ["ip-10-0-0-2"]}
    assert "leaf_unused" not in inv and "leaf_by_address_loses" not in inv
    # the map gave n-4 the leaf discovery lacked: every leaf is known now
    assert inv["gpu_nodes"]["vars"]["gpufabric_topology_source"] == "inventory"
    # without a map, n-4 has no leaf and the cloud is asked
    plain = inventory(outputs(), nodes, None)
    assert "gpufabric_leaf" not in plain["_meta"]["hostvars"]["n-4"]
    assert plain["gpu_nodes"]["vars"]["gpufabric_topology_source"] == "aws"


def test_leaf_map_entries_that_name_no_node() -> None:
    leaf_map = {"ip-10-0-0-1": "a", "10.0.0.2": "b", "ip-10-0-0-9": "c", "10.0.0.3 ": "d"}
    assert unmatched(leaf_map, [N1, N2, N3]) == ["ip-10-0-0-9", "10.0.0.3 "]
    assert unmatched({}, [N1]) == []
    assert unmatched({"n-1": "a"}, []) == ["n-1"]
