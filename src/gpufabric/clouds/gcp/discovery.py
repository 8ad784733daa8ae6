"""GCP: a stack's instances (Compute Engine) and their place in the physical topology.

Linkage: every instance a managed instance group creates carries the metadata item
`created-by` = the group's URL (`projects/NUMBER/zones/ZONE/instanceGroupManagers/NAME`);
live, listManagedInstances names the members and is the only thing trusted (metadata can be
set by anyone allowed to set it on any instance); `created-by` links only saved gcloud output. Individual instances are the names the outputs
list. Only instances in the stack's zone count (names are unique per zone only).
Host name: the instance name; address: nic0's networkIP (the host gVNIC). The leaf is the
sub-block of `resourceStatus.physicalHostTopology` (cluster/block/subblock, docs/sources.md C.3).

`Compute` is the project's one Compute Engine client (google-cloud-compute).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from gpufabric.clouds.gcp import ids
from gpufabric.clouds.gcp.topology import path_from_topology
from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.extras import require
from gpufabric.inputs import types
from gpufabric.inputs.formats import parse_json
from gpufabric.stack_outputs import NodeGroup, StackOutputs


class Compute:
    """google-cloud-compute clients for one project and zone; errors are one line."""

    def __init__(self, project: str, zone: str, instances: Any = None, groups: Any = None) -> None:
        if instances is None or groups is None:
            require("google.cloud.compute_v1", "GCP node discovery")
            from google.cloud import compute_v1

            instances = instances or compute_v1.InstancesClient()
            groups = groups or compute_v1.InstanceGroupManagersClient()
        self.instances_client, self.groups_client = instances, groups
        self.project, self.zone = project, zone

    def _call(self, what: str, fn: Any) -> list[Any]:
        from google.api_core.exceptions import GoogleAPICallError
        from google.auth.exceptions import GoogleAuthError

        try:
            return list(fn())  # the pagers fetch every page
        except (GoogleAPICallError, GoogleAuthError) as exc:
            raise UserError(
                f"gcp {what} in {self.project}/{self.zone}: {str(exc).splitlines()[0]}"
            ) from None

    def managed_instances(self, group: str) -> set[str]:
        """Names of a managed instance group's instances (listManagedInstances)."""
        items = self._call(
            f"listManagedInstances {group}",
            lambda: self.groups_client.list_managed_instances(
                project=self.project, zone=self.zone, instance_group_manager=group
            ),
        )
        return {str(m.instance).rsplit("/", 1)[-1] for m in items if m.instance}

    def list_instances(self) -> list[dict[str, Any]]:
        """The zone's instances as the REST API (and gcloud --format=json) prints them."""
        from google.cloud import compute_v1

        items = self._call(
            "instances.list",
            lambda: self.instances_client.list(project=self.project, zone=self.zone),
        )
        return [
            parse_json(compute_v1.Instance.to_json(i), where="compute_v1.Instance") for i in items
        ]


def _metadata(inst: Mapping[str, Any]) -> dict[str, str]:
    items = (inst.get("metadata") or {}).get("items") or []
    return {str(i.get("key")): str(i.get("value")) for i in items if isinstance(i, dict)}


def _in_zone(inst: Mapping[str, Any], zone: str) -> bool:
    return str(inst.get("zone", "")).rsplit("/", 1)[-1] == zone


def _group_of(
    inst: Mapping[str, Any], groups: Sequence[NodeGroup], zone: str, members: Mapping[str, set[str]]
) -> NodeGroup | None:
    name, created_by = inst["name"], _metadata(inst).get("created-by", "")
    for group in groups:
        if group.kind == "instances" and name in group.members:
            return group
        if group.kind != "managed-instance-group":
            continue
        listed = members.get(group.name)
        if listed is not None:  # live: the group's own member list, never metadata
            if name in listed:
                return group
        elif created_by.endswith(f"/zones/{zone}/instanceGroupManagers/{group.name}"):
            return group  # saved gcloud output has no member list: created-by links it
    return None


def instances(doc: Any, origin: str) -> Iterator[dict[str, Any]]:
    for inst in doc:
        if not isinstance(inst, dict) or not isinstance(inst.get("name"), str):
            raise UserError(f"{origin}: an instance has no 'name'")
        yield inst


def match(
    outputs: StackOutputs,
    docs: Sequence[tuple[str, Any]],
    members: Mapping[str, set[str]] | None = None,
) -> Found:
    found = Found()
    zone = outputs.cluster.zone
    networks = _stack_networks(outputs)
    for origin, doc in docs:
        for inst in instances(doc, origin):
            if not _in_zone(inst, zone):
                continue
            group = _group_of(inst, outputs.nodes.groups, zone, members or {})
            if group is None:
                continue
            name, status = inst["name"], str(inst.get("status", ""))
            nics = inst.get("networkInterfaces") or []
            where = _outside(nics, networks)
            if where:
                found.warnings.append(f"{name} ({group.name}): {where}; left out")
                continue
            address = (
                str(nics[0].get("networkIP", "")) if nics and isinstance(nics[0], dict) else ""
            )
            if status != "RUNNING" or not address:
                why = (
                    f"status {status or 'unknown'}" if status != "RUNNING" else "no private address"
                )
                found.warnings.append(f"{name} ({group.name}): {why}; left out")
                continue
            topo = (inst.get("resourceStatus") or {}).get("physicalHostTopology")
            path = path_from_topology(topo, origin, name) if topo else ()
            found.add(
                Node(
                    name=name,
                    address=address,
                    group=group.name,
                    instance_id=_instance_id(inst, origin),
                    leaf=path[-1] if path else "",
                    path=path,
                )
            )
    return found


def _instance_id(inst: Mapping[str, Any], origin: str) -> str:
    """The instance's numeric id (gcloud prints it as a string), '' when the listing has none."""
    value = inst.get("id")
    if value is None:
        return ""
    where = f"{origin}: instance {inst['name']!r}: id"
    number = isinstance(value, int) and not isinstance(value, bool)  # JSON true is no id
    return types.check(ids.InstanceId, str(value) if number else value, where)


def _network_path(value: object) -> str:
    """'projects/P/global/networks/N' of a network id or self link; '' for anything else."""
    text = str(value)
    cut = text.find("projects/")
    path = text[cut:] if cut >= 0 else ""
    return path if path.count("/") == 4 and "/global/networks/" in path else ""


def _stack_networks(outputs: StackOutputs) -> set[str]:
    """The stack's VPCs from its outputs (offline plans hold placeholders: no check)."""
    raw = outputs.network.get("networks")
    found = {_network_path(n) for n in raw} if isinstance(raw, list) else set()
    return found - {""}


def _outside(nics: Sequence[Any], networks: set[str]) -> str:
    """Why the instance's first NIC is not on one of the stack's VPCs ('' when it is)."""
    if not networks:
        return ""
    first = nics[0] if nics and isinstance(nics[0], dict) else {}
    path = _network_path(first.get("network", ""))
    return "" if path in networks else f"on network {path or '(none)'}, not one of the stack's"


def recognise(data: Any) -> str | None:
    """'gcp' for `gcloud compute instances list --format=json` (a list of instances)."""
    first = data[0] if isinstance(data, list) and data else None
    if isinstance(first, dict) and "networkInterfaces" in first and "name" in first:
        return "gcp"
    return None


def from_docs(outputs: StackOutputs, docs: Sequence[tuple[Path, str, Any]]) -> Found:
    return match(outputs, [(f"discovery file {p}", doc) for p, _kind, doc in docs])


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    del topology  # the instance resource carries its topology
    project = outputs.cluster.project
    if not project:
        raise UserError("stack outputs: cluster.project: not set; gcp discovery needs it")
    compute = client if isinstance(client, Compute) else Compute(project, outputs.cluster.zone)
    members = {
        g.name: compute.managed_instances(g.name)
        for g in outputs.nodes.groups
        if g.kind == "managed-instance-group"
    }
    return match(outputs, [("gcp", compute.list_instances())], members)
