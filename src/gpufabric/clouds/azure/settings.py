"""Azure-only config: the `gpufabric:azure` section and Azure Managed Lustre storage.

Value formats are checked here; rules that need several keys or the catalog (scale-set
splitting, Lustre SKU steps, subnet sizes) live in rules.py.
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
from gpufabric.inputs.types import MountPath

# docs/sources.md D.2: a scale set with singlePlacementGroup holds 100 VMs by default,
# up to 300 after a support request; each set is its own InfiniBand partition.
DEFAULT_MAX_VMS_PER_SCALE_SET = 100
MAX_VMS_PER_SCALE_SET_BY_REQUEST = 300
# docs/sources.md D.4: the Ubuntu 22.04 HPC image (drivers, OFED, NCCL topology files)
DEFAULT_IMAGE = "microsoft-dsvm:ubuntu-hpc:2204:latest"

_URN_RE = re.compile(r"^[A-Za-z0-9._-]+:[A-Za-z0-9._-]+:[A-Za-z0-9._-]+:[A-Za-z0-9._-]+$")
_IMAGE_ID_RE = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Compute/.+$", re.I
)
_RG_RE = re.compile(r"^[\w().-]{0,89}[\w()-]$")
_SSH_KEY_RE = re.compile(
    r"^(ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/]+=*( \S.*)?$"
)
_USER_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
_RESERVED_USERS = frozenset({"root", "admin", "administrator", "guest", "user", "test"})

Weekday = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


class AzureSettings(ConfigModel):
    """`gpufabric:azure`: what only Azure has."""

    resource_group: str | None = None
    """Resource group the stack creates; default '<cluster>-rg'."""
    image: str = DEFAULT_IMAGE
    """Marketplace URN publisher:offer:sku:version, or an image / gallery image resource id."""
    max_vms_per_scale_set: StrictInt = Field(
        default=DEFAULT_MAX_VMS_PER_SCALE_SET, ge=1, le=MAX_VMS_PER_SCALE_SET_BY_REQUEST
    )
    """VMs per scale set (= per InfiniBand partition): 100 by default, up to 300 on request."""
    allow_split: StrictBool = False
    """May a cluster larger than one scale set become several sets (several IB partitions, no
    InfiniBand between them)? Off by default: one job cannot span partitions."""
    admin_username: str = "azureuser"
    ssh_public_key: str = Field(
        description="the admin user's OpenSSH public key (password login stays off)"
    )
    """Public key for admin_username (password login is always off)."""

    @field_validator("image")
    @classmethod
    def _image_format(cls, value: str) -> str:
        if not (_URN_RE.match(value) or _IMAGE_ID_RE.match(value)):
            raise ValueError(
                "must be a marketplace URN publisher:offer:sku:version "
                f"(e.g. {DEFAULT_IMAGE}) or an image resource id /subscriptions/..."
            )
        return value

    @field_validator("resource_group")
    @classmethod
    def _rg_format(cls, value: str | None) -> str | None:
        if value is not None and not _RG_RE.match(value):
            raise ValueError(
                "must be 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'"
            )
        return value

    @field_validator("admin_username")
    @classmethod
    def _user_format(cls, value: str) -> str:
        if not _USER_RE.match(value) or value in _RESERVED_USERS:
            raise ValueError(
                "must be a Linux user name (lowercase, digits, '_', '-'), not a reserved one "
                f"({', '.join(sorted(_RESERVED_USERS))})"
            )
        return value

    @field_validator("ssh_public_key")
    @classmethod
    def _key_format(cls, value: str) -> str:
        if not _SSH_KEY_RE.match(value.strip()):
            raise ValueError(
                "must be an OpenSSH public key line (ssh-ed25519 / ssh-rsa / ecdsa-sha2-*)"
            )
        return value.strip()

    @property
    def image_urn(self) -> tuple[str, str, str, str] | None:
        """(publisher, offer, sku, version) for a marketplace image, else None."""
        if not _URN_RE.match(self.image):
            return None
        publisher, offer, sku, version = self.image.split(":")
        return publisher, offer, sku, version


class MaintenanceWindow(ConfigModel):
    """Azure Managed Lustre's weekly 30-minute maintenance window (required by the API)."""

    day_of_week: Weekday = "Sunday"
    time_of_day_utc: str = "02:00"
    """HH:MM, 24-hour UTC (checked in rules.py, which names the key plainly)."""


class AzureManagedLustreConfig(ConfigModel):
    """Azure Managed Lustre (AMLFS) in its own subnet, in the nodes' zone.

    `throughputPerTib` picks the SKU AMLFS-Durable-Premium-<n>; the capacity steps per SKU
    are enforced in rules.py (docs/sources.md D.5)."""

    SIZING: ClassVar[StorageSizing] = StorageSizing(
        ("throughput_per_tib", "throughputPerTib"), ("capacity_tib", "capacityTib")
    )

    type: Literal["azure-managed-lustre"]
    checkpoint: CheckpointGoal | None = None
    """A goal to size throughputPerTib and capacityTib from (those left unset)."""
    throughput_per_tib: StrictInt = 250
    capacity_tib: StrictInt = 16
    mount_point: MountPath = "/lustre"
    maintenance_window: MaintenanceWindow = MaintenanceWindow()
    root_squash: StrictBool = True
    """Root on a client is 65534 on the file system (rootSquashSettings RootOnly); false lets
    root on any node rewrite every file."""
    no_squash_nids: list[LustreNid] = []
    """Clients that keep root (noSquashNidLists), e.g. one admin client."""

    @field_validator("no_squash_nids")
    @classmethod
    def _no_squash(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return no_squash_needs_squash(value, info.data.get("root_squash"))

    @property
    def sku(self) -> str:
        return f"AMLFS-Durable-Premium-{self.throughput_per_tib}"


AzureStorage = Annotated[AzureManagedLustreConfig | NoStorage, Field(discriminator="type")]
"""The file systems an Azure stack can have; the `type` key picks the model."""


class AzureStackConfig(StackConfig):
    """A stack on Azure: the common keys, `gpufabric:azure` and Azure's storage types."""

    azure: AzureSettings = Field(description="sshPublicKey (gpufabric:azure)")
    storage: AzureStorage = NoStorage(type="none")  # pyright: ignore[reportIncompatibleVariableOverride]


CONFIG = AzureStackConfig
