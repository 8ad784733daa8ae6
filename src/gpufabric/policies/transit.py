"""An explicit encryption-in-transit mode: the stack says how node-to-node traffic is protected.

The mode is read from the stack outputs through their one contract (gpufabric.stack_outputs),
and provider-native is held to the same rule the config model applies.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpufabric.catalog import catalog
from gpufabric.errors import UserError
from gpufabric.policies.model import Resource, Stack, StackPolicy
from gpufabric.policies.nodes import gpu_nodes, launched_type
from gpufabric.stack_outputs import parse
from gpufabric.vocabulary import ENCRYPTION_MODES, encryption_problem

_STACK = Resource("pulumi:pulumi:Stack", "(stack outputs)", "", {})


def _explicit_mode(stack: Stack) -> Iterator[tuple[Resource, str]]:
    try:
        mode = parse(dict(stack.outputs)).cluster.encryption
    except UserError as exc:
        yield (
            _STACK,
            (
                f"{exc}; export one of {', '.join(ENCRYPTION_MODES)} (gpufabric:encryption) "
                "so the pipeline knows how node traffic is protected"
            ),
        )
        return
    for node in gpu_nodes(stack):
        name = launched_type(node) or ""
        entry = catalog().get(name)
        in_transit = entry.encryption_in_transit if entry else "not in the catalog"
        problem = encryption_problem(mode, name, in_transit)
        if problem:
            yield (node.resource, f"encryption is {mode} but {problem}")


ENCRYPTION_IN_TRANSIT = StackPolicy(
    name="encryption-in-transit-explicit",
    summary=(
        "The stack outputs carry an explicit encryption-in-transit mode (provider-native, ipsec "
        "or none); provider-native only on instance types the catalog knows to encrypt natively"
    ),
    check=_explicit_mode,
    needs_outputs=True,
)
