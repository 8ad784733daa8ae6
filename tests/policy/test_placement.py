"""gpu-nodes-in-placement-group: cluster PG (AWS), compact policy (GCP), PPG (Azure)."""

from __future__ import annotations

import pytest

from gpufabric.policies import check_stack

from .helpers import by_policy, drop, mutate, plan, stack

POLICY = "gpu-nodes-in-placement-group"
ASG = "aws:autoscaling/group:Group"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
PG = "aws:ec2/placementGroup:PlacementGroup"
GCP_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
VMSS = "azure-native:compute:VirtualMachineScaleSet"


def _reasons(view) -> list[str]:
    return [v.reason for v in by_policy(check_stack(view), POLICY)]


def test_aws_without_a_placement_group_is_a_violation() -> None:
    view = mutate(stack("aws-h100"), ASG, lambda p: p.pop("placementGroup"))
    assert _reasons(view) == []  # the launch template still places the nodes
    view = mutate(view, LT, lambda p: p.pop("placement"))
    assert _reasons(view) == [
        "GPU nodes are in no placement group; EFA needs a cluster placement group"
    ]


@pytest.mark.parametrize("overrides", [(), ("gpufabric:nodeGroup=instances", "gpufabric:nodes=2")])
def test_aws_spread_placement_group_is_a_violation(overrides: tuple[str, ...]) -> None:
    view = mutate(stack("aws-h100", *overrides), PG, lambda p: p.update(strategy="spread"))
    reasons = _reasons(view)
    assert reasons and all("strategy 'spread', not 'cluster'" in r for r in reasons)


def test_gcp_instances_without_a_compact_policy_are_violations() -> None:
    instance = "gcp:compute/instance:Instance"
    view = mutate(stack("gcp-a3-mega"), instance, lambda p: p.pop("resourcePolicies"))
    found = by_policy(check_stack(view), POLICY)
    nodes = {f"{instance} {r.name}" for r in view.resources if r.type == instance}
    assert len(nodes) == plan("gcp-a3-mega").config.nodes
    assert {v.resource for v in found} == nodes
    assert all("has no compact placement resource policy" in v.reason for v in found)


def test_gcp_spread_policy_is_a_violation() -> None:
    view = mutate(
        stack("gcp-a3-mega"),
        GCP_POLICY,
        lambda p: p["groupPlacementPolicy"].update(collocation="UNSPECIFIED_COLLOCATION"),
    )
    reasons = _reasons(view)
    assert reasons and all("is compact" in r for r in reasons)


def test_gcp_group_needs_its_workload_policy() -> None:
    view = mutate(
        stack("gcp-a3-ultra"),
        "gcp:compute/instanceGroupManager:InstanceGroupManager",
        lambda p: p.pop("resourcePolicies"),
    )
    assert _reasons(view) == [
        "GPU template gcp-a3-ultra-node has no compact placement resource policy"
    ]
    view = mutate(
        stack("gcp-a3-ultra"),
        GCP_POLICY,
        lambda p: p["workloadPolicy"].update(type="HIGH_AVAILABILITY"),
    )
    assert len(_reasons(view)) == 1


def test_azure_scale_set_needs_a_ppg_and_one_placement_group() -> None:
    view = mutate(stack("azure-ndv5"), VMSS, lambda p: p.update(singlePlacementGroup=False))
    assert _reasons(view) == [
        "singlePlacementGroup is not true: InfiniBand spans one placement group only"
    ]
    view = mutate(stack("azure-ndv5"), VMSS, lambda p: p.pop("proximityPlacementGroup"))
    assert _reasons(view) == ["GPU nodes are in no proximity placement group"]


def test_dropping_the_placement_resource_itself_is_not_hidden() -> None:
    # the reference stays but points at nothing in the stack: trusted as an existing group,
    # so the policy does not fail; the Pulumi engine would fail the deployment instead
    view = drop(stack("aws-h100"), PG)
    assert _reasons(view) == []
