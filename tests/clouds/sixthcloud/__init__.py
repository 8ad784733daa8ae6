"""Sixth: a stand-in cloud whose GPU nodes sit on an InfiniBand fabric, for tests only."""

from gpufabric.clouds.spec import CloudSpec

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
)
