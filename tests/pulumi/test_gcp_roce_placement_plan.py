"""GCP's RoCE firewall and compact placement, planned under mocks: the order Pulumi creates the
RoCE tag key in, and how many VMs each compact placement policy holds at each distance."""

from __future__ import annotations

import re

import pytest
from tests.pulumi.plans import plan_for, registered_dependencies

from gpufabric.clouds.gcp.placement import policy_sizes

MEGA, ULTRA = "gcp-a3-mega", "gcp-a3-ultra"
NETWORK = "gcp:compute/network:Network"
TAG_KEY = "gcp:tags/tagKey:TagKey"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
INSTANCE = "gcp:compute/instance:Instance"
# an Ultra / A4 stack as single instances with compact placement policies (not a MIG placed by
# a workload policy)
AS_INSTANCES = ("gpufabric:nodeGroup=instances", "gpufabric:gcp.maxTopologyDistance=null")


def test_roce_tag_key_is_created_after_the_roce_vpc_it_names() -> None:
    # the key names the VPC by a plain "project/name" string: without the explicit dependency
    # Pulumi could create it first, and GCP refuses a firewall tag key for a missing network
    dependencies = registered_dependencies(ULTRA)
    (key,) = [res for res in dependencies if res[0] == TAG_KEY]
    plan = plan_for(ULTRA)
    (rdma,) = [n for n in plan.of_type(NETWORK) if n.inputs.get("networkProfile")]
    assert (NETWORK, rdma.name) in dependencies[key]


def vm_counts(plan_overrides: tuple[str, ...], stack: str = MEGA) -> list[int]:
    plan = plan_for(stack, *plan_overrides)
    policies = sorted(plan.of_type(POLICY), key=lambda p: p.name)
    return [p.inputs["groupPlacementPolicy"]["vmCount"] for p in policies]


def test_a_single_node_gets_one_compact_policy_of_one_vm() -> None:
    plan = plan_for(MEGA, "gpufabric:nodes=1")
    (policy,) = plan.of_type(POLICY)
    assert policy.name == f"{MEGA}-placement"
    assert policy.inputs["groupPlacementPolicy"]["vmCount"] == 1
    (node,) = plan.of_type(INSTANCE)
    assert node.inputs["resourcePolicies"] == policy.id


def test_nodes_that_fill_whole_policies_get_no_empty_policy() -> None:
    overrides = (*AS_INSTANCES, "gpufabric:nodes=44", "gpufabric:gcp.maxDistance=1")
    assert vm_counts(overrides, ULTRA) == [22, 22]


def test_max_distance_3_is_not_held_to_distance_2s_256_vms() -> None:
    # up to 1,500 VMs per policy at maxDistance 3
    assert vm_counts(("gpufabric:nodes=257", "gpufabric:gcp.maxDistance=3")) == [257]


def test_a4_at_max_distance_2_holds_150_vms_per_policy_not_a3s_256() -> None:
    overrides = (
        *AS_INSTANCES,
        "gpufabric:instanceType=a4-highgpu-8g",
        "gpufabric:nodes=160",
        "gpufabric:gcp.maxDistance=2",
    )
    assert vm_counts(overrides, ULTRA) == [150, 10]


@pytest.mark.parametrize(
    ("nodes", "limit", "sizes"),
    [(1, 22, [1]), (3, 1, [1, 1, 1]), (44, 22, [22, 22]), (45, 22, [22, 22, 1])],
)
def test_policy_sizes_fill_each_policy_before_the_next(
    nodes: int, limit: int, sizes: list[int]
) -> None:
    assert policy_sizes(nodes, limit) == sizes


@pytest.mark.parametrize(("nodes", "limit"), [(0, 256), (16, 0), (-1, 22)])
def test_policy_sizes_refuse_a_count_below_one(nodes: int, limit: int) -> None:
    message = f"nodes ({nodes}) and limit ({limit}) must be positive"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        policy_sizes(nodes, limit)
