"""What Azure fills in under the plan's recording mocks (gpufabric.plan.mocks)."""

from __future__ import annotations

from typing import Any

from gpufabric.plan.mocks import MockFacts, Recorded

# The Azure name each type reads back as `name`, from its own name input.
AZURE_NAME_INPUT = {
    "azure-native:resources:ResourceGroup": "resourceGroupName",
    "azure-native:network:VirtualNetwork": "virtualNetworkName",
    "azure-native:network:Subnet": "subnetName",
    "azure-native:network:NetworkSecurityGroup": "networkSecurityGroupName",
    "azure-native:network:NatGateway": "natGatewayName",
    "azure-native:network:PublicIPAddress": "publicIpAddressName",
    "azure-native:compute:ProximityPlacementGroup": "proximityPlacementGroupName",
    "azure-native:compute:VirtualMachineScaleSet": "vmScaleSetName",
    "azure-native:managedidentity:UserAssignedIdentity": "resourceName",
    "azure-native:storagecache:AmlFilesystem": "amlFilesystemName",
    "azure-native:storage:StorageAccount": "accountName",
    "azure-native:storage:BlobContainer": "containerName",
    "azure-native:storage:Blob": "blobName",
}


def computed(
    typ: str, name: str, inputs: dict[str, Any], records: list[Recorded], facts: MockFacts
) -> dict[str, Any]:
    """What Azure fills in: names, identity ids, Managed Lustre client info; and the output
    shapes that differ from the input shapes (user-assigned identities: list in, map out)."""
    out: dict[str, Any] = {"name": inputs.get(AZURE_NAME_INPUT.get(typ, "name"), name)}
    identity = inputs.get("identity")
    if isinstance(identity, dict) and isinstance(identity.get("userAssignedIdentities"), list):
        out["identity"] = {
            **identity,
            "userAssignedIdentities": {i: {} for i in identity["userAssignedIdentities"]},
        }
    if typ == "azure-native:managedidentity:UserAssignedIdentity":
        out["principalId"] = f"<{name}.principalId>"
        out["clientId"] = f"<{name}.clientId>"
    if typ == "azure-native:storagecache:AmlFilesystem":
        out["clientInfo"] = {
            "mgsAddress": f"<{name}.mgsAddress>",
            "mountCommand": f"<{name}.mountCommand>",
            "lustreVersion": f"<{name}.lustreVersion>",
        }
    return out


def answer(token: str, facts: MockFacts) -> dict[str, Any]:
    """The provider functions the Azure component calls."""
    if token == "azure-native:authorization:getClientConfig":
        return {
            "subscriptionId": "00000000-0000-0000-0000-000000000000",
            "tenantId": "11111111-1111-1111-1111-111111111111",
            "clientId": "22222222-2222-2222-2222-222222222222",
            "objectId": "33333333-3333-3333-3333-333333333333",
        }
    return {}
