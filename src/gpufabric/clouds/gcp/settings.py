"""GCP-only config: the `gpufabric:gcp` section and the GCP storage services.

How the common keys map onto GCP (docs/gcp.md has the full table):
- `network.cidr` / `network.fabricSubnet`: the host (system) VPC and the subnet of the nodes'
  first gVNIC; `network.managementSubnet`: a host-VPC subnet for login / bastion hosts;
  `network.storageSubnet`: the private-service-access range the storage service gets;
  `network.egressSubnet` is not used (Cloud NAT needs no subnet).
- The GPU fabric has its own address space, `gcp.gpuCidr`, split into one subnet per GPU NIC.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import Field, StrictBool, StrictInt, ValidationInfo, field_validator

from gpufabric.config.base import (
    CheckpointGoal,
    Cidr,
    ConfigModel,
    StorageSizing,
    no_squash_needs_squash,
)
from gpufabric.config.model import NoStorage, StackConfig
from gpufabric.inputs.types import ImageName, MountPath

_PROJECT_RE = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")
_EMAIL_RE = re.compile(r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$")

DEFAULT_IMAGE = (
    "projects/ubuntu-os-accelerator-images/global/images/family/"
    "ubuntu-accelerator-2204-amd64-with-nvidia-570"
)
BootDiskType = Literal["hyperdisk-balanced", "pd-balanced", "pd-ssd"]
TopologyDistance = Literal["CLUSTER", "BLOCK", "SUBBLOCK"]


class GcpSettings(ConfigModel):
    """`gpufabric:gcp`: what only GCP has."""

    project: str = Field(description="the project id (same as gcp:project)")
    """The project that owns every resource (the same value as gcp:project)."""
    image: ImageName = DEFAULT_IMAGE
    boot_disk_type: BootDiskType = "hyperdisk-balanced"
    gpu_cidr: Cidr = "10.128.0.0/16"
    """Address space of the GPU fabric, split evenly into one subnet per GPU NIC."""
    secondary_host_cidr: Cidr = "10.1.0.0/16"
    """The second gVNIC's VPC (A3 Ultra / A4 have two host NICs); unused with one."""
    mtu: StrictInt | None = None
    """MTU of every VPC; default: the catalog's (8244 on A3 High/Mega, 8896 on A3U/A4)."""
    secure_boot: StrictBool = False
    """Off by default: gVNIC, dmabuf-import-helper and Lustre client modules are DKMS-built
    and unsigned; vTPM and integrity monitoring stay on."""
    max_distance: StrictInt | None = None
    """nodeGroup instances: compact placement maxDistance (1-3; A3 High/Mega cannot use 1)."""
    max_topology_distance: TopologyDistance | None = None
    """nodeGroup group: the workload policy's maxTopologyDistance."""
    service_account: str | None = None
    """Email of the nodes' service account (scope cloud-platform); none attached if unset."""

    @field_validator("project")
    @classmethod
    def _project_format(cls, value: str) -> str:
        if not _PROJECT_RE.match(value):
            raise ValueError(
                "must be a project id: 6-30 lowercase letters, digits or '-', "
                "starting with a letter"
            )
        return value

    @field_validator("service_account")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if value is not None and not _EMAIL_RE.match(value):
            raise ValueError(
                "must be a service account email, e.g. nodes@PROJECT.iam.gserviceaccount.com"
            )
        return value

    @field_validator("mtu")
    @classmethod
    def _mtu_range(cls, value: int | None) -> int | None:
        if value is not None and not 1300 <= value <= 8896:
            raise ValueError("GCP VPC MTU must be 1300-8896")
        return value

    @field_validator("max_distance")
    @classmethod
    def _distance_range(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= 3:
            raise ValueError("compact placement maxDistance is 1, 2 or 3")
        return value


# Storage models: value rules live in rules.py, so errors name clean keys
# (gpufabric:storage.capacityGib), without the union's tag.


_NOT_SIZED = (
    "a checkpoint goal sizes Managed Lustre; {type} has no throughput table here "
    "(use type managed-lustre, or drop the goal and size it yourself)"
)


class ManagedLustreConfig(ConfigModel):
    """Google Cloud Managed Lustre, in the nodes' zone."""

    SIZING: ClassVar[StorageSizing] = StorageSizing(
        ("per_unit_storage_throughput", "perUnitStorageThroughput"),
        ("capacity_gib", "capacityGib"),
    )

    type: Literal["managed-lustre"]
    checkpoint: CheckpointGoal | None = None
    """A goal to size capacityGib and perUnitStorageThroughput from (those left unset)."""
    capacity_gib: StrictInt = 36000
    per_unit_storage_throughput: StrictInt = 1000
    """MB/s per TiB: 125, 250, 500 or 1000 (fixed at creation)."""
    filesystem: str = "lustre"
    mount_point: MountPath = "/lustre"
    root_squash: StrictBool = True
    """Root on a client is 65534 on the file system (accessRulesOptions ROOT_SQUASH); false
    lets root on any node rewrite every file."""
    no_squash_ranges: list[Cidr] = []
    """Client ranges that keep root (one NO_SQUASH access rule), e.g. an admin client /32."""

    @field_validator("no_squash_ranges")
    @classmethod
    def _no_squash(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return no_squash_needs_squash(value, info.data.get("root_squash"))


class ParallelstoreConfig(ConfigModel):
    """Parallelstore (DAOS), in the nodes' zone."""

    GOAL_REFUSED: ClassVar[str] = _NOT_SIZED

    type: Literal["parallelstore"]
    checkpoint: CheckpointGoal | None = None
    """Not sized here (no throughput table): refused with one line (GOAL_REFUSED)."""
    capacity_gib: StrictInt = 12000
    deployment_type: str = "SCRATCH"
    """SCRATCH or PERSISTENT."""
    mount_point: MountPath = "/parallelstore"


class FilestoreConfig(ConfigModel):
    """Filestore (NFS), a zonal tier in the nodes' zone."""

    GOAL_REFUSED: ClassVar[str] = _NOT_SIZED

    type: Literal["filestore"]
    checkpoint: CheckpointGoal | None = None
    """Not sized here (no throughput table): refused with one line (GOAL_REFUSED)."""
    tier: str = "ZONAL"
    capacity_gib: StrictInt = 10240
    share_name: str = "share"
    mount_point: MountPath = "/filestore"


GcpStorage = Annotated[
    ManagedLustreConfig | ParallelstoreConfig | FilestoreConfig | NoStorage,
    Field(discriminator="type"),
]
"""The file systems a GCP stack can have; the `type` key picks the model."""


class GcpStackConfig(StackConfig):
    """A stack on GCP: the common keys, `gpufabric:gcp` and GCP's storage types."""

    gcp: GcpSettings = Field(description="project (gpufabric:gcp)")
    storage: GcpStorage = NoStorage(type="none")  # pyright: ignore[reportIncompatibleVariableOverride]


CONFIG = GcpStackConfig
