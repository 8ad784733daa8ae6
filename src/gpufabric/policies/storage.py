"""Storage promises: the shared file system sits in the GPU nodes' zone; volumes are encrypted.

Where nodes and file systems sit, and what an unencrypted volume looks like, is each cloud's
policy data (gpufabric.policies.cloud).
"""

from __future__ import annotations

from collections.abc import Iterator

from gpufabric.policies import cloud
from gpufabric.policies.model import Resource, ResourcePolicy, Stack, StackPolicy
from gpufabric.policies.nodes import gpu_nodes


def node_zones(stack: Stack) -> set[str]:
    """Every zone a GPU node may land in, read from the resources that launch them."""
    zones: set[str] = set()
    for node in gpu_nodes(stack):
        data = cloud.of_type(node.resource.type)
        if data is not None:
            zones |= set(data.node_zones(stack, node))
    zones.discard("")
    zones.discard("None")
    return zones


def storage_zones(stack: Stack) -> Iterator[tuple[Resource, str]]:
    """(file system, zone) for every shared file system whose zone the stack states."""
    for data in cloud.policies():
        yield from data.storage_zones(stack)


def _co_located(stack: Stack) -> Iterator[tuple[Resource, str]]:
    zones = node_zones(stack)
    if not zones:
        return
    for fs, zone in storage_zones(stack):
        if zone not in zones:
            yield (
                fs,
                (
                    f"storage is in zone {zone}, GPU nodes are in {', '.join(sorted(zones))}: "
                    "cross-zone I/O adds latency and transfer cost"
                ),
            )


STORAGE_ZONE = StackPolicy(
    name="storage-in-node-zone",
    summary="Shared file systems are in the zone of the GPU nodes",
    check=_co_located,
)


# -- encryption at rest ----------------------------------------------------------------------


def _encrypted_at_rest(res: Resource) -> list[str]:
    data = cloud.of_type(res.type)
    return (
        list(data.encrypted_at_rest(res))
        if data is not None and data.encrypted_at_rest is not None
        else []
    )


ENCRYPTION_AT_REST = ResourcePolicy(
    name="encryption-at-rest",
    summary=(
        "Volumes and file systems are encrypted at rest; where the provider always encrypts "
        "them there is no switch to check"
    ),
    check=_encrypted_at_rest,
    reads="encrypted_at_rest",
)
