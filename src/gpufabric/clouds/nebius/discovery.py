"""Nebius: a stack's VMs (members of its GPU cluster) and their place on the InfiniBand fabric.

Linkage: every VM of the stack joined its GPU cluster at creation; `spec.gpu_cluster.id` is the
cluster's id (outputs `nodes.groups[].id`, kind instances), and the outputs list the VM names
(`members`). From `nebius compute instance list --parent-id PROJECT --format json`
({"items": [Instance]}: metadata.name / id, spec.gpu_cluster.id, status.state,
status.network_interfaces[].ip_address.address "10.0.0.5/32",
status.infiniband_topology_path.path = 3 switch ids root -> leaf; [P] the Nebius compute v1
Instance message, as pulumi-nebius and NVIDIA/topograph read it). Proto JSON may spell keys
in lowerCamelCase: both are read. Host name: metadata.name; address: eth0's private address;
leaf: the last switch of the InfiniBand path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpufabric.clouds.nebius import ids
from gpufabric.clouds.nebius.topology import eth0_address, field, ib_path
from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.stack_outputs import StackOutputs

CLI = "`nebius compute instance list --parent-id PROJECT --format json`"


def shape(data: Any) -> str:
    items = data.get("items") if isinstance(data, dict) else None
    if isinstance(items, list) and items and isinstance(items[0], dict) and "metadata" in items[0]:
        return "nebius"
    return "unknown"


def match(outputs: StackOutputs, docs: Sequence[tuple[str, Any]]) -> Found:
    found = Found()
    groups = [g for g in outputs.nodes.groups if g.kind == "instances"]
    for origin, doc in docs:
        items = doc.get("items") if isinstance(doc, dict) else None
        if not isinstance(items, list):
            raise UserError(f"{origin}: not {CLI} output (no 'items' list)")
        for inst in items:
            if not isinstance(inst, dict):
                raise UserError(f"{origin}: an instance entry is not an object")
            meta, spec = field(inst, "metadata") or {}, field(inst, "spec") or {}
            name = field(meta, "name")
            if not isinstance(name, str) or not name:
                raise UserError(f"{origin}: an instance has no metadata.name")
            cluster = field(field(spec, "gpu_cluster", "gpuCluster"), "id")
            group = next(
                (g for g in groups if name in g.members or (g.id is not None and cluster == g.id)),
                None,
            )
            if group is None:
                continue
            iid = field(meta, "id")
            if iid is not None:
                types.check(ids.InstanceId, iid, f"{origin}: instance {name!r}: metadata.id")
            shape = _shape(spec)
            if shape and shape != outputs.cluster.instance_type:
                found.warnings.append(
                    f"{name} ({group.name}): shape {shape}, not the stack's "
                    f"{outputs.cluster.instance_type}; left out"
                )
                continue
            state = str(field(field(inst, "status"), "state") or "")
            address = eth0_address(inst)
            if state != "RUNNING" or not address:
                why = f"state {state or 'unknown'}" if state != "RUNNING" else "no private address"
                found.warnings.append(f"{name} ({group.name}): {why}; left out")
                continue
            where = field(
                field(inst, "status"), "infiniband_topology_path", "infinibandTopologyPath"
            )
            path = ib_path(where, origin, name)
            found.add(
                Node(
                    name=name,
                    address=address,
                    group=group.name,
                    instance_id=str(field(meta, "id") or ""),
                    leaf=path[-1] if path else "",
                    path=tuple(path or ()),
                )
            )
    return found


def _shape(spec: Any) -> str:
    """platform/preset of spec.resources (the catalog's name for it); '' when not listed."""
    resources = field(spec, "resources")
    platform, preset = field(resources, "platform"), field(resources, "preset")
    return f"{platform}/{preset}" if platform and preset else ""


def recognise(data: Any) -> str | None:
    """'nebius' for `nebius compute instance list --format json` (items with metadata)."""
    items = data.get("items") if isinstance(data, dict) else None
    if isinstance(items, list) and (
        not items or (isinstance(items[0], dict) and "metadata" in items[0])
    ):
        return "nebius"
    return None


def from_docs(outputs: StackOutputs, docs: Sequence[tuple[Path, str, Any]]) -> Found:
    return match(outputs, [(f"discovery file {p}", doc) for p, _kind, doc in docs])


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    """The stack's nodes through the Nebius SDK (gpufabric.clouds.nebius.live): the project's
    instances, matched as above (the InfiniBand path is part of each instance)."""
    from gpufabric.clouds.nebius.live import NebiusApi

    del topology
    project = outputs.cluster.project
    if not project:
        raise UserError("stack outputs: cluster.project: not set; nebius discovery needs it")
    types.check(ids.ProjectId, project, "stack outputs: cluster.project")
    api = client if isinstance(client, NebiusApi) else NebiusApi()
    items = api.list_instances(project)
    if not items:
        return Found()  # an empty project: the caller says no nodes were found
    return match(outputs, [(f"the Nebius API (project {project})", {"items": items})])
