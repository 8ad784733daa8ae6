"""Kubernetes node labels (one per network level) and a Kueue Topology whose levels are those
labels.

Label keys follow a scheme: gpufabric's own (network.gpufabric.io/<level>), each registered
cloud's own (its CloudSpec.label_schemes: the labels its Kubernetes service puts on nodes), and
NVIDIA/topograph's k8s engine (docs/engines/k8s.md: core, spine, leaf; accelerator for the
NVLink domain).
"""

from __future__ import annotations

from gpufabric.clouds import registry
from gpufabric.clouds.spec import LabelScheme
from gpufabric.errors import Arg, ArgumentError, UserError
from gpufabric.inputs import types, writers
from gpufabric.topology.emit.names import dump_yaml, label_value
from gpufabric.topology.model import Topology, level_names, padded_path

LABEL_PREFIX = "network.gpufabric.io"
NVLINK_LABEL = f"{LABEL_PREFIX}/nvlink-domain"
GPUFABRIC = LabelScheme(name="gpufabric", key=LABEL_PREFIX + "/{level}")
TOPOGRAPH = LabelScheme(
    name="topograph",
    keys=(
        "network.topology.nvidia.com/core",
        "network.topology.nvidia.com/spine",
        "network.topology.nvidia.com/leaf",
    ),
    nvlink_key="network.topology.nvidia.com/accelerator",
    citation="NVIDIA/topograph docs/engines/k8s.md",
)
# Kueue Topology API versions (kueue.x-k8s.io CRD): v1beta2 is stored and served from Kueue
# 0.16; v1beta1 is what 0.14-0.15 serve (and later ones, deprecated); v1alpha1 is gone since 0.14.
KUEUE_APIS = ("v1beta2", "v1beta1")
KUEUE_MAX_LEVELS = 16  # CRD: spec.levels maxItems


def label_schemes() -> dict[str, LabelScheme]:
    """Every scheme by name: gpufabric's, then each registered cloud's, then topograph's."""
    clouds = [s for spec in registry.specs() for s in spec.label_schemes]
    return {s.name: s for s in (GPUFABRIC, *clouds, TOPOGRAPH)}


def _scheme(name: str) -> LabelScheme:
    schemes = label_schemes()
    if name not in schemes:
        raise ArgumentError("label_scheme", f"choose one of {', '.join(schemes)}", value=repr(name))
    return schemes[name]


def label_keys(topology: Topology, scheme: str = "gpufabric") -> list[str]:
    """Label keys, top level first (the order a Kueue Topology lists its levels)."""
    depth = topology.depth
    rule = _scheme(scheme)
    if rule.keys:
        if depth > len(rule.keys):
            short = ", ".join(k.rsplit("/", 1)[-1] for k in rule.keys)
            raise ArgumentError(
                "label_scheme",
                f"{scheme} labels {len(rule.keys)} levels ({short}); this topology has {depth}",
                value=scheme,
            )
        return list(rule.keys[len(rule.keys) - depth :])
    return [
        rule.key.format(n=number, level=level)
        for number, level in enumerate(level_names(depth), start=1)
    ]


# Kubernetes node names are DNS-1123 subdomains (k8s.io/apimachinery validation
# IsDNS1123Subdomain): lowercase alphanumerics, '-' and '.', at most 253 characters.
def _check_node_name(name: str) -> None:
    if types.problem(types.DnsSubdomain, name):
        raise UserError(
            f"host {name!r} is not a Kubernetes node name (lowercase letters, digits, '-' and "
            "'.', at most 253): rename it with ",
            Arg("names"),
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
    nvlink_key = _scheme(scheme).nvlink_key or NVLINK_LABEL
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
        raise ArgumentError("kueue_api", f"choose one of {', '.join(KUEUE_APIS)}", value=repr(api))
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
