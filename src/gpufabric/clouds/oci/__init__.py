"""OCI: an RDMA cluster network of bare-metal GPU nodes, its VCN and File Storage with Lustre."""

from gpufabric.clouds.spec import CloudSpec, NodeMetadata

CLOUD = CloudSpec(
    name="oci",
    display_name="OCI",
    extra="oci",
    extra_modules=("pulumi_oci", "oci"),
    pulumi_sdk="pulumi_oci",
    type_prefix="oci",
    region_key="oci:region",
    discovery_input="`oci compute-management instance-pool list-instances`, `oci compute vnic-attachment list` and `oci network vnic get` (JSON)",
    topology_source="oci",
    boot_store="Object Storage",
    topology_input="OCI compute host list (ListComputeCapacityTopologyComputeBareMetalHosts / ListComputeHosts) or rdmaTopologyData per node",
    topology_metadata=NodeMetadata(
        url="http://169.254.169.254/opc/v2/host/rdmaTopologyData",
        headers=(("Authorization", "Bearer Oracle"),),
        citation="HPC island / network block / local block; [P] NVIDIA/topograph "
        "pkg/providers/oci/imds.go",
    ),
)
