"""An explicit encryption-in-transit mode: the stack says how node-to-node traffic is protected."""

from __future__ import annotations

from collections.abc import Iterator

from gpufabric.catalog import catalog
from gpufabric.policies.model import Resource, Stack, StackPolicy, as_map
from gpufabric.policies.nodes import gpu_nodes, instance_type

MODES = ("provider-native", "ipsec", "none")
_STACK = Resource("pulumi:pulumi:Stack", "(stack outputs)", "", {})


def _explicit_mode(stack: Stack) -> Iterator[tuple[Resource, str]]:
    mode = stack.outputs.get("encryption")
    if mode not in MODES:
        yield (
            _STACK,
            (
                f"stack output 'encryption' is {mode!r}; export one of {', '.join(MODES)} "
                "(gpufabric:encryption) so the pipeline knows how node traffic is protected"
            ),
        )
        return
    inventory = as_map(stack.outputs.get("inventory"))
    if inventory and inventory.get("encryption") != mode:
        yield (
            _STACK,
            (
                f"inventory output says encryption {inventory.get('encryption')!r} but the stack "
                f"exports {mode!r}: tune-fabric would configure the wrong mode"
            ),
        )
    if mode != "provider-native":
        return
    for node in gpu_nodes(stack):
        name = instance_type(node.definition) or instance_type(node.resource)
        entry = catalog().get(name or "")
        if entry is None or entry.encryption_in_transit != "native":
            known = entry.encryption_in_transit if entry else "not in the catalog"
            yield (
                node.resource,
                (
                    f"encryption is provider-native but {name} is not known to encrypt "
                    f"node traffic natively ({known}); use ipsec"
                ),
            )


ENCRYPTION_IN_TRANSIT = StackPolicy(
    name="encryption-in-transit-explicit",
    description=(
        "The stack exports an explicit encryption-in-transit mode (provider-native, ipsec or "
        "none) that matches the inventory output; provider-native only on instance types the "
        "catalog knows to encrypt natively"
    ),
    check=_explicit_mode,
    needs_outputs=True,
)
