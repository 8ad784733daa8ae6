"""OCI-only config: the `gpufabric:oci` section and OCI File Storage with Lustre.

How the common keys map onto OCI (docs/deploy-oci.md has the full table):
- `gpufabric:zone` is the availability domain (e.g. `Uocm:US-ASHBURN-AD-1`); `oci:region` the region.
- `network.cidr` is the VCN; `network.fabricSubnet` the nodes' front-end (primary VNIC) subnet;
  `network.storageSubnet` the Lustre subnet; `network.managementSubnet` bastion / login hosts.
  The RDMA (RoCE v2) cluster network is not part of the VCN: it has no subnet to configure.
Value formats are checked here; rules that need several keys or the catalog live in rules.py.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import Field, StrictBool, StrictInt, ValidationInfo, field_validator

from gpufabric.config.base import (
    CheckpointGoal,
    ConfigModel,
    LustreNid,
    StorageSizing,
    no_squash_needs_squash,
)
from gpufabric.config.model import NoStorage, StackConfig
from gpufabric.inputs.types import MountPath, digits

_RFC3339_UTC = re.compile(
    r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\dZ$"
)

# OCID: ocid1.<resource type>.<realm>.[region][.future use].<unique id>
# [P] docs.oracle.com/iaas/Content/General/Concepts/identifiers.htm
OCID_RE = re.compile(
    r"^ocid1\.(?P<type>[a-z0-9]+)\.oc[0-9]+\.[a-z0-9-]*(\.[a-z0-9-]*)?\.[a-z0-9]+$"
)
_SSH_KEY_RE = re.compile(
    r"^(ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/]+=*( \S.*)?$"
)
# [P] pulumi-oci 5.5.0 lustre/file_storage_lustre_file_system.py: MBPS_PER_TB_125 ... 1000
LustreTier = Literal["MBPS_PER_TB_125", "MBPS_PER_TB_250", "MBPS_PER_TB_500", "MBPS_PER_TB_1000"]


def tier_number(tier: str) -> int:
    """MBPS_PER_TB_250 -> 250 (the sizing table's tiers are numbers); 0 for a name that is no
    tier (the rules then name the key)."""
    tail = tier.rsplit("_", 1)[-1]
    return int(tail) if tier.startswith("MBPS_PER_TB_") and digits(tail) else 0


def tier_name(number: int) -> str:
    """250 -> MBPS_PER_TB_250 (what the API takes)."""
    return f"MBPS_PER_TB_{number}"


def ocid_type(value: str) -> str | None:
    """The resource type of an OCID ('compartment', 'image', ...), or None if not an OCID."""
    match = OCID_RE.match(value)
    return match["type"] if match else None


def _ocid(value: str, *types: str) -> str:
    kind = ocid_type(value)
    if kind is None or (types and kind not in types):
        want = " or ".join(f"ocid1.{t}.oc1..." for t in types) if types else "an OCID"
        raise ValueError(f"must be {want}")
    return value


class OciSettings(ConfigModel):
    """`gpufabric:oci`: what only OCI has."""

    compartment_id: str = Field(description="the compartment OCID for every resource")
    """Compartment OCID that holds every resource (the tenancy OCID for the root)."""
    image_id: str = Field(description="the GPU image OCID of the region")
    """Image OCID for the GPU nodes (an OCI GPU image of the region, with the RDMA drivers)."""
    ssh_public_key: str = Field(description="the admin public key for the nodes")
    """Public key put in every node's metadata (ssh_authorized_keys)."""
    hpc_island_id: str | None = None
    """Place every node inside this HPC island (cluster_configuration.hpc_island_id)."""
    network_block_ids: list[str] = []
    """...and inside these network blocks of that island (needs hpcIslandId)."""
    boot_url_expires: str | None = None
    """Boot mode (gpufabric:boot.enabled): when the nodes' pre-authenticated read of the bundle
    expires (RFC 3339, UTC, e.g. 2027-06-30T00:00:00Z); nodes that boot later cannot fetch it
    until a new date is deployed. Required in boot mode."""
    max_cluster_network_nodes: StrictInt | None = Field(default=None, ge=1)
    """The number of nodes your tenancy's service limits allow in one cluster network; set it
    and the plan refuses more nodes before OCI does (OCI publishes no fixed number)."""

    @field_validator("boot_url_expires")
    @classmethod
    def _rfc3339(cls, value: str | None) -> str | None:
        if value is not None and not _RFC3339_UTC.match(value):
            raise ValueError("must be an RFC 3339 UTC time like 2027-06-30T00:00:00Z")
        return value

    @field_validator("compartment_id")
    @classmethod
    def _compartment(cls, value: str) -> str:
        return _ocid(value, "compartment", "tenancy")

    @field_validator("image_id")
    @classmethod
    def _image(cls, value: str) -> str:
        return _ocid(value, "image")

    @field_validator("hpc_island_id")
    @classmethod
    def _island(cls, value: str | None) -> str | None:
        return None if value is None else _ocid(value)

    @field_validator("network_block_ids")
    @classmethod
    def _blocks(cls, value: list[str]) -> list[str]:
        for item in value:
            _ocid(item)
        if len(set(value)) != len(value):
            raise ValueError("lists a network block twice")
        return value

    @field_validator("ssh_public_key")
    @classmethod
    def _ssh_key(cls, value: str) -> str:
        if "\n" in value.strip() or not _SSH_KEY_RE.match(value.strip()):
            raise ValueError("must be one OpenSSH public key line (ssh-ed25519 AAAA... comment)")
        return value.strip()


class OciLustreConfig(ConfigModel):
    """OCI File Storage with Lustre, in the nodes' availability domain."""

    SIZING: ClassVar[StorageSizing] = StorageSizing(
        ("performance_tier", "performanceTier"),
        ("capacity_gb", "capacityGb"),
        tier_number,
        tier_name,
    )

    type: Literal["oci-lustre"]
    checkpoint: CheckpointGoal | None = None
    """Size capacityGb / performanceTier from a checkpoint goal (storage_steps.yaml: oci-lustre)."""
    capacity_gb: StrictInt = 31200
    """Capacity in GB: 31,200, then steps of 10,400 to 124,800, then steps of 41,600."""
    performance_tier: str = "MBPS_PER_TB_125"
    file_system_name: str = "lustre"
    mount_point: MountPath = "/lustre"  # written into cloud-init and the mount command
    kms_key_id: str | None = None
    """Vault key OCID that encrypts the file system at rest; Oracle-managed keys if unset."""
    availability_domain: str | None = None
    """The file system's availability domain; unset means gpufabric:zone (the nodes' AD)."""
    root_squash: StrictBool = True
    """Root on a client is 65534 on the file system (identitySquash ROOT); false lets root on
    any node rewrite every file."""
    no_squash_nids: list[LustreNid] = Field(default=[], max_length=10)
    """Clients that keep root (clientExceptions, at most 10), e.g. one admin client."""

    @field_validator("no_squash_nids")
    @classmethod
    def _no_squash(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return no_squash_needs_squash(value, info.data.get("root_squash"))


OciStorage = Annotated[OciLustreConfig | NoStorage, Field(discriminator="type")]
"""The file systems an OCI stack can have; the `type` key picks the model."""


class OciStackConfig(StackConfig):
    """A stack on OCI: the common keys, `gpufabric:oci` and OCI's storage types."""

    oci: OciSettings = Field(description="compartmentId, imageId and sshPublicKey (gpufabric:oci)")
    storage: OciStorage = NoStorage(type="none")  # pyright: ignore[reportIncompatibleVariableOverride]


CONFIG = OciStackConfig
