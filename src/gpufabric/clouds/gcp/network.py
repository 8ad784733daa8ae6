"""GCP networks: the host VPC(s) for the gVNICs, the GPU fabric VPCs, egress, firewalls.

Every NIC of a GCP VM must sit in a different VPC network, except MRDMA NICs, which share one
RoCE VPC (one subnet each). So the fabric wiring differs by machine family, and says so:
- vpc-per-nic (A3 High / A3 Mega, GPUDirect-TCPX/O over gVNIC): one VPC + subnet per GPU NIC;
- rdma-roce (A3 Ultra / A4): one VPC on the zone's RoCE network profile with one subnet per
  MRDMA NIC (docs/sources.md C.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_gcp.compute as compute
import pulumi_gcp.servicenetworking as servicenetworking

from gpufabric.catalog import InstanceType
from gpufabric.clouds.gcp import facts
from gpufabric.clouds.gcp.roce import RoceGuard, roce_firewall
from gpufabric.clouds.gcp.rules import gpu_subnets
from gpufabric.clouds.gcp.settings import GcpStackConfig, ManagedLustreConfig
from gpufabric.config.model import NoStorage

PSA_SERVICE = "servicenetworking.googleapis.com"
INTERNAL_PROTOCOLS = ("tcp", "udp", "icmp")


@dataclass
class GcpSubnet:
    """One subnet a NIC attaches to: role (host-0, gpu-3, rdma-5, ...), range, VPC."""

    role: str
    cidr: str
    network: compute.Network
    subnet: compute.Subnetwork


@dataclass
class GcpNetwork:
    host: GcpSubnet
    """nic0: the nodes' first gVNIC, in the host (system) VPC, with NAT and SSH."""
    extra_host: list[GcpSubnet]
    """Further gVNICs (A3 Ultra / A4 nic1), each in its own regular VPC."""
    gpu: list[GcpSubnet]
    """The GPU NICs' subnets, in NIC order."""
    management: GcpSubnet
    networks: list[compute.Network]
    """Every VPC of the cluster: host VPC(s) first, then the GPU VPC(s)."""
    node_tag: str
    roce_profile: str | None
    firewalls: list[compute.Firewall] = field(default_factory=list)
    psa: servicenetworking.Connection | None = None
    psa_range_name: str | None = None
    roce_guard: RoceGuard | None = None
    """The RoCE VPC's firewall policy and the secure tag every node carries (A3U / A4)."""


def roce_profile(project: str, zone: str) -> str:
    """The zone's RoCE network profile (docs/sources.md C.2)."""
    return f"projects/{project}/global/networkProfiles/{zone}-vpc-roce"


# Managed Lustre's network guide creates the VPC it peers with at MTU 8896, the largest GCP
# allows (up to ~10% more throughput): [P] cloud.google.com/managed-lustre/docs/vpc and
# /performance ("VPC network maximum transmission unit"). The host VPC carries the storage
# traffic, so it gets 8896 with Managed Lustre even where the GPU VPCs keep 8244 (A3 High/Mega).
LUSTRE_VPC_MTU = 8896


def vpc_mtus(cfg: GcpStackConfig, itype: InstanceType) -> tuple[int, int]:
    """(host VPCs, GPU VPCs) MTU: gcp.mtu when set, else the catalog's; the host VPCs take
    Managed Lustre's 8896 when the cluster has Managed Lustre."""
    gpu = cfg.gcp.mtu or facts.of(itype).mtu
    if cfg.gcp.mtu is None and isinstance(cfg.storage, ManagedLustreConfig):
        return LUSTRE_VPC_MTU, gpu
    return gpu, gpu


def build_network(cfg: GcpStackConfig, itype: InstanceType, parent: pulumi.Resource) -> GcpNetwork:
    opts = pulumi.ResourceOptions(parent=parent)
    project = cfg.gcp.project
    host_mtu, mtu = vpc_mtus(cfg, itype)
    name = cfg.name
    node_tag = f"{name}-node"

    # the host VPC keeps its default route (Cloud NAT, Private Google Access) unless egress none
    host_vpc = _vpc(cfg, f"{name}-host-0", host_mtu, None, cfg.network.egress != "none", opts)
    host = _subnet(cfg, "host-0", host_vpc, cfg.network.fabric_subnet, opts, google_access=True)
    management = _subnet(
        cfg, "management", host_vpc, cfg.network.management_subnet, opts, google_access=True
    )
    extra_host = []
    for index in range(1, facts.of(itype).host_nics):
        vpc = _vpc(cfg, f"{name}-host-{index}", host_mtu, None, False, opts)
        extra_host.append(
            _subnet(
                cfg, f"host-{index}", vpc, cfg.gcp.secondary_host_cidr, opts, google_access=False
            )
        )

    ranges = gpu_subnets(cfg, itype)
    profile: str | None = None
    gpu: list[GcpSubnet] = []
    if facts.of(itype).gpu_network == "rdma-roce":
        profile = roce_profile(project, cfg.zone)
        rdma_vpc = _vpc(cfg, f"{name}-rdma", mtu, profile, False, opts)
        gpu = [
            _subnet(cfg, f"rdma-{i}", rdma_vpc, cidr, opts, google_access=False)
            for i, cidr in enumerate(ranges)
        ]
        gpu_vpcs = [rdma_vpc]
        guard: RoceGuard | None = roce_firewall(cfg, rdma_vpc, f"{name}-rdma", opts)
    else:
        for i, cidr in enumerate(ranges):
            vpc = _vpc(cfg, f"{name}-gpu-{i}", mtu, None, False, opts)
            gpu.append(_subnet(cfg, f"gpu-{i}", vpc, cidr, opts, google_access=False))
        gpu_vpcs = [sub.network for sub in gpu]
        guard = None

    networks = [host_vpc, *(sub.network for sub in extra_host), *gpu_vpcs]
    net = GcpNetwork(host, extra_host, gpu, management, networks, node_tag, profile)
    net.roce_guard = guard
    _firewalls(cfg, net, opts)
    if cfg.network.egress == "nat":
        _cloud_nat(cfg, host, opts)
    if not isinstance(cfg.storage, NoStorage):
        net.psa_range_name = f"{cfg.name}-storage-range"
        net.psa = _private_service_access(cfg, net.psa_range_name, host_vpc, opts)
    return net


def _vpc(
    cfg: GcpStackConfig,
    vpc_name: str,
    mtu: int,
    profile: str | None,
    internet_route: bool,
    opts: pulumi.ResourceOptions,
) -> compute.Network:
    return compute.Network(
        vpc_name,
        name=vpc_name,
        project=cfg.gcp.project,
        auto_create_subnetworks=False,
        routing_mode="REGIONAL",
        mtu=mtu,
        network_profile=profile,
        # GPU, RoCE and secondary host VPCs keep no route to the internet
        delete_default_routes_on_create=not internet_route,
        description=f"gpufabric {cfg.name}: {vpc_name}",
        opts=opts,
    )


def _subnet(
    cfg: GcpStackConfig,
    role: str,
    vpc: compute.Network,
    cidr: str,
    opts: pulumi.ResourceOptions,
    google_access: bool,
) -> GcpSubnet:
    subnet_name = f"{cfg.name}-{role}-subnet"  # the VPC may be named {cluster}-{role}
    subnet = compute.Subnetwork(
        subnet_name,
        name=subnet_name,
        project=cfg.gcp.project,
        region=cfg.region,
        network=vpc.id,
        ip_cidr_range=cidr,
        # Private Google Access: nodes reach Google APIs (Artifact Registry, GCS) without NAT
        private_ip_google_access=google_access and cfg.network.egress != "none",
        # VPC flow logs to Cloud Logging (not on RoCE subnets: RDMA bypasses the VPC's IP path)
        log_config=compute.SubnetworkLogConfigArgs(
            aggregation_interval="INTERVAL_5_SEC",
            flow_sampling=1.0,
            metadata="INCLUDE_ALL_METADATA",
        )
        if cfg.network.flow_logs is not None and not role.startswith("rdma-")
        else None,
        opts=opts,
    )
    return GcpSubnet(role, cidr, vpc, subnet)


def _firewalls(cfg: GcpStackConfig, net: GcpNetwork, opts: pulumi.ResourceOptions) -> None:
    """Per regular VPC: traffic only from the cluster's own subnet(s) in it, only to its nodes.

    The RoCE VPC takes no VPC firewall rules; roce.py guards it with an RDMA_ROCE_POLICY.
    """
    project = cfg.gcp.project
    host_sources = [net.host.cidr, net.management.cidr]
    plan: list[tuple[GcpSubnet, list[str]]] = [(net.host, host_sources)]
    plan += [(sub, [sub.cidr]) for sub in net.extra_host]
    if net.roce_profile is None:
        plan += [(sub, [sub.cidr]) for sub in net.gpu]
    for sub, sources in plan:
        net.firewalls.append(
            compute.Firewall(
                f"{cfg.name}-{sub.role}-internal",
                name=f"{cfg.name}-{sub.role}-internal",
                project=project,
                network=sub.network.id,
                direction="INGRESS",
                source_ranges=sources,
                target_tags=[net.node_tag],
                allows=[compute.FirewallAllowArgs(protocol=p) for p in INTERNAL_PROTOCOLS],
                description="cluster-internal traffic only: from the cluster's own subnet",
                opts=opts,
            )
        )
    if cfg.network.management_cidr:
        net.firewalls.append(
            compute.Firewall(
                f"{cfg.name}-ssh",
                name=f"{cfg.name}-ssh",
                project=project,
                network=net.host.network.id,
                direction="INGRESS",
                source_ranges=[cfg.network.management_cidr],
                target_tags=[net.node_tag],
                allows=[compute.FirewallAllowArgs(protocol="tcp", ports=["22"])],
                description="SSH from the admin network only",
                opts=opts,
            )
        )
    if not isinstance(cfg.storage, NoStorage):
        # Managed Lustre's setup guide allows TCP from the PSA range to the clients
        net.firewalls.append(
            compute.Firewall(
                f"{cfg.name}-storage",
                name=f"{cfg.name}-storage",
                project=project,
                network=net.host.network.id,
                direction="INGRESS",
                source_ranges=[cfg.network.storage_subnet],
                target_tags=[net.node_tag],
                allows=[compute.FirewallAllowArgs(protocol="tcp")],
                description=f"{cfg.storage.type} servers to their clients",
                opts=opts,
            )
        )


def _cloud_nat(cfg: GcpStackConfig, host: GcpSubnet, opts: pulumi.ResourceOptions) -> None:
    """Cloud Router + Cloud NAT for the host subnet only: out to mirrors, nothing in."""
    router = compute.Router(
        f"{cfg.name}-router",
        name=f"{cfg.name}-router",
        project=cfg.gcp.project,
        region=cfg.region,
        network=host.network.id,
        opts=opts,
    )
    compute.RouterNat(
        f"{cfg.name}-nat",
        name=f"{cfg.name}-nat",
        project=cfg.gcp.project,
        region=cfg.region,
        router=router.name,
        nat_ip_allocate_option="AUTO_ONLY",
        source_subnetwork_ip_ranges_to_nat="LIST_OF_SUBNETWORKS",
        subnetworks=[
            compute.RouterNatSubnetworkArgs(
                name=host.subnet.id, source_ip_ranges_to_nats=["ALL_IP_RANGES"]
            )
        ],
        log_config=compute.RouterNatLogConfigArgs(enable=True, filter="ERRORS_ONLY"),
        opts=opts,
    )


def _private_service_access(
    cfg: GcpStackConfig, range_name: str, host_vpc: compute.Network, opts: pulumi.ResourceOptions
) -> servicenetworking.Connection:
    """The range the storage service's Google-managed network takes, peered with the host VPC."""
    address, prefix = cfg.network.storage_subnet.split("/")
    psa_range = compute.GlobalAddress(
        range_name,
        name=range_name,
        project=cfg.gcp.project,
        purpose="VPC_PEERING",
        address_type="INTERNAL",
        address=address,
        prefix_length=int(prefix),
        network=host_vpc.id,
        opts=opts,
    )
    return servicenetworking.Connection(
        f"{cfg.name}-psa",
        network=host_vpc.id,
        service=PSA_SERVICE,
        reserved_peering_ranges=[psa_range.name],
        opts=opts,
    )
