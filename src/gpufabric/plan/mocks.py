"""Recording mocks: every resource the program registers, with readable fake ids.

Computed attributes the program reads back (ARNs, DNS names, zones) get realistic values,
so inputs built from them are never silently None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc


@dataclass(frozen=True)
class Recorded:
    type: str
    name: str
    id: str
    inputs: dict[str, Any]
    custom: bool
    read: bool


def placeholder_id(name: str) -> str:
    return f"<{name}.id>"


@dataclass
class MockFacts:
    """What the fake cloud answers: the stack's region and zone."""

    region: str
    zone: str
    account: str = "123456789012"


class RecordingMocks(pulumi.runtime.Mocks):
    def __init__(self, facts: MockFacts) -> None:
        self.facts = facts
        self.records: list[Recorded] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
        rid = args.resource_id or placeholder_id(args.name)
        inputs = dict(args.inputs)
        self.records.append(
            Recorded(args.typ, args.name, rid, inputs, bool(args.custom), bool(args.resource_id))
        )
        return rid, {**inputs, **self._computed(args.typ, args.name, inputs)}

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list[tuple[str, str]] | None]:
        return self._answer(args), None

    def _answer(self, args: pulumi.runtime.MockCallArgs) -> dict:
        token = args.token
        if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            names = [f"{self.facts.region}{s}" for s in "abcd"]
            return {"names": names, "zoneIds": [f"use1-az{i}" for i in range(1, 5)]}
        if token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": self.facts.account, "arn": "arn:aws:iam::123456789012:user/plan"}
        if token == "aws:index/getRegion:getRegion":
            return {"name": self.facts.region, "region": self.facts.region}
        if token == "aws:index/getPartition:getPartition":
            return {"partition": "aws", "dnsSuffix": "amazonaws.com"}
        return {}

    def _computed(self, typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        """Attributes the cloud would fill in, for the types whose outputs the program reads."""
        arn = f"arn:aws:{typ.split(':')[1].split('/')[0]}:{self.facts.region}:{self.facts.account}:{name}"
        out: dict[str, Any] = {"arn": arn, "name": inputs.get("name", name)}
        if typ.startswith("aws:"):
            out["tagsAll"] = inputs.get("tags", {})
        if typ == "aws:fsx/lustreFileSystem:LustreFileSystem":
            out["dnsName"] = f"{placeholder_id(name)}.fsx.{self.facts.region}.amazonaws.com"
            out["mountName"] = "abcdef01"
        if typ == "aws:ec2/launchTemplate:LaunchTemplate":
            out["latestVersion"] = 1
        if typ == "aws:ec2/capacityReservation:CapacityReservation":
            out.setdefault("availabilityZone", self.facts.zone)
        if typ == "aws:ec2/subnet:Subnet":
            out["availabilityZone"] = inputs.get("availabilityZone", self.facts.zone)
        if typ == "aws:ec2/instance:Instance":
            out["privateIp"] = "10.0.0.10"
            out["privateDns"] = f"ip-10-0-0-10.{self.facts.region}.compute.internal"
        if typ.startswith("azure-native:"):
            out.update(azure_computed(typ, name, inputs))
        return out


class CapturingMonitor(pulumi_mocks.MockMonitor):
    """A MockMonitor that also keeps the root stack's registered outputs (the exports)."""

    def __init__(self, mocks: RecordingMocks) -> None:
        super().__init__(mocks)
        self.stack_outputs: dict[str, Any] = {}

    def RegisterResourceOutputs(self, request):
        if "::pulumi:pulumi:Stack::" in request.urn:
            self.stack_outputs = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)


# ---------------------------------------------------------------- Azure (azure-native)
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
}


def azure_computed(typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
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
