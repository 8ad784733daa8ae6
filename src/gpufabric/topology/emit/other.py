"""Ordered hostfiles, Kubernetes node labels (+ a Kueue Topology), and JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpufabric import jsonout
from gpufabric.errors import UserError
from gpufabric.inputs import types, writers
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
    names = writers.hostfile(h.name for h in order)
    if style == "mpirun":
        lines = [f"{name} slots={slots}" for name in names]
    elif style == "srun":
        lines = [name for name in names for _ in range(slots)]
    else:
        lines = names
    return "\n".join(lines) + "\n"


# Node-label key families, top level first. eks: the labels EKS itself puts on nodes
# (docs.aws.amazon.com/eks/latest/userguide/ml-workload-topology.html: layer-1 the top,
# layer-4 only on 4-layer types); topograph: NVIDIA/topograph's k8s engine (docs/engines/k8s.md:
# core, spine, leaf; accelerator for the NVLink domain).
LABEL_SCHEMES = ("gpufabric", "eks", "topograph")
_TOPOGRAPH = ("network.topology.nvidia.com/core", "network.topology.nvidia.com/spine")
_TOPOGRAPH_LEAF = "network.topology.nvidia.com/leaf"
_NVLINK_KEYS = {"topograph": "network.topology.nvidia.com/accelerator"}
# Kueue Topology API versions (kueue.x-k8s.io CRD): v1beta2 is stored and served from Kueue
# 0.16; v1beta1 is what 0.14-0.15 serve (and later ones, deprecated); v1alpha1 is gone since 0.14.
KUEUE_APIS = ("v1beta2", "v1beta1")
KUEUE_MAX_LEVELS = 16  # CRD: spec.levels maxItems


def label_keys(topology: Topology, scheme: str = "gpufabric") -> list[str]:
    """Label keys, top level first (the order a Kueue Topology lists its levels)."""
    depth = topology.depth
    if scheme == "gpufabric":
        return [f"{LABEL_PREFIX}/{name}" for name in level_names(depth)]
    if scheme == "eks":
        return [f"topology.k8s.aws/network-node-layer-{i}" for i in range(1, depth + 1)]
    if scheme == "topograph":
        if depth > 3:
            raise UserError(
                f"--label-scheme topograph: topograph labels 3 levels (core, spine, leaf); "
                f"this topology has {depth}"
            )
        return [*_TOPOGRAPH, _TOPOGRAPH_LEAF][3 - depth :]
    raise UserError(f"--label-scheme {scheme!r}: choose one of {', '.join(LABEL_SCHEMES)}")


# Kubernetes node names are DNS-1123 subdomains (k8s.io/apimachinery validation
# IsDNS1123Subdomain): lowercase alphanumerics, '-' and '.', at most 253 characters.
def _check_node_name(name: str) -> None:
    if types.problem(types.DnsSubdomain, name):
        raise UserError(
            f"host {name!r} is not a Kubernetes node name (lowercase letters, digits, '-' and "
            "'.', at most 253): rename it with --names"
        )


def _label_values(topology: Topology) -> dict[str, str]:
    """Network node id -> label value; two ids that would read the same are a conflict."""
    out: dict[str, str] = {}
    back: dict[str, str] = {}
    ids = {n for h in topology.hosts for n in h.path}
    ids |= {h.nvlink_domain for h in topology.hosts if h.nvlink_domain}
    for node in sorted(ids):
        value = label_value(node)
        if value in back:
            raise UserError(
                f"topology from {topology.source}: network nodes {back[value]!r} and {node!r} "
                f"both become label value {value!r}"
            )
        back[value] = node
        out[node] = value
    return out


def node_labels(topology: Topology, scheme: str = "gpufabric") -> dict[str, dict[str, str]]:
    """Node name -> one label per network level (+ NVLink domain where known)."""
    keys = label_keys(topology, scheme)
    nvlink_key = _NVLINK_KEYS.get(scheme, NVLINK_LABEL)
    values = _label_values(topology)
    out: dict[str, dict[str, str]] = {}
    for host in topology.hosts:
        _check_node_name(host.name)
        path = padded_path(host, topology.depth)
        labels = dict(
            writers.label(k, values[v], host.name) for k, v in zip(keys, path, strict=True)
        )
        if host.nvlink_domain:
            labels.update([writers.label(nvlink_key, values[host.nvlink_domain], host.name)])
        out[host.name] = labels
    return out


def k8s_labels(topology: Topology, scheme: str = "gpufabric") -> str:
    doc = {"labels": node_labels(topology, scheme)}
    head = (
        "# Kubernetes node labels, one per network level (top first); apply with\n"
        "#   kubectl label node NAME KEY=VALUE ... --overwrite\n"
    )
    return head + dump_yaml(doc, sort_keys=True)


def kueue_topology(
    topology: Topology,
    name: str = "gpufabric-network",
    api: str = "v1beta2",
    scheme: str = "gpufabric",
) -> str:
    """A Kueue Topology (topology-aware scheduling) whose levels are these labels."""
    if api not in KUEUE_APIS:
        raise UserError(f"--kueue-api {api!r}: choose one of {', '.join(KUEUE_APIS)}")
    if types.problem(types.DnsSubdomain, name):
        raise UserError(f"Kueue Topology name {name!r} is not a DNS-1123 subdomain")
    keys = [*label_keys(topology, scheme), "kubernetes.io/hostname"]
    if len(keys) > KUEUE_MAX_LEVELS:
        raise UserError(
            f"a Kueue Topology has at most {KUEUE_MAX_LEVELS} levels; this one needs {len(keys)}"
        )
    for key in keys:  # CRD: spec.levels[].nodeLabel is a qualified label key
        if types.problem(types.LabelKey, key):
            raise UserError(f"{key!r} is not a label key Kueue accepts as a level")
    levels = [{"nodeLabel": k} for k in keys]
    doc = {
        "apiVersion": f"kueue.x-k8s.io/{api}",
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
    if topology.unplaced:
        doc["unplaced"] = list(topology.unplaced)
    if topology.skipped:
        doc["skipped"] = [{"id": i, "reason": r} for i, r in topology.skipped]
    return jsonout.dumps(doc, indent=2) + "\n"
