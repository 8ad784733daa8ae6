"""AWS-only config: the `gpufabric:aws` section and FSx for Lustre storage."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    Field,
    StrictBool,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpufabric.config.base import (
    CheckpointGoal,
    ConfigModel,
    LustreNid,
    StorageSizing,
    no_squash_needs_squash,
)
from gpufabric.config.model import NoStorage, RootVolume, StackConfig
from gpufabric.errors import ConfigError
from gpufabric.inputs.types import MountPath

EfaLayout = Literal["efa-primary", "ena-primary"]
_KMS_RE = re.compile(
    r"^(arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:(key|alias)/.+|alias/.+|[0-9a-f-]{36})$"
)
_VPC_RE = re.compile(r"^vpc-[0-9a-f]{8,17}$")
# A Go duration as the AWS provider parses waitForCapacityTimeout (time.ParseDuration), or "0"
_DURATION_RE = re.compile(r"^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$")
DEFAULT_WAIT_FOR_CAPACITY = "30m"
_ORG_RE = re.compile(r"^o-[a-z0-9]{10,32}$")  # AWS Organizations id (OrganizationId pattern)


class AwsSettings(ConfigModel):
    """`gpufabric:aws`: what only AWS has."""

    image_id: str = (
        "resolve:ssm:/aws/service/deeplearning/ami/x86_64/"
        "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id"
    )
    efa_layout: EfaLayout = "ena-primary"
    """ena-primary: the current EFA guide's layout (ENA at card 0 / device 0, efa-only at
    card 0 / device 1); efa-primary: one EFA+ENA interface at card 0 / device 0."""
    existing_vpc_id: str | None = None
    organization_id: str | None = None
    """With network.egress=endpoints the S3 endpoint reaches only this organisation's buckets."""
    wait_for_capacity_timeout: str = DEFAULT_WAIT_FOR_CAPACITY
    """How long `pulumi up` waits for every node of the Auto Scaling group to be InService
    before it fails naming the group; "0" does not wait (nodes may be missing after `up`)."""

    @field_validator("wait_for_capacity_timeout", mode="before")
    @classmethod
    def _zero(cls, value: object) -> object:
        # `waitForCapacityTimeout: 0` in YAML (or `-c ...=0`) arrives as the integer 0; any
        # other number has no unit and stays refused
        return "0" if type(value) is int and value == 0 else value

    @field_validator("wait_for_capacity_timeout")
    @classmethod
    def _duration(cls, value: str) -> str:
        if not _DURATION_RE.match(value):
            raise ValueError('must be a duration like "30m", "1h30m" or "0" (do not wait)')
        return value

    @field_validator("organization_id")
    @classmethod
    def _org_format(cls, value: str | None) -> str | None:
        if value is not None and not _ORG_RE.match(value):
            raise ValueError("must look like o-a1b2c3d4e5 (your AWS Organizations id)")
        return value

    @field_validator("existing_vpc_id")
    @classmethod
    def _vpc_format(cls, value: str | None) -> str | None:
        if value is not None and not _VPC_RE.match(value):
            raise ValueError("must look like vpc-0123456789abcdef0")
        return value


class StorageMetadata(ConfigModel):
    mode: Literal["AUTOMATIC", "USER_PROVISIONED"] = "AUTOMATIC"
    iops: StrictInt | None = None

    @model_validator(mode="after")
    def _iops_rules(self) -> StorageMetadata:
        if self.mode == "AUTOMATIC":
            if self.iops is not None:
                raise ValueError("iops is only set with mode USER_PROVISIONED")
            return self
        allowed_small = (1500, 3000, 6000, 12000)
        ok = self.iops in allowed_small or (
            self.iops is not None and self.iops % 12000 == 0 and 12000 <= self.iops <= 192000
        )
        if not ok:
            raise ValueError(
                f"iops {self.iops} not allowed; use 1500, 3000, 6000, 12000 "
                "or a multiple of 12000 up to 192000"
            )
        return self


class S3Repository(ConfigModel):
    """An S3 data repository association (any deployment type offered here; FSx refuses
    them only on SCRATCH_1)."""

    data_repository_path: str
    file_system_path: str = "/data"
    auto_import: list[Literal["NEW", "CHANGED", "DELETED"]] = ["NEW", "CHANGED", "DELETED"]
    auto_export: list[Literal["NEW", "CHANGED", "DELETED"]] = []

    @field_validator("data_repository_path")
    @classmethod
    def _s3_url(cls, value: str) -> str:
        if not re.match(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$", value):
            raise ValueError("must be an s3://bucket/prefix URL")
        return value

    @field_validator("file_system_path")
    @classmethod
    def _abs_path(cls, value: str) -> str:
        if not value.startswith("/") or value == "/":
            raise ValueError("must be an absolute path below the file system root, e.g. /data")
        return value


def _kms_key(value: str) -> str:
    if not _KMS_RE.match(value):
        raise ValueError("must be a KMS key id, key ARN or alias/NAME")
    return value


KmsKey = Annotated[str, AfterValidator(_kms_key)]


class AwsRootVolume(RootVolume):
    kms_key_id: KmsKey | None = None  # pyright: ignore[reportIncompatibleVariableOverride]


def _persistent_2(storage: Any) -> None:
    if storage.deployment_type != "PERSISTENT_2":
        raise ConfigError(
            "gpufabric:storage.deploymentType",
            storage.deployment_type,
            "a checkpoint goal sizes PERSISTENT_2 (the steps table has no SCRATCH_2 "
            "throughput); use PERSISTENT_2, or drop the goal",
        )


class FsxLustreConfig(ConfigModel):
    """Amazon FSx for Lustre, in the nodes' zone."""

    SIZING: ClassVar[StorageSizing] = StorageSizing(
        ("throughput_per_tib", "throughputPerTib"),
        ("capacity_gib", "capacityGib"),
        variant_flag="efa",
        variant_label="EFA-enabled FSx",
        check=_persistent_2,
    )

    type: Literal["fsx-lustre"]
    checkpoint: CheckpointGoal | None = None
    """A goal to size capacityGib, throughputPerTib and efa from (those left unset)."""
    deployment_type: Literal["PERSISTENT_2", "SCRATCH_2"] = "PERSISTENT_2"
    capacity_gib: StrictInt = 4800
    throughput_per_tib: StrictInt | None = 1000
    efa: StrictBool = False
    metadata: StorageMetadata = StorageMetadata()
    s3: S3Repository | None = None
    kms_key_id: KmsKey | None = None
    mount_point: MountPath = "/fsx"
    zone: str | None = None
    """The file system's zone; unset means gpufabric:zone, the nodes' zone. Another zone is for
    when FSx has no capacity there: it costs cross-zone latency and transfer, and fails the
    policy pack's storage-in-node-zone unless the organisation downgrades that policy."""
    root_squash: StrictBool = True
    """Root on a client is the unprivileged 65534:65534 on the file system (FSx
    rootSquashConfiguration); false lets root on any node rewrite every file."""
    no_squash_nids: list[LustreNid] = []
    """Clients that keep root (an admin client that creates the users' directories)."""

    @field_validator("no_squash_nids")
    @classmethod
    def _no_squash(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return no_squash_needs_squash(value, info.data.get("root_squash"))


AwsStorage = Annotated[FsxLustreConfig | NoStorage, Field(discriminator="type")]
"""The file systems an AWS stack can have; the `type` key picks the model."""


class AwsStackConfig(StackConfig):
    """A stack on AWS: the common keys, `gpufabric:aws` and AWS's storage types."""

    aws: AwsSettings = AwsSettings()
    root_volume: AwsRootVolume = AwsRootVolume()  # pyright: ignore[reportIncompatibleVariableOverride]
    storage: AwsStorage = NoStorage(type="none")  # pyright: ignore[reportIncompatibleVariableOverride]


CONFIG = AwsStackConfig
