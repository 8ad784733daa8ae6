"""GPU nodes: instance profile, placement, the EFA launch template, and the node group (a
fixed-size Auto Scaling group by default, individual instances on request).

Placement (where the nodes' cluster placement group comes from):
- on demand: a new cluster placement group;
- a capacity reservation or capacity block (`reservationId`): no new group. An existing
  reservation cannot move into a new group (insufficient-capacity errors), so the nodes use the
  reservation's own placement group, read at deploy time, or none when it has none
  ([P] aws/aws-parallelcluster cli/src/pcluster/validators/ec2_validators.py,
  PlacementGroupCapacityReservationValidator and PlacementGroupCapacityTypeValidator: a
  placement group with a capacity block "should not be set");
- a capacity reservation resource group (`resourceGroupArn`): none (its reservations may sit in
  different groups, which one launch cannot name).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufabric.catalog import InstanceType
from gpufabric.clouds.aws.bundle import AwsBoot, grant_read
from gpufabric.clouds.aws.efa import nic_layout
from gpufabric.clouds.aws.network import AwsNetwork
from gpufabric.clouds.aws.settings import AwsStackConfig
from gpufabric.clouds.outputs import user_data_input
from gpufabric.stack_outputs import NodeGroup

SSM_POLICY_ARN = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
# The node role and instance profile live under this IAM path: the deploy identity may manage
# role/gpufabric/* only (permissions/aws/deploy.json), with the gpufabric:cluster tag.
IAM_PATH = "/gpufabric/"
ROOT_DEVICE = "/dev/sda1"
NODE_ROLE_TAG = ("gpufabric:role", "gpu-node")


@dataclass
class AwsPlacement:
    """The nodes' cluster placement group: its name (None: no group) and where it comes from."""

    group_name: pulumi.Output[str | None]
    source: str  # "new" | "reservation" | "none"


def placement_group_name(arn: str | None) -> str | None:
    """arn:aws:ec2:<region>:<account>:placement-group/<name> -> <name>: all after the first "/"
    (a name is up to 255 ASCII characters, "/" among them)."""
    if not arn:
        return None
    return arn.partition("/")[2] or None


def build_placement(
    cfg: AwsStackConfig,
    reservation_group_arn: pulumi.Output[str | None] | None,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> AwsPlacement:
    """A new cluster placement group on demand; otherwise the reservation's own, or none."""
    if cfg.capacity.type == "on-demand":
        group = aws.ec2.PlacementGroup(
            f"{cfg.name}-pg",
            strategy="cluster",
            tags=tags,
            opts=pulumi.ResourceOptions(parent=parent),
        )
        return AwsPlacement(group.name.apply(lambda n: n), "new")
    if reservation_group_arn is not None:
        return AwsPlacement(reservation_group_arn.apply(placement_group_name), "reservation")
    return AwsPlacement(pulumi.Output.from_input(None), "none")


@dataclass
class AwsNodes:
    group: pulumi.Output[NodeGroup]  # as the stack's outputs describe it


def build_nodes(
    cfg: AwsStackConfig,
    itype: InstanceType,
    net: AwsNetwork,
    placement: AwsPlacement,
    tags: dict[str, str],
    parent: pulumi.Resource,
    reservation_groups: dict[str, pulumi.Output[str | None]] | None = None,
    boot: AwsBoot | None = None,
) -> AwsNodes:
    """`reservation_groups`: with several reservations, each one's placement group ARN (read at
    deploy time); each node then targets its own reservation, in that reservation's group.
    `boot` (gpufabric:boot.enabled): the nodes' user data fetches its bundle, which the node
    role may read."""
    opts = pulumi.ResourceOptions(parent=parent)
    name = cfg.name
    node_tags = {**tags, NODE_ROLE_TAG[0]: NODE_ROLE_TAG[1]}
    role, profile = _instance_profile(name, tags, opts)
    if boot is not None:
        grant_read(boot, role, name, parent)
    with_subnet = cfg.node_group == "instances"  # an ASG sets subnets itself
    template = aws.ec2.LaunchTemplate(
        f"{name}-node",
        image_id=cfg.aws.image_id,
        instance_type=itype.name,
        iam_instance_profile=aws.ec2.LaunchTemplateIamInstanceProfileArgs(arn=profile.arn),
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
            http_endpoint="enabled",
            http_tokens="required",
            http_put_response_hop_limit=2,
            instance_metadata_tags="enabled",
        ),
        block_device_mappings=[
            aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name=ROOT_DEVICE,
                ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=cfg.root_volume.size_gib,
                    volume_type="gp3",
                    encrypted="true",
                    kms_key_id=cfg.root_volume.kms_key_id,
                    delete_on_termination="true",
                ),
            )
        ],
        network_interfaces=_network_interfaces(cfg, itype, net, with_subnet),
        placement=placement.group_name.apply(
            lambda group: aws.ec2.LaunchTemplatePlacementArgs(group_name=group) if group else None
        ),
        capacity_reservation_specification=_reservation(cfg),
        instance_market_options=(
            aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type="capacity-block")
            if cfg.capacity.type == "capacity-block"
            else None
        ),
        user_data=boot.user_data if boot is not None else _user_data(cfg),
        tag_specifications=[
            aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=node_tags)
            for kind in ("instance", "volume", "network-interface")
        ],
        update_default_version=True,
        tags=tags,
        opts=opts,
    )
    if cfg.node_group == "group":
        return _autoscaling_group(cfg, net, placement, template, node_tags, opts)
    return _instances(cfg, template, opts, reservation_groups or {})


def _instance_profile(
    name: str, tags: dict[str, str], opts: pulumi.ResourceOptions
) -> tuple[aws.iam.Role, aws.iam.InstanceProfile]:
    role = aws.iam.Role(
        f"{name}-node",
        assume_role_policy=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "ec2.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            }
        ),
        path=IAM_PATH,
        tags=tags,
        opts=opts,
    )
    aws.iam.RolePolicyAttachment(
        f"{name}-node-ssm", role=role.name, policy_arn=SSM_POLICY_ARN, opts=opts
    )
    return role, aws.iam.InstanceProfile(
        f"{name}-node", role=role.name, path=IAM_PATH, tags=tags, opts=opts
    )


def _network_interfaces(
    cfg: AwsStackConfig, itype: InstanceType, net: AwsNetwork, with_subnet: bool
) -> list[aws.ec2.LaunchTemplateNetworkInterfaceArgs]:
    """One EFA per network card, in the fabric subnet; only the primary carries management."""
    interfaces = []
    for slot in nic_layout(itype, cfg.aws.efa_layout):
        groups = [net.efa_sg.id, net.management_sg.id] if slot.is_primary else [net.efa_sg.id]
        interfaces.append(
            aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                network_card_index=slot.network_card_index,
                device_index=slot.device_index,
                interface_type=slot.interface_type,
                subnet_id=net.subnet_ids["fabric"] if with_subnet else None,
                security_groups=groups,
                associate_public_ip_address="false" if slot.is_primary else None,
                delete_on_termination="true",
            )
        )
    return interfaces


def _reservation(
    cfg: AwsStackConfig,
) -> aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs | None:
    cap = cfg.capacity
    if cap.reservation_id is None and cap.resource_group_arn is None:
        return None  # on demand, or several reservations: each instance targets its own
    return aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
        capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
            capacity_reservation_id=cap.reservation_id,
            capacity_reservation_resource_group_arn=cap.resource_group_arn,
        )
    )


def _user_data(cfg: AwsStackConfig) -> pulumi.Input[str] | None:
    if cfg.user_data is None:
        return None
    return user_data_input(cfg.user_data, base64.b64encode(cfg.user_data.encode()).decode())


def _autoscaling_group(
    cfg: AwsStackConfig,
    net: AwsNetwork,
    placement: AwsPlacement,
    template: aws.ec2.LaunchTemplate,
    node_tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> AwsNodes:
    group = aws.autoscaling.Group(
        f"{cfg.name}-nodes",
        min_size=cfg.nodes,
        max_size=cfg.nodes,
        desired_capacity=cfg.nodes,
        vpc_zone_identifiers=[net.subnet_ids["fabric"]],
        placement_group=placement.group_name,
        launch_template=aws.autoscaling.GroupLaunchTemplateArgs(
            id=template.id, version=template.latest_version.apply(str)
        ),
        health_check_type="EC2",
        # `pulumi up` waits until all `desired_capacity` nodes are InService and fails naming the
        # group ("waiting for Auto Scaling Group (<name>) capacity satisfied") after this long;
        # "0" (gpufabric:aws.waitForCapacityTimeout) does not wait
        wait_for_capacity_timeout=cfg.aws.wait_for_capacity_timeout,
        tags=[
            aws.autoscaling.GroupTagArgs(key=key, value=value, propagate_at_launch=True)
            for key, value in sorted(node_tags.items())
        ],
        opts=opts,
    )
    # EC2 tags every instance of the group with aws:autoscaling:groupName: discovery's link
    described = group.name.apply(
        lambda group_name: NodeGroup(kind="autoscaling-group", name=group_name, count=cfg.nodes)
    )
    return AwsNodes(described)


def _instances(
    cfg: AwsStackConfig,
    template: aws.ec2.LaunchTemplate,
    opts: pulumi.ResourceOptions,
    reservation_groups: dict[str, pulumi.Output[str | None]],
) -> AwsNodes:
    # several reservations: node i on the i-th share ([a, a, b, ...] in the order given)
    targets = [t.id for t in cfg.capacity.reservations or [] for _ in range(t.nodes)]
    # one Output each, shared by every node (not one chain per node: thousands of nodes)
    version = template.latest_version.apply(str)
    group_names = {
        rid: group.apply(placement_group_name) for rid, group in reservation_groups.items()
    }
    instances = [
        aws.ec2.Instance(
            f"{cfg.name}-node-{index:04d}",
            launch_template=aws.ec2.InstanceLaunchTemplateArgs(id=template.id, version=version),
            capacity_reservation_specification=(
                aws.ec2.InstanceCapacityReservationSpecificationArgs(
                    capacity_reservation_target=aws.ec2.InstanceCapacityReservationSpecificationCapacityReservationTargetArgs(
                        capacity_reservation_id=targets[index]
                    )
                )
                if targets
                else None
            ),
            placement_group=group_names[targets[index]] if targets else None,
            tags={"Name": f"{cfg.name}-node-{index:04d}"},
            opts=opts,
        )
        for index in range(cfg.nodes)
    ]
    described = pulumi.Output.all(*[i.id for i in instances]).apply(
        lambda ids: NodeGroup(
            kind="instances", name=f"{cfg.name}-node", count=cfg.nodes, members=list(ids)
        )
    )
    return AwsNodes(described)
