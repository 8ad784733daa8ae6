"""Nebius plans: the real program under mocks builds the fabric the stack asks for."""

from __future__ import annotations

from tests.pulumi.plans import plan_for

from gpufabric.stack_outputs import parse

NEB_GC = "nebius:index/computeV1GpuCluster:ComputeV1GpuCluster"
NEB_VM = "nebius:index/computeV1Instance:ComputeV1Instance"
NEB_FS = "nebius:index/computeV1Filesystem:ComputeV1Filesystem"


def test_nebius_every_vm_joins_the_gpu_cluster_with_the_filesystem() -> None:
    plan = plan_for("nebius-h100")
    (gc,) = plan.of_type(NEB_GC)
    (fs,) = plan.of_type(NEB_FS)
    vms = plan.of_type(NEB_VM)
    assert gc.inputs["infinibandFabric"] == "fabric-3" and len(vms) == 16
    for vm in vms:
        assert vm.inputs["gpuCluster"] == {"id": gc.id}
        assert vm.inputs["resources"] == {
            "platform": "gpu-h100-sxm",
            "preset": "8gpu-128vcpu-1600gb",
        }
        (attached,) = vm.inputs["filesystems"]
        assert attached["existingFilesystem"] == {"id": fs.id} and attached["mountTag"] == "shared"
        assert "publicIpAddress" not in vm.inputs["networkInterfaces"][0]
        assert "virtiofs" in vm.inputs["cloudInitUserData"]["value"]  # the SDK marks it secret
    assert fs.inputs["sizeGibibytes"] == 10240 and fs.inputs["type"] == "NETWORK_SSD"


def test_nebius_reservation_is_strict() -> None:
    plan = plan_for(
        "nebius-h100", 'gpufabric:capacity={"type": "reservation", "reservationId": "cbg-e00abc"}'
    )
    for vm in plan.of_type(NEB_VM):
        assert vm.inputs["reservationPolicy"] == {
            "policy": "STRICT",
            "reservationIds": ["cbg-e00abc"],
        }


def test_nebius_outputs_say_how_to_find_the_nodes() -> None:
    plan = plan_for("nebius-h100")
    parsed = parse(plan.outputs)
    assert parsed.cluster.cloud == "nebius" and parsed.cluster.fabric == "infiniband"
    assert parsed.cluster.project == "project-e00replacewithyourproject"
    (group,) = parsed.nodes.groups
    assert group.members == [vm.inputs["name"] for vm in plan.of_type(NEB_VM)]
    assert group.id == plan.of_type(NEB_GC)[0].id and group.count == 16


def test_nebius_h200_without_a_fabric_goes_on_the_h200_fabric_of_the_region() -> None:
    plan = plan_for(
        "nebius-h100",
        "gpufabric:instanceType=gpu-h200-sxm/8gpu-128vcpu-1600gb",
        'gpufabric:nebius={"projectId": "project-e00abc123", '
        '"sshPublicKey": "ssh-ed25519 AAAAC3Nza x"}',
    )
    (gc,) = plan.of_type(NEB_GC)
    assert gc.inputs["infinibandFabric"] == "fabric-7"  # not fabric-3, an H100 fabric
    vms = plan.of_type(NEB_VM)
    assert {vm.inputs["resources"]["platform"] for vm in vms} == {"gpu-h200-sxm"}
