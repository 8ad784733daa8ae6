"""OCI fabric facts read back from a plan's recorded resources (not the config): the cluster
network (size, availability domain, HPC island), the RDMA agent plugins of the instance
configuration, subnets, Lustre's domain against the nodes'."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpufabric.plan.runner import Plan

Facts = list[tuple[str, str]]

OCI_CN = "oci:Core/clusterNetwork:ClusterNetwork"
OCI_CONFIG = "oci:Core/instanceConfiguration:InstanceConfiguration"
OCI_SUBNET = "oci:Core/subnet:Subnet"
OCI_NAT = "oci:Core/natGateway:NatGateway"
OCI_LUSTRE = "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem"


def summarise(plan: Plan) -> Facts:
    cfg = plan.config
    facts: Facts = []
    for cn in plan.of_type(OCI_CN):
        pools = cn.inputs.get("instancePools", [])
        place: dict[str, Any] = cn.inputs.get("placementConfiguration", {})
        island = cn.inputs.get("clusterConfiguration", {}).get("hpcIslandId")
        facts.append(
            (
                "Cluster network",
                f"{cn.name}: {len(pools)} instance pool, {sum(p.get('size', 0) for p in pools)} "
                f"x {cfg.instance_type} in {place.get('availabilityDomain')}"
                + (f", HPC island {island}" if island else ", any HPC island"),
            )
        )
    for conf in plan.of_type(OCI_CONFIG):
        launch = conf.inputs.get("instanceDetails", {}).get("launchDetails", {})
        plugins = launch.get("agentConfig", {}).get("pluginsConfigs", [])
        enabled = [p.get("name") for p in plugins if p.get("desiredState") == "ENABLED"]
        vnic = launch.get("createVnicDetails", {})
        facts.append(("RDMA agent plugins", ", ".join(enabled) or "NONE (no RDMA)"))
        facts.append(
            (
                "Front-end NIC",
                f"1 VNIC (eth0), {'PUBLIC IP' if vnic.get('assignPublicIp') else 'no public IP'}; "
                "the RDMA NICs come with the shape",
            )
        )
    subnets = {s.id: s for s in plan.of_type(OCI_SUBNET)}
    facts.append(
        (
            "Subnets",
            ", ".join(
                f"{s.inputs.get('freeformTags', {}).get('gpufabric-partition')} "
                f"{s.inputs.get('cidrBlock')}"
                for s in subnets.values()
            ),
        )
    )
    facts.append(("Egress", "NAT gateway" if plan.of_type(OCI_NAT) else "none"))
    for fs in plan.of_type(OCI_LUSTRE):
        ad = fs.inputs.get("availabilityDomain")
        same = "same AD as the nodes" if ad == cfg.zone else f"NOT in the nodes' AD {cfg.zone}"
        facts.append(
            (
                "Storage",
                f"File Storage with Lustre, {fs.inputs.get('capacityInGbs')} GB, "
                f"{fs.inputs.get('performanceTier')}; in {ad} ({same})",
            )
        )
    cap = cfg.capacity
    facts.append(("Capacity", cap.type + (f" {cap.reservation_id}" if cap.reservation_id else "")))
    facts.append(("Encryption in transit", cfg.encryption))
    return facts
