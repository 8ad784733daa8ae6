"""Recording mocks: every resource the program registers, with readable fake ids.

Computed attributes the program reads back (ARNs, DNS names, zones) get realistic values,
so inputs built from them are never silently None.
"""

from __future__ import annotations

import ipaddress
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

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:  # type: ignore[override]
        # a bare dict: pulumi's MockMonitor iterates the failures of a (result, failures) pair
        return self._answer(args)

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
        if token == "oci:Core/getServices:getServices":
            label = f"all-{self.facts.region}-services-in-oracle-services-network"
            return {
                "services": [
                    {
                        "id": f"ocid1.service.oc1..{label}",
                        "cidrBlock": label,
                        "name": f"All {self.facts.region} Services In Oracle Services Network",
                        "description": "every Oracle service of the region",
                    }
                ]
            }
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
        if typ.startswith("gcp:"):
            out.update(gcp_computed(typ, name, inputs, self.records))
        if typ.startswith("oci:"):
            out.update(oci_computed(typ, name, inputs))
        return out


class CapturingMonitor(pulumi_mocks.MockMonitor):
    """A MockMonitor that also keeps the root stack's registered outputs (the exports) and each
    resource's custom timeouts (resource options the mocks' new_resource does not see)."""

    def __init__(self, mocks: RecordingMocks) -> None:
        super().__init__(mocks)
        self.stack_outputs: dict[str, Any] = {}
        self.timeouts: dict[tuple[str, str], dict[str, str]] = {}

    def RegisterResource(self, request):
        if request.HasField("customTimeouts"):
            given = request.customTimeouts
            kept = {
                k: getattr(given, k) for k in ("create", "update", "delete") if getattr(given, k)
            }
            if kept:
                self.timeouts[(request.type, request.name)] = kept
        return super().RegisterResource(request)

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


# ---------------------------------------------------------------- GCP (pulumi-gcp)
def gcp_computed(typ: str, name: str, inputs: dict[str, Any], records: list[Recorded]) -> dict:
    """What GCP fills in for the types whose outputs the GCP component reads."""
    project = inputs.get("project", "my-project")
    out: dict[str, Any] = {
        "selfLink": f"https://www.googleapis.com/compute/v1/projects/{project}/{name}",
        "project": project,
    }
    if typ == "gcp:compute/instance:Instance":
        node = int("".join(ch for ch in name[-4:] if ch.isdigit()) or 0)
        out["networkInterfaces"] = [
            {**nic, "networkIp": f"10.{index}.0.{node % 250 + 2}", "name": f"nic{index}"}
            for index, nic in enumerate(inputs.get("networkInterfaces", []))
        ]
    if typ == "gcp:compute/instanceGroupManager:InstanceGroupManager":
        zone = inputs.get("zone")
        out["instanceGroup"] = f"projects/{project}/zones/{zone}/instanceGroups/{name}"
    storage_ips = _psa_addresses(records)
    if typ == "gcp:lustre/instance:Instance":
        out["mountPoint"] = f"{storage_ips[0]}@tcp:/{inputs.get('filesystem')}"
    if typ == "gcp:parallelstore/instance:Instance":
        out["accessPoints"] = storage_ips[:3]
    if typ == "gcp:filestore/instance:Instance":
        out["networks"] = [
            {**network, "ipAddresses": storage_ips[:1]} for network in inputs.get("networks", [])
        ]
    return out


def _psa_addresses(records: list[Recorded]) -> list[str]:
    """Addresses inside the recorded private-service-access range (where GCP puts storage)."""
    for record in records:
        if record.type == "gcp:compute/globalAddress:GlobalAddress":
            net = ipaddress.IPv4Network(
                f"{record.inputs.get('address')}/{int(record.inputs.get('prefixLength', 24))}"
            )
            return [str(net.network_address + offset) for offset in (2, 3, 4)]
    return ["10.0.0.2", "10.0.0.3", "10.0.0.4"]


# ---------------------------------------------------------------- OCI (pulumi-oci)
def oci_computed(typ: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """What OCI fills in: the cluster network's instance pool id, Lustre's MGS address."""
    out: dict[str, Any] = {}
    if typ == "oci:Core/clusterNetwork:ClusterNetwork":
        out["instancePools"] = [
            {**pool, "id": f"<{name}.pool{index}.id>"}
            for index, pool in enumerate(inputs.get("instancePools", []))
        ]
    if typ == "oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem":
        out["managementServiceAddress"] = f"<{name}.mgsAddress>"
        out["lnet"] = "tcp"
    return out
