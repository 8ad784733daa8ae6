"""OCI: a stack's cluster-network nodes (the instance pool's instances) and their addresses.

Linkage: the cluster network's one instance pool (outputs `nodes.groups[].id`, kind
cluster-network) lists its instances; each instance's primary VNIC holds its private address
on the front-end subnet (eth0). As the OCI CLI prints them (JSON, kebab-case keys, the body
under "data"; [P] docs.cloud.oracle.com oci_cli_docs compute-management/instance-pool/
list-instances, compute/vnic-attachment/list, network/vnic/get, compute/instance/list-vnics):
- `oci compute-management instance-pool list-instances --compartment-id C --instance-pool-id P`
  -> InstanceSummary: id, display-name, state ("Running"), availability-domain, shape;
- `oci compute vnic-attachment list --compartment-id C --all`
  -> VnicAttachment: instance-id, vnic-id, nic-index, lifecycle-state ("ATTACHED");
- `oci network vnic get --vnic-id V` (one VNIC) or `oci compute instance list-vnics
  --instance-id I` (a list) -> Vnic: id, private-ip, is-primary.
The OCI API has no call that returns an instance with its address, so all three are needed
(InstanceSummary has no address; Vnic has no instance id: the attachment joins them).
Host name: the instance's display-name; address: its primary VNIC's private-ip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gpufabric.clouds.oci.ids import ocid_problem
from gpufabric.discovery import Found, Node
from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.stack_outputs import StackOutputs

CLI = (
    "`oci compute-management instance-pool list-instances`, "
    "`oci compute vnic-attachment list` and `oci network vnic get` / "
    "`oci compute instance list-vnics`"
)


def shape(data: Any) -> str:
    """oci-pool | oci-attachments | oci-vnics | unknown, from the OCI CLI's JSON."""
    body = data.get("data") if isinstance(data, dict) else None
    items = [body] if isinstance(body, dict) else body
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        return "unknown"
    first = items[0]
    if "vnic-id" in first and "instance-id" in first:
        return "oci-attachments"
    if "private-ip" in first:
        return "oci-vnics"
    if "instance-configuration-id" in first or ("display-name" in first and "state" in first):
        return "oci-pool"
    return "unknown"


def _items(data: Any) -> list[dict[str, Any]]:
    body = data.get("data") if isinstance(data, dict) else None
    items = [body] if isinstance(body, dict) else body or []
    return [i for i in items if isinstance(i, dict)]


def match(outputs: StackOutputs, docs: Sequence[tuple[str, Any]]) -> Found:
    pools: list[tuple[str, dict[str, Any]]] = []
    attachments: dict[str, list[dict[str, Any]]] = {}
    vnics: dict[str, dict[str, Any]] = {}
    for origin, doc in docs:
        kind = shape(doc)
        if kind == "unknown":
            raise UserError(f"{origin}: not OCI CLI output I know; give {CLI} (JSON)")
        for item in _items(doc):
            if kind == "oci-pool":
                pools.append((origin, item))
            elif kind == "oci-attachments":
                attachments.setdefault(str(item.get("instance-id")), []).append(item)
            else:
                vnics[str(item.get("id"))] = item
    if not pools:
        raise UserError(f"discovery files: no instance pool listing among them; give {CLI}")
    found = Found()
    groups = {g.id: g for g in outputs.nodes.groups if g.kind == "cluster-network" and g.id}
    if not groups:
        raise UserError(
            "stack outputs: nodes.groups has no cluster-network with its instance "
            "pool id; these outputs cannot be matched on OCI"
        )
    # one pool per cluster network: every listed instance belongs to the outputs' pool, unless
    # the listing says otherwise (instance-pool-id is not in InstanceSummary), so outputs with
    # two could not say which pool's group a node is in
    if len(groups) > 1:
        names = ", ".join(g.name for g in groups.values())
        raise UserError(
            f"stack outputs: nodes.groups has {len(groups)} cluster networks ({names}); OCI "
            "discovery matches one (its listings do not say which pool an instance is in)"
        )
    (group,) = groups.values()
    for origin, inst in pools:
        name = inst.get("display-name")
        iid = inst.get("id")
        if not name or not iid:
            raise UserError(f"{origin}: an instance has no id or display-name")
        why = ocid_problem(iid, "instance", outputs.cluster.region)
        if why:
            raise UserError(f"{origin}: instance {types.show(name)}: id {types.show(iid)} {why}")
        name = str(name)
        elsewhere = _elsewhere(inst, outputs)
        if elsewhere:
            found.warnings.append(f"{name} ({group.name}): {elsewhere}; left out")
            continue
        state = str(inst.get("state", ""))
        address = _address(iid, attachments, vnics)
        if state.lower() != "running" or not address:
            why = (
                f"state {state or 'unknown'}"
                if state.lower() != "running"
                else ("no primary VNIC address among the discovery files")
            )
            found.warnings.append(f"{name} ({group.name}): {why}; left out")
            continue
        found.add(Node(name=name, address=address, group=group.name, instance_id=iid))
    return found


def _elsewhere(inst: Mapping[str, Any], outputs: StackOutputs) -> str:
    """Why a listed instance is not one of the stack's nodes: another availability domain,
    compartment or shape ('' when it is one; a field the listing lacks checks nothing)."""
    cluster = outputs.cluster
    for key, want, what in (
        ("availability-domain", cluster.zone, "availability domain"),
        ("compartment-id", cluster.compartment, "compartment"),
        ("shape", cluster.instance_type, "shape"),
    ):
        value = inst.get(key)
        if value is not None and want and value != want:
            return f"{what} {value}, not the stack's {want}"
    return ""


def _address(
    iid: str, attachments: Mapping[str, list[dict[str, Any]]], vnics: Mapping[str, dict[str, Any]]
) -> str:
    attached = [
        a
        for a in attachments.get(iid, [])
        if str(a.get("lifecycle-state", "ATTACHED")) == "ATTACHED"
    ]
    for att in sorted(attached, key=lambda a: int(a.get("nic-index") or 0)):
        vnic = vnics.get(str(att.get("vnic-id")))
        if vnic and vnic.get("is-primary", True) and vnic.get("private-ip"):
            return str(vnic["private-ip"])
    return ""


def recognise(data: Any) -> str | None:
    """'oci' for the OCI CLI's JSON (every response body under "data")."""
    if isinstance(data, dict) and isinstance(data.get("data"), dict | list):
        return "oci"
    return None


def from_docs(outputs: StackOutputs, docs: Sequence[tuple[Path, str, Any]]) -> Found:
    return match(outputs, [(f"discovery file {p}", doc) for p, _kind, doc in docs])


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    """The stack's nodes through the OCI SDK (gpufabric.clouds.oci.live), matched as above."""
    from gpufabric.clouds.oci.live import OciApi, listings

    del topology  # the topology source reads rdmaTopologyData itself
    compartment = outputs.cluster.compartment
    if not compartment:
        raise UserError("stack outputs: cluster.compartment: not set; oci discovery needs it")
    pools = [g.id for g in outputs.nodes.groups if g.kind == "cluster-network" and g.id]
    if not pools:
        raise UserError(
            "stack outputs: nodes.groups has no cluster-network with its instance "
            "pool id; these outputs cannot be matched on OCI"
        )
    api = client if isinstance(client, OciApi) else OciApi(outputs.cluster.region)
    docs = listings(api, compartment, pools)
    if not docs:
        return Found()  # an empty pool: the caller says no nodes were found
    return match(outputs, docs)
