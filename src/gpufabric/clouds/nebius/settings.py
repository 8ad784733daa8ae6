"""Nebius-only config: the `gpufabric:nebius` section and Nebius shared filesystems.

How the common keys map onto Nebius (docs/deploy-nebius.md has the full table):
- Nebius has no availability zones below a region: `gpufabric:zone` is the region (eu-north1),
  and with no provider region key it is also the stack's region.
- `network.cidr` is the VPC network's private pool; `network.fabricSubnet` the nodes' subnet
  (eth0). InfiniBand is not VPC traffic: the GPU cluster's fabric has no subnet.
Value formats are checked here; rules that need several keys or the catalog live in
rules.py.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Literal

from pydantic import Field, StrictBool, StrictInt, field_validator

from gpufabric.config.base import CheckpointGoal, ConfigModel
from gpufabric.config.model import NoStorage, StackConfig
from gpufabric.inputs.types import ImageName, MountPath

# [S] skypilot sky/provision/nebius: image family for gpu-h100-sxm / gpu-h200-sxm
DEFAULT_IMAGE_FAMILY = "ubuntu22.04-cuda12"
_PROJECT_RE = re.compile(r"^project-[a-z0-9]{6,}$")
_FABRIC_RE = re.compile(r"^[a-z][a-z0-9-]{0,62}$")
_SSH_KEY_RE = re.compile(
    r"^(ssh-rsa|ssh-ed25519|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/]+=*( \S.*)?$"
)
_USER_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
# [P] pulumi-nebius 0.6.73 compute_v1_filesystem.py: type
FilesystemType = Literal["NETWORK_SSD", "NETWORK_HDD", "WEKA", "VAST"]


class NebiusSettings(ConfigModel):
    """`gpufabric:nebius`: what only Nebius has."""

    project_id: str = Field(description="the project that owns every resource")
    """The project (parent_id of every resource), e.g. project-e00abc123."""
    infiniband_fabric: str | None = None
    """The GPU cluster's InfiniBand fabric (e.g. fabric-3); it ties the cluster to a region and
    platform (fabrics.yaml). Unset: the only published fabric for the platform in the region;
    where there are several (H100 in eu-north1), name the one that holds your capacity."""
    image_family: ImageName = DEFAULT_IMAGE_FAMILY
    ssh_public_key: str = Field(description="the admin public key for the nodes")
    """Public key of admin_username, written by cloud-init."""
    admin_username: str = "ubuntu"
    public_ip: StrictBool = False
    """Public addresses on the nodes (off: reach them through a bastion or VPN). The policy
    pack's no-public-IP rule fails a plan that turns it on, unless the organisation waives it."""

    @field_validator("project_id")
    @classmethod
    def _project(cls, value: str) -> str:
        if not _PROJECT_RE.match(value):
            raise ValueError("must be a Nebius project id like project-e00abc123")
        return value

    @field_validator("infiniband_fabric")
    @classmethod
    def _fabric(cls, value: str | None) -> str | None:
        if value is not None and not _FABRIC_RE.match(value):
            raise ValueError("must be a fabric name like fabric-3 or us-central1-a")
        return value

    @field_validator("ssh_public_key")
    @classmethod
    def _ssh_key(cls, value: str) -> str:
        if "\n" in value.strip() or not _SSH_KEY_RE.match(value.strip()):
            raise ValueError("must be one OpenSSH public key line (ssh-ed25519 AAAA... comment)")
        return value.strip()

    @field_validator("admin_username")
    @classmethod
    def _user(cls, value: str) -> str:
        if not _USER_RE.match(value) or value == "root":
            raise ValueError("must be a Linux user name other than root (a-z, 0-9, _ or -)")
        return value


class NebiusFilesystemConfig(ConfigModel):
    """A Nebius shared filesystem attached to every node (virtiofs, by mount tag)."""

    GOAL_REFUSED: ClassVar[str] = (
        "{type} has no throughput table here to size from "
        "(drop the goal and set the size yourself; see the deploy guide for the steps)"
    )

    type: Literal["nebius-filesystem"]
    checkpoint: CheckpointGoal | None = None
    """Not sized here (throughput per TiB is not published): refused with a clear line."""
    filesystem_type: str = "NETWORK_SSD"
    size_gib: StrictInt = 10240
    block_size_bytes: StrictInt = 4096
    mount_tag: str = "shared"
    mount_point: MountPath = "/shared"  # written into cloud-init and the mount command


NebiusStorage = Annotated[NebiusFilesystemConfig | NoStorage, Field(discriminator="type")]
"""The file systems a Nebius stack can have; the `type` key picks the model."""


class NebiusStackConfig(StackConfig):
    """A stack on Nebius: the common keys, `gpufabric:nebius` and Nebius's storage types."""

    nebius: NebiusSettings = Field(description="projectId and sshPublicKey (gpufabric:nebius)")
    storage: NebiusStorage = NoStorage(type="none")  # pyright: ignore[reportIncompatibleVariableOverride]


CONFIG = NebiusStackConfig
