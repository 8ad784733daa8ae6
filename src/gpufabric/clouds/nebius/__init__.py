"""Nebius: a GPU cluster on an InfiniBand fabric, its VMs, VPC subnet and shared filesystem."""

from gpufabric.clouds.spec import CloudSpec, NodeMetadata

CLOUD = CloudSpec(
    name="nebius",
    display_name="Nebius",
    extra="nebius",
    extra_modules=("pulumi_nebius", "nebius"),
    pulumi_sdk="pulumi_nebius",
    type_prefix="nebius",
    region_key=None,  # a Nebius project lives in one region: gpufabric:zone names it
    discovery_input="`nebius compute instance list --format json`",
    topology_source="nebius",
    region_hint="the region, e.g. eu-north1",
    topology_input="`nebius compute instance list --format json`, a GPU cluster, or IMDS instance-data",
    topology_metadata=NodeMetadata(
        url="http://metadata.nebius.internal/v1/instance-data",
        headers=(("Metadata", "true"),),
        citation="infiniband_topology_path; [P] Nebius instance-metadata docs as read by its "
        "IMDS clients",
    ),
)
