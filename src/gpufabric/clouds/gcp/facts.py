"""The catalog's `gcp:` block of a GCP machine type: the cloud's own wiring facts.

The entry's shared facts (GPUs, fabric, its HCAs, line rates) are gpufabric.catalog's; these are
what only this cloud's code reads. Sources: each entry's `sources:` in the catalog.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpufabric.catalog.model import InstanceType


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GcpFacts(_Strict):
    gpu_nic_type: Literal["GVNIC", "MRDMA"]
    host_nics: int = Field(gt=0)
    mtu: int = Field(ge=1300, le=8896)
    nccl_plugin: str
    # vpc-per-nic: every GPU NIC in its own VPC (A3 High / Mega, gVNIC);
    # rdma-roce: one VPC on the zone's RoCE network profile, one subnet per MRDMA NIC (A3U / A4)
    gpu_network: Literal["vpc-per-nic", "rdma-roce"] = "vpc-per-nic"
    host_nic_gbps: int = Field(default=200, gt=0)
    # Placement (sources: gpufabric.clouds.gcp.placement, from Google's Cluster Toolkit)
    dense_reservation: bool = False
    """Its capacity comes as dense reservations: RESERVATION_BOUND, an external compact policy
    allowed (A3 Ultra, A4)."""
    compact_vms_at_distance_2: int = Field(default=150, gt=0)
    """VMs one compact placement policy holds at maxDistance 2 (the A3 family: 256)."""
    min_max_distance: int = Field(default=1, ge=1, le=3)
    """The smallest compact placement maxDistance the machine type takes."""


FACTS = GcpFacts


def of(itype: InstanceType) -> GcpFacts:
    """The gcp facts of a gcp instance type (TypeError for another cloud's)."""
    return itype.wiring_as(GcpFacts)


def storage_path(itype: InstanceType, efa: bool) -> tuple[float, str]:
    """(Gbit/s per node, what carries it) to the file system: the first gVNIC, whose VPC is
    peered to the storage service (network.py)."""
    gbps = of(itype).host_nic_gbps
    return gbps, f"first gVNIC {gbps} Gbps"
