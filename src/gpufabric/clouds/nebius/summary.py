"""Nebius fabric facts read back from a plan's recorded resources (not the config): the GPU
cluster's InfiniBand fabric, how many VMs join it, the filesystem attached to each."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpufabric.plan.runner import Plan

Facts = list[tuple[str, str]]

NEB_GPU_CLUSTER = "nebius:index/computeV1GpuCluster:ComputeV1GpuCluster"
NEB_INSTANCE = "nebius:index/computeV1Instance:ComputeV1Instance"
NEB_FS = "nebius:index/computeV1Filesystem:ComputeV1Filesystem"
NEB_SUBNET = "nebius:index/vpcV1Subnet:VpcV1Subnet"


def summarise(plan: Plan) -> Facts:
    cfg = plan.config
    facts: Facts = []
    clusters = {c.id: c for c in plan.of_type(NEB_GPU_CLUSTER)}
    instances = plan.of_type(NEB_INSTANCE)
    for gc in clusters.values():
        members = [i for i in instances if i.inputs.get("gpuCluster", {}).get("id") == gc.id]
        facts.append(
            (
                "GPU cluster",
                f"{gc.name} on InfiniBand fabric {gc.inputs.get('infinibandFabric')}: "
                f"{len(members)} of {len(instances)} VMs in it",
            )
        )
    if instances:
        res = instances[0].inputs.get("resources", {})
        facts.append(("VM", f"{res.get('platform')} / {res.get('preset')}"))
        public = any(
            "publicIpAddress" in nic
            for i in instances
            for nic in i.inputs.get("networkInterfaces", [])
        )
        facts.append(("Node NIC", f"eth0, {'PUBLIC IP' if public else 'no public IP'}"))
    facts.append(
        (
            "Subnets",
            ", ".join(
                str(c.get("cidr"))
                for s in plan.of_type(NEB_SUBNET)
                for p in s.inputs.get("ipv4PrivatePools", {}).get("pools", [])
                for c in p.get("cidrs", [])
            ),
        )
    )
    for fs in plan.of_type(NEB_FS):
        attached = [
            i
            for i in instances
            if any(
                f.get("existingFilesystem", {}).get("id") == fs.id
                for f in i.inputs.get("filesystems", [])
            )
        ]
        facts.append(
            (
                "Storage",
                f"shared filesystem {fs.inputs.get('type')}, {fs.inputs.get('sizeGibibytes')} GiB, "
                f"attached to {len(attached)} of {len(instances)} VMs",
            )
        )
    cap = cfg.capacity
    facts.append(("Capacity", cap.type + (f" {cap.reservation_id}" if cap.reservation_id else "")))
    facts.append(("Encryption in transit", cfg.encryption))
    return facts
