"""Typed shape of one instance-type entry in instances.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpufabric.stack_outputs import Cloud, CloudFabric

InTransit = Literal["native", "none", "unconfirmed"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Gpu(_Strict):
    model: str
    count: int = Field(gt=0)
    memory_gib: int = Field(gt=0)


class AwsFacts(_Strict):
    network_cards: int = Field(gt=0)
    max_network_interfaces: int = Field(gt=0)
    efa_devices: int = Field(gt=0)
    ip_gbps_cap: int = Field(gt=0)


class GcpFacts(_Strict):
    gpu_nic_type: Literal["GVNIC", "MRDMA"]
    host_nics: int = Field(gt=0)
    mtu: int = Field(ge=1300, le=8896)
    nccl_plugin: str
    # vpc-per-nic: every GPU NIC in its own VPC (A3 High / Mega, gVNIC);
    # rdma-roce: one VPC on the zone's RoCE network profile, one subnet per MRDMA NIC (A3U / A4)
    gpu_network: Literal["vpc-per-nic", "rdma-roce"] = "vpc-per-nic"
    host_nic_gbps: int = Field(default=200, gt=0)


class AzureFacts(_Strict):
    infiniband: Literal["HDR", "NDR"]
    nccl_topology_file: str | None = None
    ethernet_gbps: int | None = Field(default=None, gt=0)  # the accelerated-networking NIC


class OciFacts(_Strict):
    # the RDMA (RoCE v2) HCAs NCCL uses, in NCCL_IB_HCA order; the front-end (VCN) NIC is apart.
    # Empty where no source names them: the NCCL profile then lists the host's RoCE ports.
    rdma_hcas: list[str] = []
    frontend_ifname: str = "eth0"


class NebiusFacts(_Strict):
    platform: str  # resources.platform of ComputeV1Instance
    preset: str  # resources.preset (8-GPU presets only join an InfiniBand GPU cluster)
    ib_hcas: list[str] = Field(min_length=1)
    nccl_topology_file: str
    frontend_ifname: str = "eth0"


class InstanceType(_Strict):
    name: str
    cloud: Cloud
    gpu: Gpu
    nvlink_gbytes_per_gpu: int = Field(gt=0)
    fabric: CloudFabric
    fabric_nics: int = Field(gt=0)
    fabric_nic_gbps: int = Field(gt=0)
    total_gbps: int = Field(gt=0)
    encryption_in_transit: InTransit
    topology_levels: int | None = None
    aws: AwsFacts | None = None
    gcp: GcpFacts | None = None
    azure: AzureFacts | None = None
    oci: OciFacts | None = None
    nebius: NebiusFacts | None = None
    sources: list[str] = Field(min_length=1)

    @property
    def fabric_gbps(self) -> int:
        """Aggregate GPU-fabric line rate of one node, Gbit/s."""
        return self.fabric_nics * self.fabric_nic_gbps
