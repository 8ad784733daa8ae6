"""The catalog's `aws:` block of an AWS instance type: the cloud's own wiring facts.

The entry's shared facts (GPUs, fabric, its HCAs, line rates) are gpufabric.catalog's; these are
what only this cloud's code reads. Sources: each entry's `sources:` in the catalog.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from gpufabric.catalog.model import InstanceType


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AwsFacts(_Strict):
    network_cards: int = Field(gt=0)
    max_network_interfaces: int = Field(gt=0)
    efa_devices: int = Field(gt=0)
    ip_gbps_cap: int = Field(gt=0)
    lustre_efa_interfaces: int = Field(default=2, gt=0)
    """EFA interfaces the FSx Lustre client binds per node (kefalnd): on P5 / P5e every 4th EFA
    device, 8 interfaces; other types 1-2 ([P] amazon-eks-user-guide fsx-csi-tuning-efa.adoc);
    2 where the guide says 1-2 (UNCONFIRMED which)."""


FACTS = AwsFacts


def of(itype: InstanceType) -> AwsFacts:
    """The aws facts of a aws instance type (TypeError for another cloud's)."""
    return itype.wiring_as(AwsFacts)


def storage_path(itype: InstanceType, efa: bool) -> tuple[float, str]:
    """(Gbit/s per node, what carries it) to the file system.

    TCP Lustre: the one ENA interface on network card 0 (both EFA layouts put the node's only IP
    there, efa.py), one card's share of the node bandwidth capped at the IP (ENA) limit ([P]
    efa-acc-inst-types: P5 "use case 1" gives up to 100 Gbps of IP). EFA-enabled FSx: the EFA
    interfaces the Lustre client binds."""
    if efa:
        count = min(of(itype).lustre_efa_interfaces, itype.fabric_nics)
        return count * itype.fabric_nic_gbps, f"{count} EFA x {itype.fabric_nic_gbps} Gbps"
    aws = of(itype)
    gbps = min(itype.total_gbps / aws.network_cards, aws.ip_gbps_cap)
    return gbps, f"1 ENA on network card 0, {gbps:g} Gbps"
