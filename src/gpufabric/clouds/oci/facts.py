"""The catalog's `oci:` block of an OCI shape: the cloud's own wiring facts.

The entry's shared facts (GPUs, fabric, its HCAs, line rates) are gpufabric.catalog's; these are
what only this cloud's code reads. Sources: each entry's `sources:` in the catalog.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gpufabric.catalog.model import InstanceType


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OciFacts(_Strict):
    # the RDMA (RoCE v2) HCAs are the entry's fabric_hcas; the front-end (VCN) NIC is apart
    frontend_ifname: str = "eth0"


FACTS = OciFacts


def of(itype: InstanceType) -> OciFacts:
    """The oci facts of a oci instance type (TypeError for another cloud's)."""
    return itype.wiring_as(OciFacts)
