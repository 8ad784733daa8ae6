"""Azure resources as gpufabric's policies read them: scale sets and VMs are nodes; network
security groups and their rules let traffic in; Managed Lustre sits in a zone; InfiniBand needs
a Standard proximity placement group (scale sets: one placement group)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.policies.cloud import CloudPolicy
from gpufabric.policies.ingress import port_words
from gpufabric.policies.model import Ingress, Node, Resource, Stack, as_list, as_map, dig, maps

SCALE_SET = "azure-native:compute:VirtualMachineScaleSet"
VM = "azure-native:compute:VirtualMachine"
NIC = "azure-native:network:NetworkInterface"
NSG = "azure-native:network:NetworkSecurityGroup"
RULE = "azure-native:network:SecurityRule"
PPG = "azure-native:compute:ProximityPlacementGroup"
LUSTRE = "azure-native:storagecache:AmlFilesystem"


def _vm_size(resource: Resource) -> str | None:
    value = dig(resource.props, "hardwareProfile", "vmSize") or (
        dig(resource.props, "sku", "name") if resource.type == SCALE_SET else None
    )
    return value.rsplit("/", 1)[-1] if isinstance(value, str) and value else None


def _own_public_ip(res: Resource) -> Iterator[str]:
    if not res.type.startswith("azure-native:compute:"):
        return
    profile = as_map(res.props.get("virtualMachineProfile")) or res.props
    for nic in maps(dig(profile, "networkProfile", "networkInterfaceConfigurations")):
        for ip in maps(nic.get("ipConfigurations")):
            if ip.get("publicIPAddressConfiguration"):
                yield f"NIC {nic.get('name', '?')} has a publicIPAddressConfiguration"


def _vm_nics(stack: Stack, node: Node) -> Iterator[tuple[Resource, str]]:
    vm = node.resource
    if vm.type != VM:
        return
    for ref in maps(dig(vm.props, "networkProfile", "networkInterfaces")):
        nic = stack.resolve(ref.get("id"), [NIC], vm, "networkProfile")
        if nic is None:
            continue
        for ip in maps(nic.props.get("ipConfigurations")):
            if ip.get("publicIPAddress"):
                yield nic, f"GPU VM {vm.name}'s NIC has a public IP address"


def _rule(rule: Mapping[str, Any]) -> Iterator[Ingress]:
    if str(rule.get("direction", "")).lower() != "inbound":
        return
    if str(rule.get("access", "")).lower() != "allow":
        return
    protocol = str(rule.get("protocol", "*")).lower().replace("*", "all")
    ports = port_words(
        as_list(rule.get("destinationPortRanges")) or [rule.get("destinationPortRange", "*")]
    )
    source_ports = as_list(rule.get("sourcePortRanges")) or [rule.get("sourcePortRange") or "*"]
    reply_only = "*" not in [str(p) for p in source_ports]
    for source in [rule.get("sourceAddressPrefix"), *as_list(rule.get("sourceAddressPrefixes"))]:
        if source:
            yield Ingress(str(source), protocol, ports, reply_only)


def _group(props: Mapping[str, Any]) -> Iterator[Ingress]:
    for rule in maps(props.get("securityRules")):
        yield from _rule(rule)


def _node_zones(stack: Stack, node: Node) -> set[str]:
    return set(map(str, as_list(node.resource.props.get("zones"))))


def _storage_zones(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for fs in stack.of_type(LUSTRE):
        for zone in as_list(fs.props.get("zones")):
            yield fs, str(zone)


def _placement(stack: Stack, node: Node) -> str:
    res = node.resource
    if res.type not in (SCALE_SET, VM):
        return ""
    ref = dig(res.props, "proximityPlacementGroup", "id")
    if not ref:
        return "GPU nodes are in no proximity placement group"
    if res.type == SCALE_SET and res.props.get("singlePlacementGroup") is not True:
        return "singlePlacementGroup is not true: InfiniBand spans one placement group only"
    group = stack.resolve(ref, [PPG], res, "proximityPlacementGroup")
    kind = group.props.get("proximityPlacementGroupType", "Standard") if group else "Standard"
    if kind != "Standard":
        return f"proximity placement group {group.name if group else ref} is {kind!r}, not Standard"
    return ""


POLICY = CloudPolicy(
    node_types=(SCALE_SET, VM),
    gpu_family=r"Standard_N[A-Za-z0-9_]+",
    instance_type=_vm_size,
    own_public_ip=_own_public_ip,
    node_public_ips=_vm_nics,
    ingress={NSG: _group, RULE: _rule},
    node_zones=_node_zones,
    storage_zones=_storage_zones,
    placement=_placement,
    words={
        "gpu-nodes-no-public-ip": "no public IP configuration on any NIC",
        "storage-in-node-zone": "Managed Lustre",
        "gpu-nodes-in-placement-group": (
            "a proximity placement group (scale sets with singlePlacementGroup true)"
        ),
    },
)
