"""Which resources are GPU nodes, on every cloud; no public IPs on them; IMDSv2.

A GPU node is defined by a template (AWS launch template, GCP instance template) or by the
resource itself (an instance, an Azure scale set or VM) whose instance type is a GPU type:
one in gpufabric's catalog, or one of the clouds' GPU families.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from gpufabric.catalog import catalog
from gpufabric.policies.model import (
    EVERY_CLOUD,
    Resource,
    ResourcePolicy,
    Stack,
    StackPolicy,
    as_list,
    as_map,
    dig,
    is_true,
    maps,
)

AWS_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_GROUP = "aws:autoscaling/group:Group"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SUBNET = "aws:ec2/subnet:Subnet"
AWS_EIP = "aws:ec2/eip:Eip"
GCP_INSTANCE = "gcp:compute/instance:Instance"
GCP_TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
GCP_REGION_TEMPLATE = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
GCP_FROM_TEMPLATE = "gcp:compute/instanceFromTemplate:InstanceFromTemplate"
GCP_GROUP = "gcp:compute/instanceGroupManager:InstanceGroupManager"
GCP_REGION_GROUP = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
AZURE_SCALE_SET = "azure-native:compute:VirtualMachineScaleSet"
AZURE_VM = "azure-native:compute:VirtualMachine"
AZURE_NIC = "azure-native:network:NetworkInterface"
OCI_CLUSTER_NETWORK = "oci:Core/clusterNetwork:ClusterNetwork"
OCI_INSTANCE_CONFIG = "oci:Core/instanceConfiguration:InstanceConfiguration"
NEBIUS_INSTANCE = "nebius:index/computeV1Instance:ComputeV1Instance"

GCP_TEMPLATES = (GCP_TEMPLATE, GCP_REGION_TEMPLATE)
# GPU families beyond the catalog: AWS p*/g*/trn*/dl*, GCP a2/a3/a4/g2, Azure N-series
_GPU_FAMILY = re.compile(
    r"^((p|g|trn|dl)\d+[a-z0-9-]*\.[0-9a-z]+"
    r"|(a\d+|a2|g2)-[a-z]+(gpu)?-\d+g|Standard_N[A-Za-z0-9_]+)$"
)


def is_gpu_type(name: object) -> bool:
    if not isinstance(name, str) or not name:
        return False
    short = name.rsplit("/", 1)[-1]  # GCP machine types may be URLs
    return name in catalog() or short in catalog() or bool(_GPU_FAMILY.match(short))


def instance_type(resource: Resource) -> str | None:
    """The instance type / machine type / VM size a resource launches, if it says."""
    props = resource.props
    value = (
        props.get("instanceType")
        or props.get("machineType")
        or dig(props, "hardwareProfile", "vmSize")
        or (dig(props, "sku", "name") if resource.type == AZURE_SCALE_SET else None)
        or dig(props, "instanceDetails", "launchDetails", "shape")
        or _nebius_type(resource)
    )
    if resource.type == NEBIUS_INSTANCE:
        return value if isinstance(value, str) else None
    return value.rsplit("/", 1)[-1] if isinstance(value, str) else None


def _nebius_type(resource: Resource) -> str | None:
    """Nebius names a VM by platform and preset; the catalog joins them as platform/preset."""
    if resource.type != NEBIUS_INSTANCE:
        return None
    res = as_map(resource.props.get("resources"))
    if not res.get("platform") or not res.get("preset"):
        return None
    return f"{res['platform']}/{res['preset']}"


@dataclass(frozen=True)
class Node:
    """Something that launches GPU nodes, and the template that defines them (if any)."""

    resource: Resource
    template: Resource | None

    @property
    def definition(self) -> Resource:
        """Where the node's settings (NICs, placement, metadata) are written."""
        return self.template or self.resource


def gpu_nodes(stack: Stack) -> Iterator[Node]:
    """Every node launcher whose nodes are GPU nodes, with its template resolved."""
    for res in stack.resources:
        template = _template_of(stack, res)
        if res.type in (
            AWS_INSTANCE,
            GCP_INSTANCE,
            GCP_FROM_TEMPLATE,
            AZURE_SCALE_SET,
            AZURE_VM,
            NEBIUS_INSTANCE,
        ):
            own = instance_type(res)
            if is_gpu_type(own) or (
                own is None and template and is_gpu_type(instance_type(template))
            ):
                yield Node(res, template)
        elif (
            res.type in (AWS_GROUP, GCP_GROUP, GCP_REGION_GROUP, OCI_CLUSTER_NETWORK)
            and template is not None
            and is_gpu_type(instance_type(template))
        ):
            yield Node(res, template)


def gpu_templates(stack: Stack) -> list[Resource]:
    return [r for r in stack.of_type(AWS_TEMPLATE, *GCP_TEMPLATES) if is_gpu_type(instance_type(r))]


def _template_of(stack: Stack, res: Resource) -> Resource | None:
    props = res.props
    if res.type in (AWS_GROUP, AWS_INSTANCE):
        spec = as_map(props.get("launchTemplate")) or as_map(
            dig(props, "mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification")
        )
        ref = spec.get("id") or spec.get("launchTemplateId") or spec.get("name")
        key = "launchTemplate" if props.get("launchTemplate") else "mixedInstancesPolicy"
        return stack.resolve(ref, [AWS_TEMPLATE], res, key) if spec else None
    if res.type in (GCP_GROUP, GCP_REGION_GROUP):
        for version in maps(props.get("versions")):
            found = stack.resolve(version.get("instanceTemplate"), GCP_TEMPLATES, res, "versions")
            if found:
                return found
    if res.type == OCI_CLUSTER_NETWORK:
        for pool in maps(props.get("instancePools")):
            found = stack.resolve(
                pool.get("instanceConfigurationId"), [OCI_INSTANCE_CONFIG], res, "instancePools"
            )
            if found:
                return found
    if res.type == GCP_FROM_TEMPLATE:
        return stack.resolve(
            props.get("sourceInstanceTemplate"), GCP_TEMPLATES, res, "sourceInstanceTemplate"
        )
    return None


# -- no public IPs on GPU nodes -------------------------------------------------------


def _public_ips(stack: Stack) -> Iterator[tuple[Resource, str]]:
    seen: set[str] = set()
    nodes = list(gpu_nodes(stack))
    definitions = {n.definition.urn or n.definition.label: n.definition for n in nodes}
    for definition in [*definitions.values(), *gpu_templates(stack)]:
        key = definition.urn or definition.label
        if key in seen:
            continue
        seen.add(key)
        yield from ((definition, reason) for reason in _own_public_ip(definition))
    for node in nodes:
        if node.template is not None and node.resource.type in (AWS_INSTANCE, GCP_FROM_TEMPLATE):
            yield from ((node.resource, r) for r in _own_public_ip(node.resource))
        if node.resource.type == AZURE_VM:
            yield from _azure_vm_nics(stack, node.resource)
        if node.resource.type in (AWS_GROUP, AWS_INSTANCE):
            yield from _aws_public_subnets(stack, node)
    gpu_instances = {n.resource.label for n in nodes if n.resource.type == AWS_INSTANCE}
    for eip in stack.of_type(AWS_EIP):
        target = stack.resolve(eip.props.get("instance"), [AWS_INSTANCE], eip, "instance")
        if target is not None and target.label in gpu_instances:
            yield eip, f"attaches an Elastic IP to GPU node {target.name}"


def _own_public_ip(res: Resource) -> Iterator[str]:
    props = res.props
    if res.type in (AWS_TEMPLATE, AWS_INSTANCE):
        if is_true(props.get("associatePublicIpAddress")):
            yield "associatePublicIpAddress is true"
        for nic in maps(props.get("networkInterfaces")):
            if is_true(nic.get("associatePublicIpAddress")):
                yield (
                    f"network interface on card {nic.get('networkCardIndex', 0)} / device "
                    f"{nic.get('deviceIndex', 0)} asks for a public IP (associatePublicIpAddress)"
                )
    elif res.type.startswith("gcp:compute/"):
        for index, nic in enumerate(maps(props.get("networkInterfaces"))):
            if as_list(nic.get("accessConfigs")) or as_list(nic.get("ipv6AccessConfigs")):
                yield f"networkInterfaces[{index}] has an accessConfig (an external IP)"
    elif res.type == OCI_INSTANCE_CONFIG:
        vnic = dig(props, "instanceDetails", "launchDetails", "createVnicDetails")
        if is_true(as_map(vnic).get("assignPublicIp")):
            yield "the front-end VNIC asks for a public IP (createVnicDetails.assignPublicIp)"
    elif res.type == NEBIUS_INSTANCE:
        for index, nic in enumerate(maps(props.get("networkInterfaces"))):
            if nic.get("publicIpAddress") is not None:
                yield f"networkInterfaces[{index}] has a publicIpAddress"
    elif res.type.startswith("azure-native:compute:"):
        profile = as_map(props.get("virtualMachineProfile")) or props
        for nic in maps(dig(profile, "networkProfile", "networkInterfaceConfigurations")):
            for ip in maps(nic.get("ipConfigurations")):
                if ip.get("publicIPAddressConfiguration"):
                    yield f"NIC {nic.get('name', '?')} has a publicIPAddressConfiguration"


def _azure_vm_nics(stack: Stack, vm: Resource) -> Iterator[tuple[Resource, str]]:
    for ref in maps(dig(vm.props, "networkProfile", "networkInterfaces")):
        nic = stack.resolve(ref.get("id"), [AZURE_NIC], vm, "networkProfile")
        if nic is None:
            continue
        for ip in maps(nic.props.get("ipConfigurations")):
            if ip.get("publicIPAddress"):
                yield nic, f"GPU VM {vm.name}'s NIC has a public IP address"


def _aws_public_subnets(stack: Stack, node: Node) -> Iterator[tuple[Resource, str]]:
    """A subnet that hands out public IPs, unless the node's primary NIC refuses one."""
    primary = next(
        (
            nic
            for nic in maps(node.definition.props.get("networkInterfaces"))
            if int(nic.get("deviceIndex", 0)) == 0 and int(nic.get("networkCardIndex", 0)) == 0
        ),
        {},
    )
    if primary.get("associatePublicIpAddress") is not None and not is_true(
        primary.get("associatePublicIpAddress")
    ):
        return
    for subnet in node_subnets(stack, node):
        if is_true(subnet.props.get("mapPublicIpOnLaunch")):
            yield subnet, "GPU nodes launch in this subnet and it maps public IPs on launch"


def node_subnets(stack: Stack, node: Node) -> list[Resource]:
    """The AWS subnets a node launcher puts its nodes in."""
    refs: dict[tuple[str, str], None] = {  # ordered and without repeats (32 NICs, one subnet)
        (str(ref), "vpcZoneIdentifiers"): None
        for ref in as_list(node.resource.props.get("vpcZoneIdentifiers"))
    }
    refs[(str(node.resource.props.get("subnetId") or ""), "subnetId")] = None
    for nic in maps(node.definition.props.get("networkInterfaces")):
        refs[(str(nic.get("subnetId") or ""), "networkInterfaces")] = None
    found: dict[str, Resource] = {}
    for ref, key in refs:
        owner = node.resource if key != "networkInterfaces" else node.definition
        subnet = stack.resolve(ref, [AWS_SUBNET], owner, key) if ref else None
        if subnet is not None:
            found[subnet.label] = subnet
    return list(found.values())


NO_PUBLIC_IP = StackPolicy(
    name="gpu-nodes-no-public-ip",
    description=(
        "GPU nodes get no public IP: no public address on any NIC (AWS launch templates and "
        "instances, GCP access configs, Azure public IP configurations), no Elastic IP, and no "
        "subnet that maps public IPs on launch"
    ),
    check=_public_ips,
    clouds=EVERY_CLOUD,
)


# -- IMDSv2 ---------------------------------------------------------------------------


def _imdsv2(res: Resource) -> list[str]:
    if res.type not in (AWS_TEMPLATE, AWS_INSTANCE):
        return []
    meta = as_map(res.props.get("metadataOptions"))
    if res.type == AWS_INSTANCE and not meta and res.props.get("launchTemplate"):
        return []  # the launch template's metadata options apply; that template is checked
    if meta.get("httpEndpoint") == "disabled" or meta.get("httpTokens") == "required":
        return []
    return [
        f"metadataOptions.httpTokens is {meta.get('httpTokens', 'unset')!r}; "
        "IMDSv2 needs 'required' (IMDSv1 hands credentials to any SSRF)"
    ]


IMDSV2 = ResourcePolicy(
    name="imdsv2-required",
    description=(
        "EC2 launch templates and instances require IMDSv2 (httpTokens=required). GCP and "
        "Azure metadata servers always require a request header, so there is nothing to set"
    ),
    check=_imdsv2,
    clouds=("aws",),
)
