"""Find a stack's nodes in its cloud, from the node groups its outputs name.

Two ways in, one matcher per cloud:
- live, through the cloud's own SDK, with one client per cloud that topology discovery shares
  (`aws.Ec2`, `gcp.Compute`, `azure.Azure`);
- offline, from the JSON the cloud's own CLI prints (`discovery_file:` of the inventory):
  `aws ec2 describe-instances --output json` (plus, optionally,
  `aws ec2 describe-instance-topology --output json` for the leaves),
  `gcloud compute instances list --format=json`, `az vmss nic list -g RG --vmss-name NAME -o json`.
The live clients turn the SDK's answers into those same shapes, so the matching rules
(gpufabric.discovery.<cloud>.match) are the same both ways.

A node is matched to the stack by the cloud's own linkage (the ASG tag, the managed instance
group's created-by metadata, the NIC's scale-set VM id, or the instance ids/names the outputs
list). A node that is not running or has no private address is named in a warning and left out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs


@dataclass(frozen=True)
class Node:
    name: str
    """The inventory host name: the cloud's name for the machine."""
    address: str
    """Its private address (ansible_host)."""
    group: str
    """The node group (gpufabric.stack_outputs.NodeGroup.name) it belongs to."""
    instance_id: str = ""
    leaf: str = ""
    """The network node it hangs off, where the cloud says (AWS, GCP)."""
    nvlink_domain: str = ""
    partition: int | None = None


@dataclass
class Found:
    nodes: list[Node] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, node: Node) -> None:
        if all(n.name != node.name for n in self.nodes):
            self.nodes.append(node)


# What each cloud's CLI prints, recognised by shape (so a wrong file is named as such).
CLI_OUTPUT = {
    "aws": "`aws ec2 describe-instances --output json`",
    "gcp": "`gcloud compute instances list --format=json`",
    "azure": "`az vmss nic list -g RG --vmss-name NAME -o json`",
    "oci": "`oci compute-management instance-pool list-instances`, `oci compute "
    "vnic-attachment list` and `oci network vnic get` (JSON)",
    "nebius": "`nebius compute instance list --format json`",
}


def shape(data: Any) -> str:
    """Which CLI printed `data`: aws | aws-topology | gcp | azure | oci | nebius | empty |
    unknown."""
    if isinstance(data, dict):
        if isinstance(data.get("Reservations"), list):
            return "aws"
        if isinstance(data.get("Instances"), list):
            return "aws-topology"
        if "data" in data:  # the OCI CLI puts every response body under "data"
            return "oci" if isinstance(data["data"], dict | list) else "unknown"
        items = data.get("items")
        if isinstance(items, list) and (
            not items or (isinstance(items[0], dict) and "metadata" in items[0])
        ):
            return "nebius"
        return "unknown"
    if not isinstance(data, list):
        return "unknown"
    if not data:
        return "empty"
    first = data[0]
    if isinstance(first, dict) and "networkInterfaces" in first and "name" in first:
        return "gcp"
    if isinstance(first, dict) and "ipConfigurations" in first:
        return "azure"
    return "unknown"


def read_json(path: Path) -> Any:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UserError(f"discovery file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"discovery file {path}: not UTF-8 text (binary?)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"discovery file {path}: not JSON ({exc.msg} at line {exc.lineno}); truncated?"
        ) from None


def from_files(outputs: StackOutputs, paths: Sequence[Path]) -> Found:
    """The stack's nodes from saved CLI output (one file or several)."""
    if not paths:
        raise UserError("discovery_file: no file given")
    cloud = outputs.cluster.cloud
    docs: list[tuple[Path, str, Any]] = []
    for path in paths:
        data = read_json(path)
        kind = shape(data)
        allowed = {cloud, "empty"} | ({"aws-topology"} if cloud == "aws" else set())
        if kind not in allowed and cloud in CLI_OUTPUT:
            what = CLI_OUTPUT.get(kind.removesuffix("-topology"), "no cloud CLI's output I know")
            raise UserError(
                f"discovery file {path}: looks like {what}, but the outputs are of a "
                f"{cloud} stack; give {CLI_OUTPUT[cloud]}"
            )
        docs.append((path, kind, data))
    found = _module(cloud).from_docs(outputs, docs)
    return _require_nodes(outputs, found, ", ".join(str(p) for p in paths))


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    """The stack's nodes from the cloud's API (credentials from the SDK's usual sources)."""
    found = _module(outputs.cluster.cloud).live(outputs, client, topology=topology)
    return _require_nodes(outputs, found, f"the {outputs.cluster.cloud} API")


def _require_nodes(outputs: StackOutputs, found: Found, where: str) -> Found:
    if not found.nodes:
        groups = ", ".join(g.name for g in outputs.nodes.groups)
        extra = f" ({'; '.join(found.warnings)})" if found.warnings else ""
        raise UserError(
            f"discovery in {where}: no running node of stack "
            f"{outputs.cluster.stack} (node groups: {groups}){extra}"
        )
    found.nodes.sort(key=lambda n: n.name)
    return found


def _module(cloud: str) -> Any:
    if cloud == "aws":
        from gpufabric.discovery import aws

        return aws
    if cloud == "gcp":
        from gpufabric.discovery import gcp

        return gcp
    if cloud == "azure":
        from gpufabric.discovery import azure

        return azure
    if cloud == "oci":
        from gpufabric.discovery import oci

        return oci
    if cloud == "nebius":
        from gpufabric.discovery import nebius

        return nebius
    raise UserError(
        f"node discovery for {cloud} stacks is not implemented yet; write a static "
        "inventory with the gpufabric_* group variables (docs/ansible.md)"
    )
