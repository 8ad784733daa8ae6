"""Which resources are GPU nodes, on every cloud; no public IPs on them; metadata tokens.

A GPU node is defined by a template or by the resource itself (an instance, a VM, a scale
set) whose instance type is a GPU type: one in gpufabric's catalog, or one of the clouds' GPU
families. Which resource types are nodes, groups and templates, and how to read them, is each
cloud's policy data (gpufabric.policies.cloud).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpufabric.catalog import catalog
from gpufabric.policies import cloud
from gpufabric.policies.model import Node, Resource, ResourcePolicy, Stack, StackPolicy

__all__ = ["IMDSV2", "NO_PUBLIC_IP", "Node", "gpu_nodes", "instance_type", "is_gpu_type"]


def is_gpu_type(name: object) -> bool:
    if not isinstance(name, str) or not name:
        return False
    short = name.rsplit("/", 1)[-1]  # machine types may be URLs
    return name in catalog() or short in catalog() or cloud.gpu_family(short)


def instance_type(resource: Resource) -> str | None:
    """The instance type / machine type / VM size a resource launches, if it says."""
    data = cloud.of_type(resource.type)
    return data.instance_type(resource) if data is not None else None


def launched_type(node: Node) -> str | None:
    """The instance type a node launches: the launcher's own over its template's, as the clouds
    launch it (EC2 RunInstances, GCE instanceFromTemplate)."""
    return instance_type(node.resource) or instance_type(node.definition)


def gpu_nodes(stack: Stack) -> Iterator[Node]:
    """Every node launcher whose nodes are GPU nodes, with its template resolved."""
    for res in stack.resources:
        data = cloud.of_type(res.type)
        if data is None:
            continue
        if res.type in data.node_types:
            template = data.template_of(stack, res)
            own = data.instance_type(res)
            if is_gpu_type(own) or (
                own is None and template and is_gpu_type(instance_type(template))
            ):
                yield Node(res, template)
        elif res.type in data.group_types:
            template = data.template_of(stack, res)
            if template is not None and is_gpu_type(instance_type(template)):
                yield Node(res, template)


def gpu_templates(stack: Stack) -> list[Resource]:
    found = []
    for res in stack.resources:
        data = cloud.of_type(res.type)
        if data is not None and res.type in data.template_types and is_gpu_type(instance_type(res)):
            found.append(res)
    return found


# -- no public IPs on GPU nodes -------------------------------------------------------


def _own_public_ip(res: Resource) -> Iterator[str]:
    data = cloud.of_type(res.type)
    if data is not None:
        yield from data.own_public_ip(res)


def _public_ips(stack: Stack) -> Iterator[tuple[Resource, str]]:
    seen: set[str] = set()
    nodes = list(gpu_nodes(stack))
    for definition in [*(n.definition for n in nodes), *gpu_templates(stack)]:
        key = definition.urn or definition.label
        if key in seen:
            continue
        seen.add(key)
        yield from ((definition, reason) for reason in _own_public_ip(definition))
    for node in nodes:
        data = cloud.of_type(node.resource.type)
        if data is not None:
            yield from data.node_public_ips(stack, node)
    for data in cloud.policies():
        yield from data.stack_public_ips(stack, nodes)


NO_PUBLIC_IP = StackPolicy(
    name="gpu-nodes-no-public-ip",
    summary=(
        "GPU nodes get no public IP: no public address on any NIC of a node or its template, "
        "no address attached to a node afterwards, and no subnet that maps public IPs on launch"
    ),
    check=_public_ips,
)


# -- metadata service tokens (IMDSv2) ------------------------------------------------------


def _metadata_tokens(res: Resource) -> list[str]:
    data = cloud.of_type(res.type)
    return (
        list(data.metadata_tokens(res))
        if data is not None and data.metadata_tokens is not None
        else []
    )


IMDSV2 = ResourcePolicy(
    name="imdsv2-required",
    summary=(
        "Node templates and instances require a session token from the metadata service "
        "(IMDSv2); where the metadata server always requires a request header there is "
        "nothing to set"
    ),
    check=_metadata_tokens,
    reads="metadata_tokens",
)
