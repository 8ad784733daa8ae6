"""GCP: A3 High / A3 Mega (GPUDirect-TCPX/O over gVNIC VPCs) and A3 Ultra / A4 (RoCE) clusters."""

from gpufabric.clouds.spec import CloudSpec, NodeMetadata

CLOUD = CloudSpec(
    name="gcp",
    display_name="GCP",
    extra="gcp",
    extra_modules=("pulumi_gcp", "google.cloud.compute_v1"),
    pulumi_sdk="pulumi_gcp",
    type_prefix="gcp",
    region_key="gcp:region",
    provider_settings=(("project", "gcp:project"),),
    discovery_input="`gcloud compute instances list --format=json`",
    capacity_targets=True,
    topology_source="gcp",
    boot_store="Cloud Storage",
    topology_input="`gcloud compute instances list --format=json` or physical_host values",
    topology_metadata=NodeMetadata(
        url="http://metadata.google.internal/computeMetadata/v1/instance/attributes/physical_host",
        headers=(("Metadata-Flavor", "Google"),),
        document="text",
        citation="docs/sources.md C.3 (the VM's physical_host attribute: /cluster/rack/host)",
    ),
)
