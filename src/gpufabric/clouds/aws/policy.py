"""AWS resources as gpufabric's policies read them: launch templates, Auto Scaling groups and
instances are nodes; security groups and their rules let traffic in; FSx for Lustre sits in a
subnet's zone; EFA needs a cluster placement group; IMDSv2 and EBS encryption are switches."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.clouds.aws.efa_policy import (
    EGRESS,
    INGRESS,
    INSTANCE,
    SG,
    SG_RULE,
    TEMPLATE,
    efa_self_only,
)
from gpufabric.policies.cloud import CloudPolicy
from gpufabric.policies.ingress import span
from gpufabric.policies.model import (
    Ingress,
    Node,
    Resource,
    Stack,
    as_list,
    as_map,
    dig,
    is_true,
    maps,
)

__all__ = ["EGRESS", "INGRESS", "INSTANCE", "POLICY", "SG", "SG_RULE", "TEMPLATE", "node_subnets"]
GROUP = "aws:autoscaling/group:Group"
SUBNET = "aws:ec2/subnet:Subnet"
EIP = "aws:ec2/eip:Eip"
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
VOLUME = "aws:ebs/volume:Volume"
EFS = "aws:efs/fileSystem:FileSystem"


def _instance_type(resource: Resource) -> str | None:
    value = resource.props.get("instanceType")
    return value.rsplit("/", 1)[-1] if isinstance(value, str) and value else None


def _template_of(stack: Stack, res: Resource) -> Resource | None:
    props = res.props
    spec = as_map(props.get("launchTemplate")) or as_map(
        dig(props, "mixedInstancesPolicy", "launchTemplate", "launchTemplateSpecification")
    )
    ref = spec.get("id") or spec.get("launchTemplateId") or spec.get("name")
    key = "launchTemplate" if props.get("launchTemplate") else "mixedInstancesPolicy"
    return stack.resolve(ref, [TEMPLATE], res, key) if spec else None


# -- public IPs -------------------------------------------------------------------------------


def _own_public_ip(res: Resource) -> Iterator[str]:
    if res.type not in (TEMPLATE, INSTANCE):
        return
    props = res.props
    if is_true(props.get("associatePublicIpAddress")):
        yield "associatePublicIpAddress is true"
    for nic in maps(props.get("networkInterfaces")):
        if is_true(nic.get("associatePublicIpAddress")):
            yield (
                f"network interface on card {nic.get('networkCardIndex', 0)} / device "
                f"{nic.get('deviceIndex', 0)} asks for a public IP (associatePublicIpAddress)"
            )


def _node_public_ips(stack: Stack, node: Node) -> Iterator[tuple[Resource, str]]:
    if node.template is not None and node.resource.type == INSTANCE:
        yield from ((node.resource, r) for r in _own_public_ip(node.resource))
    yield from _public_subnets(stack, node)


def _public_subnets(stack: Stack, node: Node) -> Iterator[tuple[Resource, str]]:
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


def _elastic_ips(stack: Stack, nodes: list[Node]) -> Iterator[tuple[Resource, str]]:
    gpu_instances = {n.resource.label for n in nodes if n.resource.type == INSTANCE}
    for eip in stack.of_type(EIP):
        target = stack.resolve(eip.props.get("instance"), [INSTANCE], eip, "instance")
        if target is not None and target.label in gpu_instances:
            yield eip, f"attaches an Elastic IP to GPU node {target.name}"


def node_subnets(stack: Stack, node: Node) -> list[Resource]:
    """The subnets a node launcher puts its nodes in."""
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
        subnet = stack.resolve(ref, [SUBNET], owner, key) if ref else None
        if subnet is not None:
            found[subnet.label] = subnet
    return list(found.values())


# -- IMDSv2 -------------------------------------------------------------------------------------


def _imdsv2(res: Resource) -> list[str]:
    if res.type not in (TEMPLATE, INSTANCE):
        return []
    meta = as_map(res.props.get("metadataOptions"))
    if res.type == INSTANCE and not meta and res.props.get("launchTemplate"):
        return []  # the launch template's metadata options apply; that template is checked
    if meta.get("httpEndpoint") == "disabled" or meta.get("httpTokens") == "required":
        return []
    return [
        f"metadataOptions.httpTokens is {meta.get('httpTokens', 'unset')!r}; "
        "IMDSv2 needs 'required' (IMDSv1 hands credentials to any SSRF)"
    ]


# -- ingress ------------------------------------------------------------------------------------


def _protocol(value: Any) -> str:
    text = str(value).lower()
    return {"-1": "all", "6": "tcp", "17": "udp", "1": "icmp"}.get(text, text)


def _rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    protocol = _protocol(props.get("ipProtocol", props.get("protocol")))
    ports = None if protocol == "all" else span(props.get("fromPort"), props.get("toPort"))
    sources = [props.get("cidrIpv4"), props.get("cidrIpv6")]
    sources += [*as_list(props.get("cidrBlocks")), *as_list(props.get("ipv6CidrBlocks"))]
    for source in sources:
        if source:
            yield Ingress(str(source), protocol, ports)


def _group_rule(props: Mapping[str, Any]) -> Iterator[Ingress]:
    if props.get("type") == "ingress":
        yield from _rule(props)


def _group(props: Mapping[str, Any]) -> Iterator[Ingress]:
    for rule in maps(props.get("ingress")):
        yield from _rule(rule)


# -- zones, placement, encryption ---------------------------------------------------------------


def _node_zones(stack: Stack, node: Node) -> set[str]:
    props = node.resource.props
    zones = {str(s.props.get("availabilityZone")) for s in node_subnets(stack, node)}
    zones |= set(map(str, as_list(props.get("availabilityZones"))))
    zones.add(str(props.get("availabilityZone") or ""))
    if node.definition.type == TEMPLATE:
        zones.add(str(dig(node.definition.props, "placement", "availabilityZone") or ""))
    return zones


def _storage_zones(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for fs in stack.of_type(FSX):
        for ref in as_list(fs.props.get("subnetIds")):
            subnet = stack.resolve(ref, [SUBNET], fs, "subnetIds")
            if subnet is not None and subnet.props.get("availabilityZone"):
                yield fs, str(subnet.props["availabilityZone"])


def _placement(stack: Stack, node: Node) -> str:
    refs = [(node.resource.props.get("placementGroup"), node.resource)]
    if node.definition.type in (TEMPLATE, INSTANCE):
        refs.append((dig(node.definition.props, "placement", "groupName"), node.definition))
    for ref, owner in refs:
        if not ref:
            continue
        key = "placementGroup" if owner.type in (GROUP, INSTANCE) else "placement"
        group = stack.resolve(ref, [PLACEMENT_GROUP], owner, key)
        if group is None:
            return ""  # an existing group outside this stack: its strategy cannot be read here
        strategy = group.props.get("strategy")
        if strategy != "cluster":
            return f"placement group {group.name} has strategy {strategy!r}, not 'cluster'"
        return ""
    targets = [  # on the template, or on each instance (one of several reservations)
        dig(props, "capacityReservationSpecification", "capacityReservationTarget")
        for props in (node.definition.props, node.resource.props)
    ]
    if any(isinstance(t, Mapping) and any(t.values()) for t in targets):
        # reserved capacity: the reservation's own placement group or none; a new group would
        # not hold the reservation (ParallelCluster's PlacementGroupCapacityReservationValidator)
        return ""
    return "GPU nodes are in no placement group; EFA needs a cluster placement group"


def _encrypted_at_rest(res: Resource) -> list[str]:
    props = res.props
    if res.type == TEMPLATE:
        disks = [m for m in maps(props.get("blockDeviceMappings")) if as_map(m.get("ebs"))]
        if not disks:
            return ["no EBS block device mapping sets encrypted=true (the AMI's default applies)"]
        return [
            f"EBS volume {m.get('deviceName', '?')} is not encrypted"
            for m in disks
            if not is_true(as_map(m.get("ebs")).get("encrypted"))
        ]
    if res.type == INSTANCE:
        reasons = []
        root = as_map(props.get("rootBlockDevice"))
        if root and not is_true(root.get("encrypted")):
            reasons.append("rootBlockDevice is not encrypted")
        if not root and not props.get("launchTemplate"):
            reasons.append("no rootBlockDevice with encrypted=true and no launch template")
        for disk in maps(props.get("ebsBlockDevices")):
            if not is_true(disk.get("encrypted")):
                reasons.append(f"EBS volume {disk.get('deviceName', '?')} is not encrypted")
        return reasons
    if res.type in (VOLUME, EFS) and not is_true(props.get("encrypted")):
        return ["encrypted is not true"]
    return []


POLICY = CloudPolicy(
    node_types=(INSTANCE,),
    group_types=(GROUP,),
    template_types=(TEMPLATE,),
    gpu_family=r"(p|g|trn|dl)\d+[a-z0-9-]*\.[0-9a-z]+",
    instance_type=_instance_type,
    template_of=_template_of,
    own_public_ip=_own_public_ip,
    node_public_ips=_node_public_ips,
    stack_public_ips=_elastic_ips,
    ingress={INGRESS: _rule, SG_RULE: _group_rule, SG: _group},
    node_zones=_node_zones,
    storage_zones=_storage_zones,
    placement=_placement,
    metadata_tokens=_imdsv2,
    encrypted_at_rest=_encrypted_at_rest,
    fabric_group_self_only=efa_self_only,
    words={
        "gpu-nodes-no-public-ip": (
            "launch templates and instances ask for no public IP, no Elastic IP is attached, "
            "no subnet maps public IPs on launch"
        ),
        "imdsv2-required": "EC2 launch templates and instances set httpTokens=required",
        "storage-in-node-zone": "FSx for Lustre",
        "encryption-at-rest": (
            "EBS volumes (launch templates, instances, volumes) and EFS set encrypted; FSx for "
            "Lustre is always encrypted"
        ),
        "gpu-nodes-in-placement-group": "a cluster placement group",
        "efa-security-group-self-only": "the security group common to every EFA interface",
    },
)
