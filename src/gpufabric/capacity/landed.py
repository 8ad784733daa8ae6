"""Where a stack's nodes landed, read live: the stack's outputs, node discovery through the
cloud's SDK (gpufabric.discovery.live, as the inventory plugin reads the nodes) and the cloud's
topology source (gpufabric.topology.load, as `gpufabric topology discover` reads it).

Where the cloud's topology source reads live, it places the nodes discovery found (by instance
id, named as discovery names them); elsewhere the network position discovery itself reports
(the node's path, or its leaf) places them, or else the host the capacity read lists under the
node's instance id (the reader's `positions`, where the cloud's capacity lists its hosts). A
node found with no position is unplaced: `check` counts it as outside.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpufabric.clouds import registry
from gpufabric.errors import Arg, UserError
from gpufabric.stack_outputs import StackOutputs
from gpufabric.topology.model import Host, Topology, apply_names


def stack_outputs(stack: str, outputs_file: Path | None, root: Path) -> StackOutputs:
    """The stack's outputs: a saved `pulumi stack output --json` file, else the Pulumi CLI."""
    from gpufabric.inventory.outputs import load_file, load_stack

    outputs = load_file(outputs_file) if outputs_file else load_stack(stack, cwd=root)
    if outputs.cluster.stack and outputs.cluster.stack != stack:
        raise UserError(f"stack outputs: of stack {outputs.cluster.stack}, not {stack}")
    return outputs


def _topology_reads_live(cloud: str) -> bool:
    return registry.has_module(cloud, "topology") and hasattr(
        registry.module(cloud, "topology"), "live"
    )


def landed(
    outputs: StackOutputs,
    region: str | None,
    client: Any = None,
    positions: Mapping[str, tuple[str, ...]] | None = None,
) -> Topology:
    """The stack's nodes and where they sit (see the module's doc)."""
    from gpufabric import discovery

    cloud = outputs.cluster.cloud
    source_live = _topology_reads_live(cloud)
    found = discovery.live(outputs, client, topology=not source_live)
    origin = f"the {cloud} API"
    if source_live:
        from gpufabric.topology.load import load

        names = {n.instance_id: n.name for n in found.nodes if n.instance_id}
        if not names:
            raise UserError(f"discovery in {origin}: the nodes found have no instance ids")
        topology = apply_names(load(cloud, region=region, instance_ids=sorted(names)), names)
        placed = {h.name for h in topology.hosts} | set(topology.unplaced)
        missing = tuple(n.name for n in found.nodes if n.name not in placed)
        return replace(
            topology,
            unplaced=topology.unplaced + missing,
            skipped=topology.skipped + _left_out(found.warnings),
        )
    where = {
        n.name: n.path or ((n.leaf,) if n.leaf else (positions or {}).get(n.instance_id, ()))
        for n in found.nodes
    }
    hosts = tuple(
        Host(n.name, where[n.name], address=n.address, instance_id=n.instance_id or None)
        for n in found.nodes
        if where[n.name]
    )
    unplaced = tuple(n.name for n in found.nodes if not where[n.name])
    if not hosts:
        spec = registry.get(cloud)
        raise UserError(
            f"discovery in {origin}: {len(unplaced)} node(s) found, none with a network "
            "position; pass ",
            Arg("landed"),
            f" FILE ({spec.topology_input or 'a recorded topology'})",
        )
    return Topology(hosts, source=origin, unplaced=unplaced, skipped=_left_out(found.warnings))


def _left_out(warnings: list[str]) -> tuple[tuple[str, str], ...]:
    """What discovery left out, and why (a node not running, outside the stack's network...)."""
    return tuple(("discovery", w) for w in warnings)
