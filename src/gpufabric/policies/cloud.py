"""What a cloud tells the policies about its resources: its package's `policy.py` (POLICY).

The policies speak of GPU nodes, templates, rules that let traffic in, file systems, zones and
placement; each cloud says which of its Pulumi resource types are which and how to read their
properties, and nothing here knows a cloud. A cloud package without a policy.py declares no
node or rule, so the policies that apply everywhere find nothing of it to refuse.

Policies that only some clouds can break (a metadata service that hands out credentials
without a token, an unencrypted volume) run a named hook (the policy's `reads`); they apply
to the clouds whose POLICY provides it, and `gpufabric plan --policy` names them elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from gpufabric.clouds import registry
from gpufabric.errors import UserError
from gpufabric.policies.model import Ingress, Node, Resource, Stack

Finding = tuple[Resource, str]
IngressReader = Callable[[Mapping[str, Any]], Iterable[Ingress]]


def _no_type(_resource: Resource) -> str | None:
    return None


def _no_template(_stack: Stack, _resource: Resource) -> Resource | None:
    return None


def _no_reasons(_resource: Resource) -> Iterable[str]:
    return ()


def _no_node_findings(_stack: Stack, _node: Node) -> Iterable[Finding]:
    return ()


def _no_stack_findings(_stack: Stack, _nodes: list[Node]) -> Iterable[Finding]:
    return ()


def _no_zones(_stack: Stack, _node: Node) -> Iterable[str]:
    return ()


def _no_storage(_stack: Stack) -> Iterable[Finding]:
    return ()


def _unplaced(_stack: Stack, _node: Node) -> str:
    return ""


@dataclass(frozen=True, kw_only=True)
class CloudPolicy:
    """One cloud's resources as the policies read them. Every field has a default that finds
    nothing, so a cloud declares only what it has."""

    node_types: tuple[str, ...] = ()
    """Resources that launch nodes themselves (an instance, a VM, a scale set): GPU nodes when
    their own instance type, or failing that their template's, is a GPU type."""
    group_types: tuple[str, ...] = ()
    """Resources that launch nodes from a template only (a group, a pool, a cluster network):
    GPU nodes when the template's instance type is a GPU type."""
    template_types: tuple[str, ...] = ()
    """Templates of nodes, checked for public IPs even when nothing here launches them."""
    gpu_family: str = ""
    """A regular expression for its GPU instance type names beyond the catalog ('' : none)."""
    instance_type: Callable[[Resource], str | None] = _no_type
    """The instance type a node, group or template launches, as the catalog names it."""
    template_of: Callable[[Stack, Resource], Resource | None] = _no_template
    """The template a node or group launches from, resolved in the stack."""
    own_public_ip: Callable[[Resource], Iterable[str]] = _no_reasons
    """Reasons a node's definition (template or node) asks for a public address."""
    node_public_ips: Callable[[Stack, Node], Iterable[Finding]] = _no_node_findings
    """Public addresses a GPU node gets beyond its definition (its NICs, its subnets)."""
    stack_public_ips: Callable[[Stack, list[Node]], Iterable[Finding]] = _no_stack_findings
    """Public addresses attached to GPU nodes by other resources (an address association)."""
    ingress: Mapping[str, IngressReader] = field(default_factory=dict)
    """Resource type -> the ways in its rules allow (one resource may hold several rules)."""
    node_zones: Callable[[Stack, Node], Iterable[str]] = _no_zones
    """The zones a GPU node may land in."""
    storage_zones: Callable[[Stack], Iterable[Finding]] = _no_storage
    """(file system, zone) for each shared file system whose zone the stack states."""
    placement: Callable[[Stack, Node], str] = _unplaced
    """Why a GPU node is not placed close to its peers ('' : it is, or it cannot be read)."""
    words: Mapping[str, str] = field(default_factory=dict)
    """Policy name -> what that promise is made of here, for the policy's description."""
    metadata_tokens: Callable[[Resource], Iterable[str]] | None = None
    """Reasons a node's metadata service answers without a session token (None: it always
    asks for a request header, nothing to set)."""
    encrypted_at_rest: Callable[[Resource], Iterable[str]] | None = None
    """Reasons a volume is not encrypted (None: the provider always encrypts at rest)."""
    fabric_group_self_only: Callable[[Stack], Iterable[Finding]] | None = None
    """Rules of the security group on the fabric interfaces that reach beyond that group."""
    gpu_network_cluster_only: Callable[[Stack], Iterable[Finding]] | None = None
    """Rules of the GPU NICs' own networks that let in traffic from outside the cluster."""


@dataclass(frozen=True)
class _Tables:
    by_name: dict[str, CloudPolicy]
    by_prefix: dict[str, CloudPolicy]
    ingress: dict[str, IngressReader]
    gpu_family: re.Pattern[str] | None


def _tables() -> _Tables:
    return _load(tuple(registry.packages().items()))


@cache
def _load(packages: tuple[tuple[str, str], ...]) -> _Tables:
    by_name: dict[str, CloudPolicy] = {}
    by_prefix: dict[str, CloudPolicy] = {}
    for name, package in packages:
        if not registry.has_module(name, "policy"):
            continue
        policy = getattr(registry.module(name, "policy"), "POLICY", None)
        if not isinstance(policy, CloudPolicy):
            raise UserError(f"cloud {name!r}: {package}.policy.POLICY must be a CloudPolicy")
        by_name[name] = policy
        by_prefix[registry.get(name).type_prefix] = policy
    families = [f"(?:{p.gpu_family})" for p in by_name.values() if p.gpu_family]
    return _Tables(
        by_name,
        by_prefix,
        {kind: read for p in by_name.values() for kind, read in p.ingress.items()},
        re.compile(f"^({'|'.join(families)})$") if families else None,
    )


def policies() -> list[CloudPolicy]:
    """Every cloud's policy data, in the registry's order."""
    return list(_tables().by_name.values())


def of_type(resource_type: str) -> CloudPolicy | None:
    """The policy data of the cloud whose resource type this is (None: no cloud's, or a cloud
    without policy data)."""
    return _tables().by_prefix.get(resource_type.split(":", 1)[0])


def ingress_reader(resource_type: str) -> IngressReader | None:
    return _tables().ingress.get(resource_type)


def gpu_family(name: str) -> bool:
    """Whether an instance type name is one of the clouds' GPU families."""
    pattern = _tables().gpu_family
    return bool(pattern and pattern.match(name))


def providing(hook: str) -> tuple[str, ...]:
    """The clouds whose policy data provides `hook`, in the registry's order."""
    return tuple(
        name for name, p in _tables().by_name.items() if getattr(p, hook, None) is not None
    )


def hooks(hook: str) -> list[Callable[..., Iterable[Any]]]:
    """`hook` of every cloud that provides it, in the registry's order."""
    return [h for p in policies() if (h := getattr(p, hook, None)) is not None]


def describe(policy: str, summary: str) -> str:
    """A policy's description: its summary, then what it reads on each cloud that says."""
    parts = [
        f"{registry.get(name).display_name}: {p.words[policy]}"
        for name, p in _tables().by_name.items()
        if policy in p.words
    ]
    return f"{summary} ({'; '.join(parts)})" if parts else summary
