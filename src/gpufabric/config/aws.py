"""AWS-only config: the `gpufabric:aws` section and FSx for Lustre storage."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import StrictBool, StrictInt, field_validator, model_validator

from gpufabric.config.base import CheckpointGoal, ConfigModel, KmsKey, NodePath

EfaLayout = Literal["efa-primary", "ena-primary"]
_VPC_RE = re.compile(r"^vpc-[0-9a-f]{8,17}$")


class AwsSettings(ConfigModel):
    """`gpufabric:aws`: what only AWS has."""

    image_id: str = (
        "resolve:ssm:/aws/service/deeplearning/ami/x86_64/"
        "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id"
    )
    efa_layout: EfaLayout = "efa-primary"
    existing_vpc_id: str | None = None

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
    """An S3 data repository association (PERSISTENT_2 only)."""

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


class FsxLustreConfig(ConfigModel):
    """Amazon FSx for Lustre, in the nodes' zone."""

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
    mount_point: NodePath = "/fsx"
    zone: str | None = None
    """The file system's zone; unset means gpufabric:zone, the nodes' zone. Another zone is for
    when FSx has no capacity there: it costs cross-zone latency and transfer, and fails the
    policy pack's storage-in-node-zone unless the organisation downgrades that policy."""
