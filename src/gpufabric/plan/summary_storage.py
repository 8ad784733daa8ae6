"""What the storage goal costs and where the bottleneck is, for the plan summary.

From the validated config (the goal was already applied to it): the file system's rated
throughput on its tier, against what the nodes' storage network can carry at line rate.
"""

from __future__ import annotations

from gpufabric.config.model import StackConfig
from gpufabric.config.storage_goal import current, sizing_of
from gpufabric.storage.network import node_path

Facts = list[tuple[str, str]]


def storage_facts(cfg: StackConfig) -> Facts:
    storage = cfg.storage
    if sizing_of(storage) is None:
        return []
    sized = current(storage)
    facts: Facts = []
    if getattr(storage, "checkpoint", None) is not None:
        facts.append(("Storage goal", sized.text()))
    else:
        facts.append(
            (
                "Storage throughput",
                f"{sized.capacity:,} {sized.service.unit} at {sized.tier:,} MB/s/TiB = "
                f"{sized.rated_gbps:.1f} GB/s rated (no gpufabric:storage.checkpoint goal set)",
            )
        )
    itype = cfg.instance
    path = node_path(itype, efa=sized.variant == "efa")
    fs = f"file system {sized.rated_gbps:.1f} GB/s rated"
    if path is None:
        facts.append(
            ("Storage bottleneck", f"{fs}; the nodes' storage NIC speed is not in the catalog")
        )
        return facts
    nodes = path.aggregate_gbytes(cfg.nodes)
    net = f"nodes {cfg.nodes} x {path.how} = {nodes:.1f} GB/s"
    where = "the file system" if sized.rated_gbps <= nodes else "the nodes' storage network"
    facts.append(("Storage bottleneck", f"{where} ({fs}; {net})"))
    return facts
