"""The stack outputs: the one contract between `pulumi up` and `tune-fabric`.

What a stack exports is this module's `StackOutputs`, and nothing else holds the same facts:
- the Pulumi side: each cloud's cluster component builds it with `build()` inside one
  `.apply` (plain values only: this module never imports pulumi), and infra/__main__.py exports
  `StackOutputs.exports()`, key by key;
- the Ansible side: the `gpufabric_pulumi` inventory reads it back with `parse()` from the JSON
  that `pulumi stack output --json --show-secrets` prints, finds the nodes of `nodes.groups`
  in the cloud, and sets `group_vars()` on every host;
- the policies read the exported outputs with `parse()` too.

The lists and the rule both sides share are defined here once as well: the fabrics
(`FABRICS`, the catalog's `CloudFabric` plus the lab), the encryption modes
(`ENCRYPTION_MODES`) and the provider-native rule (`encryption_problem`). Ansible gets them
through the filters in plugins/filter (`gpufabric_switch_problem`,
`gpufabric_encryption_problem`), never as a list spelled out in a playbook.

A new cloud, in three steps:
1. add its name to `Cloud` (and the node-group kind it uses to `GroupKind`, if new);
2. in its cluster component, once the names are known:

       outputs = pulumi.Output.all(group=group.name, ...).apply(lambda v: stack_outputs.build(
           cfg, itype,
           groups=[NodeGroup(kind="scale-set", name=v["group"], count=cfg.nodes)],
           network={...}, storage=None))
       self.outputs = ClusterOutputs(outputs)          # gpufabric.clouds.outputs
       self.outputs.register(self)

3. teach gpufabric.discovery how to list that kind of group (live and from the cloud CLI's
   JSON); the inventory, policies and playbooks need no change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from gpufabric.errors import UserError

# --- the lists, once ---------------------------------------------------------------------

Cloud = Literal["aws", "gcp", "azure", "oci", "nebius"]
CloudFabric = Literal["efa", "infiniband", "roce", "tcpxo", "tcpx"]
"""Fabrics an instance type in the catalog can have."""
Fabric = Literal[CloudFabric, "lab"]
"""Every value of gpufabric_fabric: the cloud fabrics plus the lab's."""
EncryptionMode = Literal["provider-native", "ipsec", "none"]
GroupKind = Literal[
    "autoscaling-group", "instances", "managed-instance-group", "scale-set", "cluster-network"
]

CLOUDS: tuple[str, ...] = get_args(Cloud)
CLOUD_FABRICS: tuple[str, ...] = get_args(CloudFabric)
FABRICS: tuple[str, ...] = get_args(Fabric)
ENCRYPTION_MODES: tuple[str, ...] = get_args(EncryptionMode)

TOPOLOGY_SOURCE: dict[str, str] = {
    "aws": "aws",
    "gcp": "gcp",
    "azure": "ib",
    "oci": "oci",
    "nebius": "nebius",
}
"""Where the topology role asks for the network topology of a cloud's nodes when the inventory
does not know every leaf (topology_source): DescribeInstanceTopology, the GCP metadata
server's physical_host, ibnetdiscover on the InfiniBand fabric (Azure exposes no switch
topology), OCI's rdmaTopologyData and Nebius's instance-data metadata."""

SWITCHES: dict[str, tuple[str, ...]] = {
    "gpufabric_fabric": FABRICS,
    "gpufabric_encryption": ENCRYPTION_MODES,
}
"""The cluster-wide Ansible switches whose values are one of a list."""


# --- the rules, once ---------------------------------------------------------------------


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


# --- the outputs -------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Cluster(_Model):
    """Who the nodes are and how tune-fabric must treat them (the gpufabric_* group vars)."""

    cloud: Cloud
    name: str = Field(min_length=1)
    stack: str = Field(min_length=1)
    region: str = Field(min_length=1)
    zone: str = Field(min_length=1)
    instance_type: str = Field(alias="instanceType", min_length=1)
    fabric: CloudFabric
    encryption: EncryptionMode
    project: str | None = None
    """GCP, Nebius: the project holding the nodes (the discovery calls need it)."""
    resource_group: str | None = Field(default=None, alias="resourceGroup")
    """Azure: the resource group holding the scale sets (the discovery calls need it)."""
    compartment: str | None = None
    """OCI: the compartment holding the instance pool (the discovery calls need it)."""


class NodeGroup(_Model):
    """One set of nodes the cloud manages together, and how discovery finds its members:
    autoscaling-group (AWS; tag aws:autoscaling:groupName = name), managed-instance-group
    (GCP; listManagedInstances / metadata created-by), scale-set (Azure; VMSS VMs and their
    NICs), cluster-network (OCI; `id` = its instance pool), instances (`members` = AWS
    instance ids, GCP or Nebius instance names; Nebius: `id` = the GPU cluster)."""

    kind: GroupKind
    name: str = Field(min_length=1)
    count: int = Field(ge=1)
    members: list[str] = Field(default_factory=list)
    id: str | None = None
    partition: int | None = None
    """Azure: the InfiniBand partition (one per scale set; no InfiniBand between partitions)."""


class Nodes(_Model):
    count: int = Field(ge=1)
    groups: list[NodeGroup] = Field(min_length=1)


class Storage(_Model):
    """The co-located file system, for the people mounting it (`pulumi stack output storage`)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    type: str
    mount_point: str = Field(alias="mountPoint")
    mount_command: str | None = Field(default=None, alias="mountCommand")


class StackOutputs(_Model):
    """Everything a stack exports (`pulumi stack output --json`)."""

    cluster: Cluster
    nodes: Nodes
    network: dict[str, JsonValue]
    """The cloud's network ids (VPC, subnets, security groups, placement): for people
    (`pulumi stack output network`) and for discovery, which keeps only nodes in the stack's
    own network (gpufabric.discovery: AWS vpcId/subnets, GCP networks, Azure subnets)."""
    storage: Storage | None = None

    def exports(self) -> dict[str, Any]:
        """Output name -> JSON value, as infra/__main__.py exports them."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True) | {
            "storage": self.storage.model_dump(mode="json", by_alias=True, exclude_none=True)
            if self.storage
            else None
        }

    def group_vars(self) -> dict[str, Any]:
        """The cluster switches every host gets (gpufabric_* group variables)."""
        c = self.cluster
        out: dict[str, Any] = {
            "gpufabric_cloud": c.cloud,
            "gpufabric_cluster": c.name,
            "gpufabric_stack": c.stack,
            "gpufabric_region": c.region,
            "gpufabric_zone": c.zone,
            "gpufabric_instance_type": c.instance_type,
            "gpufabric_fabric": c.fabric,
            "gpufabric_encryption": c.encryption,
        }
        return out


EXPORTS: tuple[str, ...] = tuple(f.alias or n for n, f in StackOutputs.model_fields.items())
"""The stack's output names, in order."""


def build(
    cfg: Any,
    itype: Any,
    *,
    groups: list[NodeGroup],
    network: Mapping[str, Any],
    storage: Mapping[str, Any] | None,
    project: str | None = None,
    resource_group: str | None = None,
    compartment: str | None = None,
) -> StackOutputs:
    """The outputs of one cluster from its validated config (`gpufabric.config.StackConfig`),
    its catalog entry (`gpufabric.catalog.InstanceType`) and the plain values the component
    knows once its resources have names (where its nodes live: `project`, `resource_group`,
    `compartment`, as the cloud calls it). A bad value is a bug in the component: ValueError
    naming the field."""
    try:
        return StackOutputs(
            cluster=Cluster(
                cloud=itype.cloud,
                name=cfg.name,
                stack=cfg.stack,
                region=cfg.region,
                zone=cfg.zone,
                instanceType=itype.name,
                fabric=itype.fabric,
                encryption=cfg.encryption,
                project=project,
                resourceGroup=resource_group,
                compartment=compartment,
            ),
            nodes=Nodes(count=sum(g.count for g in groups), groups=groups),
            network=dict(network),
            storage=Storage.model_validate(dict(storage)) if storage is not None else None,
        )
    except ValidationError as exc:
        raise ValueError(f"stack outputs: {_first(exc)}") from None


def parse(data: Any, origin: str = "stack outputs") -> StackOutputs:
    """Validate decoded outputs (`pulumi stack output --json`); a bad or missing key is one
    UserError line naming `origin` and the key."""
    if not isinstance(data, dict):
        raise UserError(
            f"{origin}: expected a JSON object of stack outputs, got {type(data).__name__}"
        )
    missing = [name for name in ("cluster", "nodes") if name not in data]
    if missing:
        raise UserError(
            f"{origin}: no '{missing[0]}' section; these are not the outputs of a "
            f"gpufabric stack (expected: {', '.join(EXPORTS)})"
        )
    try:
        return StackOutputs.model_validate(data)
    except ValidationError as exc:
        raise UserError(f"{origin}: {_first(exc)}") from None


def _first(exc: ValidationError) -> str:
    err = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top)"
    return f"{where}: {err['msg']}"
