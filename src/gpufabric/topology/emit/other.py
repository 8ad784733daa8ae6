"""Ordered hostfiles, Kubernetes node labels (+ a Kueue Topology), and JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpufabric import jsonout
from gpufabric.errors import UserError
from gpufabric.topology.emit.names import dump_yaml, label_value
from gpufabric.topology.model import Host, Topology, level_names, padded_path

HOSTFILE_STYLES = ("plain", "mpirun", "torchrun", "srun")
LABEL_PREFIX = "network.gpufabric.io"
NVLINK_LABEL = f"{LABEL_PREFIX}/nvlink-domain"


def hostfile(order: Sequence[Host], style: str = "plain", slots: int = 8) -> str:
    """One line per node in rank order.

    plain / torchrun: the name (line i = --node-rank i); mpirun: `name slots=N` (Open MPI fills
    ranks by slot in file order); srun: the name once per task, for SLURM_HOSTFILE with
    `srun --distribution=arbitrary`.
    """
    if style not in HOSTFILE_STYLES:
        raise UserError(f"--hostfile-style {style!r}: choose one of {', '.join(HOSTFILE_STYLES)}")
    if slots < 1:
        raise UserError(f"--slots {slots}: must be at least 1")
    if style == "mpirun":
        lines = [f"{h.name} slots={slots}" for h in order]
    elif style == "srun":
        lines = [h.name for h in order for _ in range(slots)]
    else:
        lines = [h.name for h in order]
    return "\n".join(lines) + "\n"


def label_keys(topology: Topology) -> list[str]:
    """Label keys, top level first (the order a Kueue Topology lists its levels)."""
    return [f"{LABEL_PREFIX}/{name}" for name in level_names(topology.depth)]


def node_labels(topology: Topology) -> dict[str, dict[str, str]]:
    """Node name -> one label per network level (+ NVLink domain where known)."""
    keys = label_keys(topology)
    out: dict[str, dict[str, str]] = {}
    for host in topology.hosts:
        path = padded_path(host, topology.depth)
        labels = {k: label_value(v) for k, v in zip(keys, path, strict=True)}
        if host.nvlink_domain:
            labels[NVLINK_LABEL] = label_value(host.nvlink_domain)
        out[host.name] = labels
    return out


def k8s_labels(topology: Topology) -> str:
    doc = {"labels": node_labels(topology)}
    head = (
        "# Kubernetes node labels, one per network level (top first); apply with\n"
        "#   kubectl label node NAME KEY=VALUE ... --overwrite\n"
    )
    return head + dump_yaml(doc, sort_keys=True)


def kueue_topology(topology: Topology, name: str = "gpufabric-network") -> str:
    """A Kueue Topology (topology-aware scheduling) whose levels are these labels."""
    levels = [{"nodeLabel": k} for k in label_keys(topology)]
    levels.append({"nodeLabel": "kubernetes.io/hostname"})
    doc = {
        "apiVersion": "kueue.x-k8s.io/v1alpha1",
        "kind": "Topology",
        "metadata": {"name": name},
        "spec": {"levels": levels},
    }
    return dump_yaml(doc)


def host_record(host: Host) -> dict[str, Any]:
    record: dict[str, Any] = {"name": host.name, "path": list(host.path), "leaf": host.leaf}
    for key in ("nvlink_domain", "address", "instance_id", "instance_type"):
        value = getattr(host, key)
        if value:
            record[key] = value
    return record


def topology_json(topology: Topology, order: Sequence[Host] | None = None) -> str:
    """The file source's format (round-trips through `--source file`), plus extras."""
    doc: dict[str, Any] = {
        "source": topology.source,
        "levels": list(level_names(topology.depth)),
        "hosts": [host_record(h) for h in (order or topology.hosts)],
    }
    if topology.labels:
        doc["labels"] = dict(sorted(topology.labels.items()))
    if order is not None:
        doc["order"] = [h.name for h in order]
    if topology.skipped:
        doc["skipped"] = [{"id": i, "reason": r} for i, r in topology.skipped]
    return jsonout.dumps(doc, indent=2) + "\n"
