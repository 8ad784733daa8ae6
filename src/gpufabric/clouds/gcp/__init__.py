"""GCP: A3 High / A3 Mega (GPUDirect-TCPX/O over gVNIC VPCs) and A3 Ultra / A4 (RoCE) clusters."""

from gpufabric.clouds.spec import CloudSpec

CLOUD = CloudSpec(
    name="gcp",
    display_name="GCP",
    extra="gcp",
    extra_modules=("pulumi_gcp", "google.cloud.compute_v1"),
    pulumi_sdk="pulumi_gcp",
    type_prefix="gcp",
    region_key="gcp:region",
    discovery_input="`gcloud compute instances list --format=json`",
    capacity_targets=True,
    topology_source="gcp",
    boot_store="Cloud Storage",
    topology_input="`gcloud compute instances list --format=json` or physical_host values",
)
