"""The typed stack configuration: every `gpufabric:*` key, validated once.

Field names are snake_case in Python and camelCase in stack files (the alias), as Pulumi
users write them. Cross-field rules that need the instance catalog live in validate.py.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

EncryptionMode = Literal["provider-native", "ipsec", "none"]
NodeGroupMode = Literal["group", "instances"]
CapacityType = Literal["on-demand", "reservation", "capacity-block"]
EgressMode = Literal["nat", "endpoints", "none"]
EfaLayout = Literal["efa-primary", "ena-primary"]

_NAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$")
_RESERVATION_RE = re.compile(r"^cr-[0-9a-f]{8,17}$")
_VPC_RE = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_KMS_RE = re.compile(r"^(arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:(key|alias)/.+|alias/.+|[0-9a-f-]{36})$")


def _ipv4_network(value: str) -> str:
    try:
        net = ipaddress.IPv4Network(value, strict=True)
    except ValueError as exc:
        raise ValueError(f"must be an IPv4 network in CIDR form, e.g. 10.0.0.0/16 ({exc})") from exc
    return str(net)


Cidr = Annotated[str, AfterValidator(_ipv4_network)]


def _kms_key(value: str) -> str:
    if not _KMS_RE.match(value):
        raise ValueError("must be a KMS key id, key ARN or alias/NAME")
    return value


KmsKey = Annotated[str, AfterValidator(_kms_key)]


class ConfigModel(BaseModel):
    """Base for config sections: camelCase keys, unknown keys rejected, immutable."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


class CapacityConfig(ConfigModel):
    """How the GPU capacity is bought."""

    type: CapacityType = "on-demand"
    reservation_id: str | None = None

    @field_validator("reservation_id")
    @classmethod
    def _reservation_format(cls, value: str | None) -> str | None:
        if value is not None and not _RESERVATION_RE.match(value):
            raise ValueError("must look like cr-0123456789abcdef0")
        return value

    @model_validator(mode="after")
    def _reservation_needed(self) -> CapacityConfig:
        if self.type in ("reservation", "capacity-block") and self.reservation_id is None:
            raise ValueError(f"capacity type '{self.type}' needs reservationId")
        if self.type == "on-demand" and self.reservation_id is not None:
            raise ValueError("reservationId is only used with type reservation or capacity-block")
        return self


class NetworkConfig(ConfigModel):
    """Network partitions: one address range, separate subnets per traffic class."""

    existing_vpc_id: str | None = None
    cidr: Cidr = "10.0.0.0/16"
    fabric_subnet: Cidr = "10.0.0.0/18"
    storage_subnet: Cidr = "10.0.64.0/24"
    management_subnet: Cidr = "10.0.65.0/24"
    egress_subnet: Cidr = "10.0.66.0/28"
    egress: EgressMode = "nat"
    management_cidr: Cidr | None = None

    @field_validator("existing_vpc_id")
    @classmethod
    def _vpc_format(cls, value: str | None) -> str | None:
        if value is not None and not _VPC_RE.match(value):
            raise ValueError("must look like vpc-0123456789abcdef0")
        return value

    @field_validator("management_cidr")
    @classmethod
    def _not_the_internet(cls, value: str | None) -> str | None:
        if value is not None and ipaddress.IPv4Network(value).prefixlen == 0:
            raise ValueError("SSH from 0.0.0.0/0 is not allowed; name your admin network")
        return value

    def subnets(self) -> dict[str, str]:
        """The partitions this network carves out of `cidr`, by role."""
        named = {
            "fabric": self.fabric_subnet,
            "storage": self.storage_subnet,
            "management": self.management_subnet,
        }
        if self.egress == "nat":
            named["egress"] = self.egress_subnet
        return named


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
    deployment_type: Literal["PERSISTENT_2", "SCRATCH_2"] = "PERSISTENT_2"
    capacity_gib: StrictInt = 4800
    throughput_per_tib: StrictInt | None = 1000
    efa: bool = False
    metadata: StorageMetadata = StorageMetadata()
    s3: S3Repository | None = None
    kms_key_id: KmsKey | None = None
    mount_point: str = "/fsx"


class NoStorage(ConfigModel):
    type: Literal["none"]


StorageConfig = Annotated[FsxLustreConfig | NoStorage, Field(discriminator="type")]


class RootVolume(ConfigModel):
    size_gib: StrictInt = Field(default=512, ge=100, le=16384)
    kms_key_id: KmsKey | None = None


class StackConfig(ConfigModel):
    """Everything one stack file says about one cluster."""

    stack: str = Field(exclude=True)
    region: str = Field(exclude=True)
    instance_type: str
    nodes: StrictInt = Field(ge=1, le=4096)
    cluster_name: str | None = None
    zone: str
    encryption: EncryptionMode
    node_group: NodeGroupMode = "group"
    capacity: CapacityConfig = CapacityConfig()
    network: NetworkConfig = NetworkConfig()
    storage: StorageConfig = NoStorage(type="none")
    root_volume: RootVolume = RootVolume()
    image_id: str = (
        "resolve:ssm:/aws/service/deeplearning/ami/x86_64/"
        "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id"
    )
    efa_layout: EfaLayout = "efa-primary"
    user_data: str | None = None
    tags: dict[str, str] = {}

    @field_validator("cluster_name")
    @classmethod
    def _name_format(cls, value: str | None) -> str | None:
        if value is not None and not _NAME_RE.match(value):
            raise ValueError("must be 2-32 lowercase letters, digits or '-', starting with a letter")
        return value

    @property
    def name(self) -> str:
        """The cluster's name: clusterName, or the stack name."""
        return self.cluster_name or self.stack
