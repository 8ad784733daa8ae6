"""What every policy reads: resources (type, name, id, wire-key props) and the whole stack.

The same policy functions run in two places: offline over `gpufabric plan`'s recorded
resources, and inside the Pulumi policy pack over what the engine sends. Both are turned
into these plain records first, so a policy never knows where it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

STACK_TYPE = "pulumi:pulumi:Stack"


@dataclass(frozen=True)
class Resource:
    """One resource as the engine sees it: props under the wire (camelCase) keys."""

    type: str
    name: str
    id: str
    props: Mapping[str, Any]
    urn: str = ""
    deps: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Top-level property -> URNs it depends on (the engine's propertyDependencies)."""

    @property
    def label(self) -> str:
        return f"{self.type} {self.name}"

    def handles(self) -> set[str]:
        """Every string another resource may use to refer to this one (offline, the mocks
        return the logical name as the physical one, so that counts too)."""
        found = {self.id, self.urn, self.name}
        for key in ("id", "name", "arn", "selfLink"):
            value = self.props.get(key)
            if isinstance(value, str):
                found.add(value)
        found.discard("")
        return found


@dataclass(frozen=True)
class Violation:
    policy: str
    resource: str
    reason: str
    urn: str = ""

    def line(self) -> str:
        return f"{self.policy}: {self.resource}: {self.reason}"


@dataclass
class Stack:
    """All resources of one stack plus its outputs (the `pulumi:pulumi:Stack` exports)."""

    resources: list[Resource]
    outputs: Mapping[str, Any]
    by_handle: dict[str, list[Resource]] | None = field(default=None, repr=False, compare=False)
    """Resources by every handle (see `indexed`); None: `resolve` scans every resource."""

    def indexed(self) -> Stack:
        """The same stack with references resolved through an index (linear, not quadratic,
        for stacks of many instances). Build it after the last change to the resources."""
        index: dict[str, list[Resource]] = {}
        for resource in self.resources:
            for handle in resource.handles():
                index.setdefault(handle, []).append(resource)
        return Stack(self.resources, self.outputs, index)

    def of_type(self, *types: str) -> list[Resource]:
        return [r for r in self.resources if r.type in types]

    def resolve(
        self, ref: Any, types: Iterable[str], owner: Resource | None = None, key: str = ""
    ) -> Resource | None:
        """The resource of one of `types` that `ref` names (by id, name, ARN, self link or a
        URL ending in its name), or, failing that, the one `owner.key` depends on."""
        wanted = set(types)
        if isinstance(ref, str) and ref:
            tail = ref.rsplit("/", 1)[-1]
            for handle, exact in ((ref, True), (tail, False)):
                for resource in self._candidates(handle):
                    if resource.type not in wanted:
                        continue
                    indexed_hit = exact and self.by_handle is not None
                    if (
                        indexed_hit
                        or (exact and ref in resource.handles())
                        or (not exact and resource.name == tail and ref.endswith("/" + tail))
                    ):
                        return resource
        if owner is not None and key:
            for urn in owner.deps.get(key, ()):
                for resource in self._candidates(urn):
                    if resource.type in wanted and resource.urn == urn:
                        return resource
        return None

    def _candidates(self, handle: str) -> list[Resource]:
        if self.by_handle is None:
            return self.resources
        return self.by_handle.get(handle, [])


ResourceCheck = Callable[[Resource], Iterable[str]]
"""A resource policy: yields one reason per violation of that one resource."""
StackCheck = Callable[[Stack], Iterable[tuple[Resource, str]]]
"""A stack policy: yields (resource, reason) per violation, seeing every resource at once."""


EVERY_CLOUD: tuple[str, ...] = ("*",)
"""A policy's `clouds` when it applies wherever it finds what it reads."""


@dataclass(frozen=True, kw_only=True)
class _Policy:
    name: str
    summary: str
    """What it promises, in words that hold on every cloud; each cloud that reads it adds its
    own resources' words (CloudPolicy.words) to the description."""
    reads: str = ""
    """The CloudPolicy hook it runs ('' : it reads what every cloud declares and applies
    everywhere); it applies to the clouds whose policy data provides that hook."""

    @property
    def clouds(self) -> tuple[str, ...]:
        """The clouds whose resources it reads (gpufabric's cloud names), or EVERY_CLOUD;
        elsewhere it does not apply, and `gpufabric plan --policy` says so."""
        from gpufabric.policies.cloud import providing

        return providing(self.reads) if self.reads else EVERY_CLOUD

    @property
    def description(self) -> str:
        from gpufabric.policies.cloud import describe

        return describe(self.name, self.summary)


@dataclass(frozen=True, kw_only=True)
class ResourcePolicy(_Policy):
    check: ResourceCheck


@dataclass(frozen=True, kw_only=True)
class StackPolicy(_Policy):
    check: StackCheck
    needs_outputs: bool = False
    """Reads the stack's outputs (exports), not only its resources."""


@dataclass(frozen=True)
class Node:
    """Something that launches GPU nodes, and the template that defines them (if any)."""

    resource: Resource
    template: Resource | None

    @property
    def definition(self) -> Resource:
        """Where the node's settings (NICs, placement, metadata) are written."""
        return self.template or self.resource


Ports = tuple[int, int]


@dataclass(frozen=True)
class Ingress:
    """One allowed way in: from `source`, over `protocol` (tcp, udp, icmp or all), to `ports`
    (None: every port); `reply_only` when the rule matches given source ports only."""

    source: str
    protocol: str
    ports: tuple[Ports, ...] | None
    reply_only: bool = False

    def admits(self, protocol: str, port: int) -> bool:
        if self.protocol not in (protocol, "all"):
            return False
        return self.ports is None or any(low <= port <= high for low, high in self.ports)


def resource_cloud(resource_type: str) -> str:
    """The cloud of a resource type, from the clouds' registry (by the type's package prefix);
    a package no cloud claims stands for itself."""
    from gpufabric.clouds.registry import for_type

    spec = for_type(resource_type)
    return spec.name if spec is not None else resource_type.split(":", 1)[0]


def stack_clouds(resources: Iterable[Resource]) -> set[str]:
    """The clouds a stack's resources belong to (Pulumi's own types left out)."""
    return {resource_cloud(r.type) for r in resources} - {"pulumi"}


# -- small readers for wire-shaped values (dicts, lists, or the policy SDK's proxies) --


def as_map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    """A list property; a single value (some SDKs take one string) becomes a list of one."""
    if value is None:
        return []
    if isinstance(value, str | Mapping):
        return [value]
    if isinstance(value, Iterable):
        return list(value)
    return [value]


def dig(value: Any, *path: str) -> Any:
    for key in path:
        value = as_map(value).get(key)
    return value


def is_true(value: Any) -> bool:
    """Pulumi-aws takes some booleans as strings ("true"); accept both."""
    return value is True or (isinstance(value, str) and value.lower() == "true")


def maps(values: Any) -> Iterator[Mapping[str, Any]]:
    for item in as_list(values):
        if isinstance(item, Mapping):
            yield item
