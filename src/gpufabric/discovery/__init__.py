"""Find a stack's nodes in its cloud, from the node groups its outputs name.

Two ways in, one matcher per cloud (the cloud's package, gpufabric.clouds.<cloud>.discovery):
- live, through the cloud's own SDK, with one client per cloud that topology discovery shares;
- offline, from the JSON the cloud's own CLI prints (`discovery_file:` of the inventory; each
  cloud's spec names the command, `discovery_input`).
The live clients turn the SDK's answers into those same shapes, so the matching rules are the
same both ways.

A node is matched to the stack by the cloud's own linkage (a group tag, the group's member
list, the NIC's scale-set VM id, or the instance ids/names the outputs list). A node that is
not running, has no private address, has an address outside the stack's subnets or the name of
a node already found is named in a warning and left out. A name or address no inventory can
hold (`x;reboot`, a newline, a look-alike letter, `10.0.0.999`) is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufabric.clouds import registry
from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.inputs.formats import load_json
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
    """The network node it hangs off, where the cloud says."""
    path: tuple[str, ...] = ()
    """The network nodes above it, top-down (its last is `leaf`), where the cloud lists them."""
    nvlink_domain: str = ""
    partition: int | None = None


@dataclass
class Found:
    nodes: list[Node] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    _names: dict[str, Node] = field(default_factory=dict, repr=False, compare=False)

    def add(self, node: Node) -> None:
        """Keep the first node of each name (one look-up: linear in the node count); a second
        node of that name is named in a warning, not dropped silently."""
        if len(self._names) != len(self.nodes):  # nodes given to the constructor
            self._names = {n.name: n for n in self.nodes}
        same = self._names.get(node.name)
        if same is None:
            self._names[node.name] = node
            self.nodes.append(node)
        elif same != node:
            self.warnings.append(
                f"{node.name} ({node.group}): {_ident(node)} has the name of "
                f"{_ident(same)}, found first; left out"
            )


def _ident(node: Node) -> str:
    return f"instance {node.instance_id}" if node.instance_id else f"the node at {node.address}"


def shape(data: Any) -> str:
    """Which CLI printed `data`: a cloud's name (or '<cloud>-<kind>' for a cloud's second
    kind of file, such as its topology), 'empty' or 'unknown'. Each cloud recognises its own."""
    if isinstance(data, list) and not data:
        return "empty"
    for cloud in registry.names():
        kind = registry.module(cloud, "discovery").recognise(data)
        if kind:
            return kind
    return "unknown"


def _printed_by(kind: str) -> str:
    cloud = kind.partition("-")[0]  # 'empty' and 'unknown' name no cloud
    if cloud not in registry.names():
        return "no cloud CLI's output I know"
    return registry.get(cloud).discovery_input


def read_json(path: Path) -> Any:
    return load_json(path, what="a discovery file (saved cloud CLI JSON)")


def from_files(outputs: StackOutputs, paths: Sequence[Path]) -> Found:
    """The stack's nodes from saved CLI output (one file or several)."""
    if not paths:
        raise UserError("discovery_file: no file given")
    cloud = outputs.cluster.cloud
    docs: list[tuple[Path, str, Any]] = []
    for path in paths:
        data = read_json(path)
        kind = shape(data)
        if kind != "empty" and kind.partition("-")[0] != cloud:
            raise UserError(
                f"discovery file {path}: looks like {_printed_by(kind)}, but the outputs are "
                f"of a {cloud} stack; give {registry.get(cloud).discovery_input}"
            )
        docs.append((path, kind, data))
    found = _module(cloud).from_docs(outputs, docs)
    return _require_nodes(outputs, found, ", ".join(str(p) for p in paths))


def live(outputs: StackOutputs, client: Any = None, *, topology: bool = True) -> Found:
    """The stack's nodes from the cloud's API (credentials from the SDK's usual sources)."""
    found = _module(outputs.cluster.cloud).live(outputs, client, topology=topology)
    return _require_nodes(outputs, found, f"the {outputs.cluster.cloud} API")


def _checked(outputs: StackOutputs, found: Found, where: str) -> Found:
    """Names and addresses an inventory can hold (else refused, naming the node and the field);
    nodes outside the stack's subnets (outputs network.subnetCidrs, where the cloud lists them)
    left out with a warning."""
    raw = outputs.network.get("subnetCidrs")
    cidrs = list(raw.values()) if isinstance(raw, dict) else []
    kept: list[Node] = []
    for node in found.nodes:
        who = f"discovery in {where}: node {types.show(node.name)}"
        types.check(types.SlurmName, node.name, f"{who}: name")
        types.check(types.HostAddress, node.address, f"{who}: address")
        if not types.inside(node.address, cidrs):
            found.warnings.append(
                f"{node.name} ({node.group}): address {node.address} is outside the stack's "
                f"subnets ({', '.join(str(c) for c in cidrs)}); left out"
            )
            continue
        kept.append(node)
    found.nodes = kept
    return found


def _require_nodes(outputs: StackOutputs, found: Found, where: str) -> Found:
    found = _checked(outputs, found, where)
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
    if not registry.has_module(cloud, "discovery"):
        raise UserError(
            f"node discovery for {cloud} stacks is not implemented yet; write a static "
            "inventory with the gpufabric_* group variables (docs/ansible.md)"
        )
    return registry.module(cloud, "discovery")
