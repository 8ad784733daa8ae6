"""The typed stack configuration: every `gpufabric:*` key, validated once.

Field names are snake_case in Python and camelCase in stack files (the alias), as Pulumi
users write them. Cross-field rules that need the instance catalog live in validate.py.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import Field, PrivateAttr, StrictBool, StrictInt, field_validator, model_validator

from gpufabric.catalog import InstanceType
from gpufabric.config.base import Cidr, ConfigModel
from gpufabric.vocabulary import EncryptionMode

NodeGroupMode = Literal["group", "instances"]
CapacityType = Literal["on-demand", "reservation", "capacity-block"]
EgressMode = Literal["nat", "endpoints", "none"]

_NAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,30}[a-z0-9]$")


class CapacityTarget(ConfigModel):
    """One of several reservations (or blocks) and how many of the nodes go on it."""

    id: str
    nodes: StrictInt = Field(ge=1)


class CapacityConfig(ConfigModel):
    """How the GPU capacity is bought."""

    type: CapacityType = "on-demand"
    reservation_id: str | None = None
    resource_group_arn: str | None = None
    """A capacity reservation resource group (several reservations or capacity blocks behind
    one cluster), instead of one reservationId, where the cloud has them (its spec says)."""
    reservations: list[CapacityTarget] | None = None
    """Several reservations (ids, or block and sub-block paths, as the cloud names them), each
    with its share of the nodes (together gpufabric:nodes), instead of one reservationId
    (`gpufabric capacity plan` writes them)."""

    @model_validator(mode="after")
    def _reservation_needed(self) -> CapacityConfig:
        targets = [
            t
            for t in (self.reservation_id, self.resource_group_arn, self.reservations)
            if t is not None
        ]
        if self.type in ("reservation", "capacity-block") and not targets:
            raise ValueError(f"capacity type '{self.type}' needs reservationId")
        if self.type == "on-demand" and targets:
            raise ValueError(
                "reservationId / resourceGroupArn / reservations are only used with type "
                "reservation or capacity-block"
            )
        if len(targets) > 1:
            given = [
                key
                for key, value in (
                    ("reservationId", self.reservation_id),
                    ("resourceGroupArn", self.resource_group_arn),
                    ("reservations", self.reservations),
                )
                if value is not None
            ]
            raise ValueError(
                f"set {' or '.join(given)}, not both"
                if len(given) == 2
                else "set only one of reservationId, resourceGroupArn and reservations"
            )
        if self.reservations is not None:
            ids = [t.id for t in self.reservations]
            if not ids:
                raise ValueError("reservations is empty; name at least one")
            if len(set(ids)) != len(ids):
                raise ValueError("reservations names one reservation twice")
        return self

    def target_ids(self) -> list[str]:
        """Every reservation the nodes are placed on (one reservationId, or reservations)."""
        if self.reservations is not None:
            return [t.id for t in self.reservations]
        return [self.reservation_id] if self.reservation_id is not None else []


class FlowLogsConfig(ConfigModel):
    """`gpufabric:network.flowLogs`: record the flows of the cluster's network."""

    destination: str | None = None
    """Where the flow records go, in the cloud's own terms (a bucket, a storage account, or
    unset where the cloud has one place for them); each cloud's rules say which."""


class NetworkConfig(ConfigModel):
    """Network partitions: one address range, separate subnets per traffic class."""

    cidr: Cidr = "10.0.0.0/16"
    fabric_subnet: Cidr = "10.0.0.0/18"
    storage_subnet: Cidr = "10.0.64.0/24"
    management_subnet: Cidr = "10.0.65.0/24"
    egress_subnet: Cidr = "10.0.66.0/28"
    egress: EgressMode = "nat"
    management_cidr: Cidr | None = None
    flow_logs: FlowLogsConfig | None = None

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


class NoStorage(ConfigModel):
    type: Literal["none"]


class RootVolume(ConfigModel):
    size_gib: StrictInt = Field(default=512, ge=100, le=16384)
    kms_key_id: str | None = None
    """A customer-managed key for the root volume: its form is the cloud's (a cloud's stack
    model narrows the type); on a cloud that declares none, the key is refused
    (config.validate)."""


_PLAYBOOK_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}\.yml$")


class BootSettings(ConfigModel):
    """`gpufabric:boot`: the nodes configure themselves at first boot. With `enabled`, the
    program renders the stack's configuration bundle (gpufabric.bundle), puts it in the stack's
    own private object storage, lets only the nodes read it, and makes the nodes' user data the
    cloud-config that fetches it, checks its sha256 and runs the playbooks locally."""

    enabled: StrictBool = False
    runtime: str = "index"
    """Where the node's Ansible comes from: `index` (the node's package index) or
    `python:/ABSOLUTE/PATH` (an image with ansible-core baked in)."""
    playbooks: list[str] = ["tune-fabric.yml"]

    @field_validator("runtime")
    @classmethod
    def _runtime(cls, value: str) -> str:
        if value != "index" and not re.fullmatch(r"python:/[A-Za-z0-9_./+-]+", value):
            raise ValueError("must be index or python:/ABSOLUTE/PATH of a Python with Ansible")
        return value

    @field_validator("playbooks")
    @classmethod
    def _playbooks(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("name at least one playbook, e.g. tune-fabric.yml")
        for book in value:
            if not _PLAYBOOK_RE.match(book):
                raise ValueError(
                    f"{book!r}: a playbook file name in playbooks/, e.g. tune-fabric.yml"
                )
        return value


class StackConfig(ConfigModel):
    """What every stack file says about its cluster; a cloud's package extends it with its
    `gpufabric:<cloud>` section and its storage types (gpufabric.clouds.<cloud>.settings)."""

    stack: str = Field(exclude=True)
    region: str = Field(exclude=True)
    instance_type: str = Field(description="an instance type from the catalog, e.g. p5.48xlarge")
    nodes: StrictInt = Field(ge=1, le=4096, description="an integer number of GPU nodes, 1-4096")
    cluster_name: str | None = None
    zone: str = Field(
        description="the one zone of nodes and storage, e.g. us-east-1a",
        coerce_numbers_to_str=True,  # zones numbered "1".."3" arrive from config as numbers
    )
    encryption: EncryptionMode = Field(
        description="one of provider-native, ipsec, none (none must be chosen explicitly)"
    )
    node_group: NodeGroupMode = "group"
    capacity: CapacityConfig = CapacityConfig()
    network: NetworkConfig = NetworkConfig()
    storage: ConfigModel = NoStorage(type="none")
    """The file system: each cloud's model narrows this to its own storage types."""
    root_volume: RootVolume = RootVolume()
    user_data: str | None = None
    boot: BootSettings = BootSettings()
    tags: dict[str, str] = {}
    _instance: InstanceType | None = PrivateAttr(default=None)

    @property
    def instance(self) -> InstanceType:
        """The instance type's catalog entry, looked up once when the config was parsed."""
        if self._instance is None:
            raise RuntimeError("StackConfig.instance: parse the config with gpufabric.config.parse")
        return self._instance

    @field_validator("cluster_name")
    @classmethod
    def _name_format(cls, value: str | None) -> str | None:
        if value is not None and not _NAME_RE.match(value):
            raise ValueError(
                "must be 2-32 lowercase letters, digits or '-', starting with a letter"
            )
        return value

    @property
    def name(self) -> str:
        """The cluster's name: clusterName, or the stack name."""
        return self.cluster_name or self.stack
