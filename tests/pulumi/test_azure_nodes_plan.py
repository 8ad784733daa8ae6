"""Azure nodes under the recording mocks, past what the two stacks' golden plans show: the
user's own user data, the boot bundle's place and tags, one node, one VM per scale set."""

from __future__ import annotations

import base64

from tests.pulumi.plans import plan_for
from tests.unit.test_cluster_wiring import check_tree, planned

from gpufabric.plan import Plan, PlannedResource

STACK = "azure-ndv5"
VMSS = "azure-native:compute:VirtualMachineScaleSet"
SCRIPT = "#!/bin/bash\necho 'node ready' > /var/run/ready\n"
TEAM = 'gpufabric:tags={"team": "llm-training"}'


def scale_sets(plan: Plan) -> list[PlannedResource]:
    return sorted(plan.of_type(VMSS), key=lambda r: r.name)


def os_profile(scale_set: PlannedResource) -> dict:
    return scale_set.inputs["virtualMachineProfile"]["osProfile"]


def test_the_users_user_data_reaches_every_scale_set_as_base64_custom_data() -> None:
    plan = plan_for(
        STACK,
        f"gpufabric:userData={SCRIPT}",
        "gpufabric:nodes=150",
        "gpufabric:azure.allowSplit=true",
    )
    sent = [os_profile(s)["customData"] for s in scale_sets(plan)]
    assert sent == [base64.b64encode(SCRIPT.encode()).decode()] * 2
    assert base64.b64decode(sent[0]).decode() == SCRIPT


def test_without_user_data_or_boot_no_custom_data_is_sent() -> None:
    assert all("customData" not in os_profile(s) for s in scale_sets(plan_for(STACK)))


def test_the_boot_bundle_sits_under_the_cluster_and_carries_the_stacks_tags() -> None:
    plan, tree = planned(STACK, "gpufabric:boot.enabled=true", TEAM)
    check_tree(plan, tree, "azure")
    node_tags = dict(scale_sets(plan)[0].inputs["tags"])
    assert node_tags.pop("gpufabric:role") == "gpu-node"
    assert node_tags.pop("gpufabric:ibPartition") == "0"
    assert node_tags["team"] == "llm-training"
    tagged = [
        r
        for r in plan.resources
        if r.type.startswith("azure-native:storage:") and "tags" in r.inputs
    ]
    assert tagged, "the boot storage account carries no tags"
    assert all(r.inputs["tags"] == node_tags for r in tagged)


def test_one_node_is_one_scale_set_of_one_vm_in_partition_zero() -> None:
    plan = plan_for(STACK, "gpufabric:nodes=1")
    (only,) = scale_sets(plan)
    assert only.inputs["sku"]["capacity"] == 1
    assert only.inputs["vmScaleSetName"] == f"{STACK}-ib0"
    assert os_profile(only)["computerNamePrefix"] == f"{STACK}-ib0-"
    assert plan.outputs["nodes"]["groups"] == [
        {"count": 1, "kind": "scale-set", "members": [], "name": f"{STACK}-ib0", "partition": 0}
    ]


def test_a_limit_of_one_vm_per_set_gives_each_node_its_own_partition_and_prefix() -> None:
    plan = plan_for(
        STACK,
        "gpufabric:nodes=3",
        "gpufabric:azure.maxVmsPerScaleSet=1",
        "gpufabric:azure.allowSplit=true",
    )
    sets = scale_sets(plan)
    assert [s.inputs["sku"]["capacity"] for s in sets] == [1, 1, 1]
    assert [s.inputs["tags"]["gpufabric:ibPartition"] for s in sets] == ["0", "1", "2"]
    assert [os_profile(s)["computerNamePrefix"] for s in sets] == [
        f"{STACK}-ib{i}-" for i in range(3)
    ]
    groups = plan.outputs["nodes"]["groups"]
    assert [(g["name"], g["partition"], g["count"]) for g in groups] == [
        (f"{STACK}-ib{i}", i, 1) for i in range(3)
    ]
