"""The stack outputs: the one contract between `pulumi up` and `tune-fabric`.

What a stack exports is this module's `StackOutputs`, and nothing else holds the same facts:
- the Pulumi side: each cloud's cluster component builds it with `build()` inside one
  `.apply` (plain values only: this module never imports pulumi), and infra/__main__.py exports
  `StackOutputs.exports()`, key by key;
- the Ansible side: the `gpufabric_pulumi` inventory reads it back with `parse()` from the JSON
  that `pulumi stack output --json --show-secrets` prints, finds the nodes of `nodes.groups`
  in the cloud, and sets `group_vars()` on every host;
- the policies read the exported outputs with `parse()` too.

The words both sides share (fabrics, encryption modes, node-group kinds) and the
provider-native rule live in gpufabric.vocabulary; Ansible gets them through the filters in
plugins/filter, never as a list spelled out in a playbook.

A cloud's cluster component (gpufabric.clouds.<cloud>.cluster) builds the outputs once the
names are known:

       outputs = pulumi.Output.all(group=group.name, ...).apply(lambda v: stack_outputs.build(
           cfg, itype,
           groups=[NodeGroup(kind="scale-set", name=v["group"], count=cfg.nodes)],
           network={...}, storage=None))
       self.outputs = ClusterOutputs(outputs)          # gpufabric.clouds.outputs
       self.outputs.register(self)

and its discovery module lists that kind of group (live and from the cloud CLI's JSON); the
inventory, policies and playbooks need no change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from gpufabric.clouds.registry import CloudName
from gpufabric.errors import UserError
from gpufabric.vocabulary import CloudFabric, EncryptionMode, GroupKind

# --- the outputs -------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Cluster(_Model):
    """Who the nodes are and how tune-fabric must treat them (the gpufabric_* group vars)."""

    cloud: CloudName
    name: str = Field(min_length=1)
    stack: str = Field(min_length=1)
    region: str = Field(min_length=1)
    zone: str = Field(min_length=1)
    instance_type: str = Field(alias="instanceType", min_length=1)
    fabric: CloudFabric
    encryption: EncryptionMode
    project: str | None = None
    """Where the cloud groups resources in projects: the nodes' project (discovery needs it)."""
    resource_group: str | None = Field(default=None, alias="resourceGroup")
    """Where the cloud groups resources in resource groups: the scale sets' (discovery needs it)."""
    compartment: str | None = None
    """Where the cloud groups resources in compartments: the instance pool's (discovery needs it)."""


class NodeGroup(_Model):
    """One set of nodes the cloud manages together, and how discovery finds its members:
    autoscaling-group (members tagged with the group's name), managed-instance-group (the
    group's own member list), scale-set (its VMs and their NICs), cluster-network (`id` = its
    instance pool), instances (`members` = the instance ids or names; `id` = the cluster they
    join, where the cloud has one). Each cloud's discovery module reads its kinds."""

    kind: GroupKind
    name: str = Field(min_length=1)
    count: int = Field(ge=1)
    members: list[str] = Field(default_factory=list)
    id: str | None = None
    partition: int | None = None
    """The fabric partition, where the cloud splits the fabric (one per scale set; no fabric
    traffic between partitions)."""


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
    own network (each cloud's discovery module reads its own ids here)."""
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
