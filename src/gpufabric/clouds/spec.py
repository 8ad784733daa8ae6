"""What a cloud package declares about itself: the light facts every part of the core may read.

A cloud is one package, src/gpufabric/clouds/<name>/ (or any importable package named in
GPUFABRIC_CLOUDS, see gpufabric.clouds.registry), whose `__init__` holds `CLOUD = CloudSpec(...)`
and imports nothing heavy. Beside it, modules with fixed names hold the rest, imported only
when that part is used (the registry's `module(name, part)`):

    settings.py   the `gpufabric:<name>` section (SETTINGS) and its storage models (STORAGE)
    rules.py      check(cfg, itype): the cloud's own cross-field rules, each naming its key
    cluster.py    build(cfg) -> ClusterOutputs: the Pulumi component (imports the cloud's SDK)
    summary.py    summarise(plan): fabric facts read back from the plan's recorded resources
    mocks.py      computed(...) / answer(...): what the cloud fills in under the plan's mocks
    discovery.py  recognise(data), from_docs(outputs, docs), live(outputs, client): its nodes
    topology.py   load(data, names, origin): where its nodes sit in the network (optional);
                  live(region, instance_ids, names, name_by) where the controller can ask the
                  cloud's API; node reports (node -> its metadata document) where the spec
                  declares topology_metadata
    capacity.py   where reserved capacity sits before launch, for `gpufabric capacity` (optional)
    policy.py     POLICY: which resources are nodes, rules, file systems, and how the policies
                  read them (gpufabric.policies.cloud.CloudPolicy; optional: without it the
                  policies find nothing of this cloud)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NodeMetadata:
    """Where a node reads its own place in the fabric from its instance metadata service: the
    topology role asks each node for this document and hands the answers, keyed by node, to the
    cloud's topology.load (gpufabric.topology.load.node_reports checks them first)."""

    url: str
    """The metadata service's URL, as the node reaches it."""
    headers: tuple[tuple[str, str], ...] = ()
    """Request headers the service requires (name, value)."""
    document: str = "json"
    """json (a JSON document) or text (one value, read as it is)."""
    citation: str = ""
    """Where the endpoint and its fields are documented."""


@dataclass(frozen=True)
class LabelScheme:
    """Kubernetes node-label keys for the network levels, the way a cloud's (or a tool's) own
    nodes carry them: `gpufabric topology render --label-scheme <name>`."""

    name: str
    key: str = ""
    """One key per level: {n} is the level's number (1 the top), {level} its name."""
    keys: tuple[str, ...] = ()
    """Or fixed keys, top first: a topology with fewer levels takes the last ones, one with more
    is refused."""
    nvlink_key: str = ""
    """The NVLink domain's label key ('' = gpufabric's own)."""
    citation: str = ""
    """Where the keys are documented."""


@dataclass(frozen=True)
class CloudSpec:
    name: str
    """The catalog's `cloud:` value and the stack outputs' `cluster.cloud`."""
    display_name: str
    """How users write it, short: error lines say "this is a <display_name> stack"."""
    extra: str
    """The pip extra that installs its SDKs: pip install 'gpufabric[<extra>]'."""
    extra_modules: tuple[str, ...]
    """The importable modules that extra provides."""
    pulumi_sdk: str
    """The Pulumi provider SDK its component is built on (an import name)."""
    type_prefix: str
    """Pulumi type tokens of its resources start with '<type_prefix>:'."""
    region_key: str | None
    """The provider config key that names the stack's region; None where gpufabric:zone does."""
    discovery_input: str
    """What a saved discovery file is: the cloud CLI's command that prints it."""
    topology_source: str
    """Where the topology role asks for its nodes' network position (a topology source name)."""
    region_hint: str = ""
    """Where region_key is None: what gpufabric:zone holds, e.g. "the region, e.g. eu-north1"."""
    provider_settings: tuple[tuple[str, str], ...] = ()
    """(field of gpufabric:<name>, provider config key) pairs that must hold the same value,
    e.g. a project id given twice: the config check refuses a stack where they differ."""
    capacity_groups: bool = False
    """Whether gpufabric:capacity.resourceGroupArn (several reservations behind one group) applies."""
    capacity_targets: bool = False
    """Whether gpufabric:capacity.reservations (several reservations, nodes placed on each) applies."""
    boot_store: str = ""
    """The object storage its program puts the configuration bundle in when gpufabric:boot is
    enabled (e.g. "S3"); '' where the program cannot (boot mode is then refused in config)."""
    topology_input: str = ""
    """What `gpufabric topology --source <name> --input FILE` reads; '' where the cloud has no
    topology source of its own (topology.py)."""
    topology_metadata: NodeMetadata | None = None
    """Where each node reads its place in the fabric (the topology role's node-metadata gather);
    None where the controller asks the cloud's API (topology.live) or the fabric is read."""
    label_schemes: tuple[LabelScheme, ...] = ()
    """Node-label schemes of the cloud's own Kubernetes service, for k8s-labels / kueue-topology."""
    nvlink_domain_field: str = ""
    """The field of its topology that names a node's NVLink domain (an example in messages)."""
