"""Sixth: a stand-in cloud whose GPU nodes sit on an InfiniBand fabric, for tests only."""

import os

from gpufabric.clouds.spec import CloudSpec, NodeMetadata

CLOUD = CloudSpec(
    name="sixth",
    display_name="Sixth",
    extra="sixth",
    extra_modules=("pulumi",),
    pulumi_sdk="pulumi",
    type_prefix="sixth",
    region_key="sixth:region",
    discovery_input="`sixth nodes list --json`",
    topology_source="sixth",
    topology_input="`sixth nodes list --json` (each node's switch path)",
    topology_metadata=NodeMetadata(
        url=os.environ.get("SIXTH_METADATA_URL", "http://metadata.sixth.internal/v1/position"),
        headers=(("Sixth-Metadata", "yes"),),
    ),
)
