"""Azure: InfiniBand clusters (ND H100 v5, ND H200 v5, ND A100 v4) with Azure Managed Lustre."""

from gpufabric.clouds.spec import CloudSpec

CLOUD = CloudSpec(
    name="azure",
    display_name="Azure",
    extra="azure",
    extra_modules=(
        "pulumi_azure_native",
        "azure.identity",
        "azure.mgmt.compute",
        "azure.mgmt.network",
    ),
    pulumi_sdk="pulumi_azure_native",
    type_prefix="azure-native",
    region_key="azure-native:location",
    discovery_input="`az vmss nic list -g RG --vmss-name NAME -o json`",
    topology_source="ib",
    boot_store="Blob Storage",
)
