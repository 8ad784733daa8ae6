"""The shared words: fabrics and their traits, encryption modes, node-group kinds, and the two
rules on them.

The bottom of the house: the catalog, the config, the stack outputs, the NCCL profiles and the
Ansible filters take these names from here, and nothing here knows a cloud. Adding a fabric
starts here (`CloudFabric` and its `FABRIC_TRAITS`), then the catalog and the NCCL profiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from gpufabric.errors import UserError

CloudFabric = Literal["efa", "infiniband", "roce", "tcpxo", "tcpx"]
"""Fabrics an instance type in the catalog can have."""
Fabric = Literal[CloudFabric, "lab"]
"""Every value of gpufabric_fabric: the cloud fabrics plus the lab's."""
EncryptionMode = Literal["provider-native", "ipsec", "none"]
GroupKind = Literal[
    "autoscaling-group", "instances", "managed-instance-group", "scale-set", "cluster-network"
]
"""How a cloud manages a set of nodes together (stack outputs' node groups)."""

CLOUD_FABRICS: tuple[str, ...] = get_args(CloudFabric)
FABRICS: tuple[str, ...] = get_args(Fabric)
ENCRYPTION_MODES: tuple[str, ...] = get_args(EncryptionMode)


@dataclass(frozen=True)
class FabricTraits:
    """What the code that checks or configures a host needs to know of its fabric, so that it
    asks the trait, not the fabric's name."""

    rdma: bool
    """Its NICs are RDMA devices, counted and checked as their ports (/sys/class/infiniband)."""
    nics_on_pcie: bool = False
    """Without RDMA: the fabric NICs are the host's PCIe netdevs (False: every NIC, the lab)."""
    port_reports_rate: bool = True
    """An RDMA port's sysfs rate is its link's rate (EFA's is not)."""
    detected_as: str | None = None
    """What the fabric_facts role's detection calls this fabric's hardware (None: not detected)."""
    driver_role: str | None = None
    """The role that installs the fabric's driver on hosts with its hardware."""


FABRIC_TRAITS: dict[str, FabricTraits] = {
    "efa": FabricTraits(rdma=True, port_reports_rate=False, detected_as="efa", driver_role="efa"),
    "infiniband": FabricTraits(rdma=True, detected_as="infiniband", driver_role="doca_ofed"),
    "roce": FabricTraits(rdma=True, detected_as="roce", driver_role="doca_ofed"),
    "tcpxo": FabricTraits(rdma=False, nics_on_pcie=True),
    "tcpx": FabricTraits(rdma=False, nics_on_pcie=True),
    "lab": FabricTraits(rdma=False),
}
"""Every fabric's traits (a test keeps its keys and FABRICS the same)."""


def traits(fabric: str) -> FabricTraits:
    """The traits of a fabric already checked against FABRICS."""
    return FABRIC_TRAITS[fabric]


SWITCHES: dict[str, tuple[str, ...]] = {
    "gpufabric_fabric": FABRICS,
    "gpufabric_encryption": ENCRYPTION_MODES,
}
"""The cluster-wide Ansible switches whose values are one of a list."""


def switch_problem(name: str, value: object) -> str:
    """'' when `value` is allowed for the switch `name` (gpufabric_fabric, ...), else one line."""
    allowed = SWITCHES.get(name)
    if allowed is None:
        raise UserError(f"{name}: not a gpufabric switch; known: {', '.join(SWITCHES)}")
    if isinstance(value, str) and value in allowed:
        return ""
    shown = "(unset)" if value in (None, "") else repr(value)
    return f"{name}: {shown} is not valid; use one of {', '.join(allowed)}"


def encryption_problem(mode: str, instance_type: str, in_transit: str) -> str:
    """The provider-native rule: '' when `mode` may be used on a type whose catalog entry says
    `in_transit` (native | none | unconfirmed), else why not (one line)."""
    if mode != "provider-native" or in_transit == "native":
        return ""
    return (
        f"{instance_type} is not known to encrypt node-to-node traffic natively "
        f"(catalog says '{in_transit}'); use 'ipsec', or 'none' on purpose"
    )
