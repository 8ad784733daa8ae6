"""The Azure and Nebius cluster components as Pulumi records them: one `gpufabric:<cloud>:Cluster`
per stack with every resource under it, its registered outputs the stack's exports, the
defaults a stack may leave out (resource group, storage, NAT), and the deploy-time checks of a
component used without the CLI, each one exact line naming the bad input."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi_azure_native.resources import ResourceGroup as RgResource
from tests.unit.test_cluster_wiring import check_tree, planned

from gpufabric.catalog import lookup
from gpufabric.clouds.azure.cluster import AzureCluster, AzureClusterArgs
from gpufabric.clouds.azure.cluster import _check_args as azure_check
from gpufabric.clouds.azure.settings import AzureStackConfig
from gpufabric.clouds.nebius.cluster import NebiusCluster, NebiusClusterArgs
from gpufabric.clouds.nebius.cluster import _check_args as nebius_check
from gpufabric.clouds.nebius.settings import NebiusStackConfig
from gpufabric.config.model import CapacityConfig, NoStorage
from gpufabric.plan.mocks import MockFacts, RecordingMocks

RG = "azure-native:resources:ResourceGroup"
NAT = "azure-native:network:NatGateway"
AMLFS = "azure-native:storagecache:AmlFilesystem"
NEB_FS = "nebius:index/computeV1Filesystem:ComputeV1Filesystem"
NEB_VM = "nebius:index/computeV1Instance:ComputeV1Instance"
NEB_GC = "nebius:index/computeV1GpuCluster:ComputeV1GpuCluster"
NO_STORAGE = 'gpufabric:storage={"type": "none"}'


def _one(plan: Any, token: str) -> Any:
    (found,) = plan.of_type(token)
    return found


# ------------------------------------------------------------------ Azure


@pytest.mark.parametrize(
    ("stack", "overrides"),
    [
        ("azure-ndv5", ()),
        ("azure-ndv5", ("gpufabric:nodes=256", "gpufabric:azure.allowSplit=true")),
        ("azure-ndv5-h200", ("gpufabric:network.egress=none", NO_STORAGE)),
    ],
)
def test_azure_every_resource_sits_under_one_cluster_component(
    stack: str, overrides: tuple[str, ...]
) -> None:
    plan, tree = planned(stack, *overrides)
    check_tree(plan, tree, "azure")


def test_azure_resource_group_defaults_to_the_cluster_name_and_holds_everything() -> None:
    plan, tree = planned(
        "azure-ndv5", "gpufabric:azure.resourceGroup=null", "gpufabric:clusterName=train-a"
    )
    check_tree(plan, tree, "azure")
    group = _one(plan, RG)
    assert group.name == "train-a-rg"
    assert group.inputs["resourceGroupName"] == "train-a-rg"
    assert group.inputs["location"] == "eastus"
    assert group.inputs["tags"] == {"gpufabric:cluster": "train-a", "gpufabric:stack": "azure-ndv5"}
    assert {r.inputs["resourceGroupName"] for r in plan.resources if r.type != RG} == {"train-a-rg"}
    assert plan.outputs["cluster"]["resourceGroup"] == "train-a-rg"
    assert plan.outputs["network"]["resourceGroup"] == "train-a-rg"


def test_azure_outputs_name_the_nat_and_no_storage_when_there_is_none() -> None:
    plan = planned("azure-ndv5")[0]
    assert plan.outputs["network"]["natGateway"] == _one(plan, NAT).id
    bare = planned("azure-ndv5", "gpufabric:network.egress=none", NO_STORAGE)[0]
    assert bare.of_type(NAT) == [] and bare.of_type(AMLFS) == []
    network = bare.outputs["network"]
    assert "natGateway" not in network or network["natGateway"] is None
    assert bare.outputs.get("storage") is None
    assert network["subnetCidrs"] == {
        "compute": "10.0.0.0/18",
        "storage": "10.0.64.0/24",
        "management": "10.0.65.0/24",
    }


def _azure_cfg(**update: Any) -> AzureStackConfig:
    cfg = planned("azure-ndv5")[0].config
    assert isinstance(cfg, AzureStackConfig)
    return cfg.model_copy(update=update)


def test_azure_component_refusals_are_one_exact_line_each() -> None:
    itype = lookup("Standard_ND96isr_H100_v5")
    good = _azure_cfg()
    azure_check(good, itype)  # the shipped stack passes
    split = good.model_copy(
        update={"nodes": 201, "azure": good.azure.model_copy(update={"max_vms_per_scale_set": 100})}
    )
    with pytest.raises(ValueError) as err:
        azure_check(split, itype)
    assert str(err.value) == (
        "AzureClusterArgs.config: nodes=201 needs 3 scale sets (maxVmsPerScaleSet=100) "
        "but allowSplit is false"
    )
    allowed = split.model_copy(
        update={"azure": split.azure.model_copy(update={"allow_split": True})}
    )
    azure_check(allowed, itype)
    reserved = CapacityConfig.model_construct(type="capacity-block", reservation_id="x")
    with pytest.raises(ValueError) as err:
        azure_check(good.model_copy(update={"capacity": reserved}), itype)
    assert str(err.value) == (
        "AzureClusterArgs.config: capacity type capacity-block cannot be used with "
        "InfiniBand scale sets on Azure; use on-demand"
    )
    fsx = NoStorage.model_construct(type="fsx-lustre")
    with pytest.raises(ValueError) as err:
        azure_check(good.model_copy(update={"storage": fsx}), itype)
    assert str(err.value) == "AzureClusterArgs.config: storage type fsx-lustre is not an Azure one"
    azure_check(good.model_copy(update={"storage": NoStorage(type="none")}), itype)
    with pytest.raises(ValueError) as err:
        azure_check(good, lookup("Standard_ND96isr_H200_v5"))
    assert str(err.value) == (
        "AzureClusterArgs.instance: Standard_ND96isr_H200_v5 does not match config "
        "instanceType Standard_ND96isr_H100_v5"
    )


def test_azure_component_checks_before_building_anything() -> None:
    mocks = RecordingMocks(MockFacts("eastus", "1"))
    pulumi.runtime.set_mocks(mocks, preview=False)
    cfg = _azure_cfg(storage=NoStorage.model_construct(type="nebius-filesystem"))
    with pytest.raises(ValueError, match="storage type nebius-filesystem is not an Azure one"):
        AzureCluster("bad", AzureClusterArgs(config=cfg, instance=lookup(cfg.instance_type)))
    assert mocks.records == []


def test_azure_component_takes_the_parent_a_program_gives_it() -> None:
    pulumi.runtime.set_mocks(RecordingMocks(MockFacts("eastus", "1")), preview=False)
    cfg = _azure_cfg()
    outer = pulumi.ComponentResource("test:index:Outer", "outer")
    cluster = AzureCluster(
        "inner",
        AzureClusterArgs(config=cfg, instance=lookup(cfg.instance_type)),
        pulumi.ResourceOptions(parent=outer),
    )
    assert outer._childResources == {cluster}
    assert any(isinstance(c, RgResource) for c in cluster._childResources)


# ------------------------------------------------------------------ Nebius


@pytest.mark.parametrize("overrides", [(), (NO_STORAGE,)])
def test_nebius_every_resource_sits_under_one_cluster_component(
    overrides: tuple[str, ...],
) -> None:
    plan, tree = planned("nebius-h100", *overrides)
    check_tree(plan, tree, "nebius")


def test_nebius_without_storage_builds_no_filesystem_and_exports_none() -> None:
    plan = planned("nebius-h100", NO_STORAGE)[0]
    assert plan.of_type(NEB_FS) == []
    assert plan.outputs.get("storage") is None
    for vm in plan.of_type(NEB_VM):
        assert "filesystems" not in vm.inputs
    # the rest of the cluster is the same: the fabric, the nodes in it, the outputs' network
    (gc,) = plan.of_type(NEB_GC)
    assert gc.inputs["infinibandFabric"] == "fabric-3"
    assert plan.outputs["network"]["placementGroup"] == {
        "kind": "gpu-cluster",
        "gpuClusterId": gc.id,
        "infinibandFabric": "fabric-3",
    }


def test_nebius_storage_output_is_what_a_node_mounts() -> None:
    plan = planned(
        "nebius-h100",
        "gpufabric:storage.mountTag=ckpt",
        "gpufabric:storage.mountPoint=/mnt/ckpt",
        "gpufabric:storage.sizeGib=2048",
    )[0]
    fs = _one(plan, NEB_FS)
    assert plan.outputs["storage"] == {
        "type": "nebius-filesystem",
        "id": fs.id,
        "filesystemType": "NETWORK_SSD",
        "sizeGib": 2048,
        "mountName": "ckpt",
        "mountPoint": "/mnt/ckpt",
        "mountCommand": "mount -t virtiofs ckpt /mnt/ckpt",
    }
    assert fs.inputs["sizeGibibytes"] == 2048
    assert fs.inputs["name"] == "nebius-h100-shared"


def test_nebius_public_ip_is_exported_as_configured() -> None:
    plan = planned("nebius-h100", "gpufabric:nebius.publicIp=true")[0]
    assert plan.outputs["network"]["publicIp"] is True
    for vm in plan.of_type(NEB_VM):
        assert vm.inputs["networkInterfaces"][0]["publicIpAddress"] == {}


def test_nebius_component_check_gives_the_project_and_the_fabric() -> None:
    cfg = planned("nebius-h100")[0].config
    assert isinstance(cfg, NebiusStackConfig)
    itype = lookup(cfg.instance_type)
    assert nebius_check(cfg, itype) == ("project-e00replacewithyourproject", "fabric-3")
    h200 = "gpu-h200-sxm/8gpu-128vcpu-1600gb"
    unnamed = cfg.model_copy(
        update={
            "instance_type": h200,
            "nebius": cfg.nebius.model_copy(update={"infiniband_fabric": None}),
        }
    )
    # no fabric named: the region's only one for the platform
    assert nebius_check(unnamed, lookup(h200)) == ("project-e00replacewithyourproject", "fabric-7")
    with pytest.raises(ValueError) as err:
        nebius_check(cfg, lookup("p5.48xlarge"))
    assert str(err.value) == "NebiusClusterArgs.instance: p5.48xlarge is a aws type, not nebius"


def test_nebius_component_takes_the_parent_a_program_gives_it() -> None:
    pulumi.runtime.set_mocks(RecordingMocks(MockFacts("eu-north1", "eu-north1")), preview=False)
    cfg = planned("nebius-h100")[0].config
    assert isinstance(cfg, NebiusStackConfig)
    outer = pulumi.ComponentResource("test:index:Outer", "outer")
    cluster = NebiusCluster(
        "inner",
        NebiusClusterArgs(config=cfg, instance=lookup(cfg.instance_type)),
        pulumi.ResourceOptions(parent=outer),
    )
    assert outer._childResources == {cluster}
    kinds = {type(c).__name__ for c in cluster._childResources}
    assert {"VpcV1Pool", "VpcV1Network", "VpcV1Subnet", "ComputeV1GpuCluster"} <= kinds
