"""AWS network partitions: VPC, fabric / storage / management subnets in one AZ, egress,
and the security groups (EFA self-only, management, storage).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufabric.clouds.aws.settings import AwsStackConfig, FsxLustreConfig

ENDPOINT_SERVICES = ("ssm", "ssmmessages", "ec2messages")
LUSTRE_PORTS = ((988, 988), (1018, 1023))  # FSx for Lustre client ports (docs/sources.md B.2)


@dataclass
class AwsNetwork:
    vpc_id: pulumi.Output[str]
    subnet_ids: dict[str, pulumi.Output[str]]
    efa_sg: aws.ec2.SecurityGroup
    management_sg: aws.ec2.SecurityGroup


def build_network(cfg: AwsStackConfig, tags: dict[str, str], parent: pulumi.Resource) -> AwsNetwork:
    """Create (or reuse) the VPC and carve the partitions out of it."""
    opts = pulumi.ResourceOptions(parent=parent)
    name = cfg.name
    net = cfg.network
    if cfg.aws.existing_vpc_id:
        vpc_id: pulumi.Output[str] = pulumi.Output.from_input(cfg.aws.existing_vpc_id)
    else:
        vpc = aws.ec2.Vpc(
            f"{name}-vpc",
            cidr_block=net.cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags={**tags, "Name": f"{name}-vpc"},
            opts=opts,
        )
        vpc_id = vpc.id

    subnet_ids: dict[str, pulumi.Output[str]] = {}
    for role, cidr in net.subnets().items():
        zone = cfg.zone
        if role == "storage" and isinstance(cfg.storage, FsxLustreConfig) and cfg.storage.zone:
            zone = cfg.storage.zone  # gpufabric:storage.zone, an exception the policy pack flags
        subnet = aws.ec2.Subnet(
            f"{name}-{role}",
            vpc_id=vpc_id,
            cidr_block=cidr,
            availability_zone=zone,
            map_public_ip_on_launch=False,
            tags={**tags, "Name": f"{name}-{role}", "gpufabric:partition": role},
            opts=opts,
        )
        subnet_ids[role] = subnet.id

    private_rt = aws.ec2.RouteTable(
        f"{name}-private", vpc_id=vpc_id, tags={**tags, "Name": f"{name}-private"}, opts=opts
    )
    for role in ("fabric", "storage", "management"):
        aws.ec2.RouteTableAssociation(
            f"{name}-{role}-rt", subnet_id=subnet_ids[role], route_table_id=private_rt.id, opts=opts
        )
    s3_prefix_list: pulumi.Output[str] | None = None
    if net.egress == "nat":
        _nat_egress(cfg, vpc_id, subnet_ids["egress"], private_rt, tags, opts)
    elif net.egress == "endpoints":
        s3_prefix_list = _endpoint_egress(
            cfg, vpc_id, subnet_ids["management"], private_rt, tags, opts
        )

    if net.flow_logs is not None:  # every flow of the VPC, to the operator's S3 bucket
        aws.ec2.FlowLog(
            f"{name}-flow-log",
            vpc_id=vpc_id,
            traffic_type="ALL",
            log_destination_type="s3",
            log_destination=net.flow_logs.destination,
            max_aggregation_interval=60,
            tags=tags,
            opts=opts,
        )

    efa_sg, management_sg = _security_groups(cfg, vpc_id, tags, opts, s3_prefix_list)
    return AwsNetwork(vpc_id, subnet_ids, efa_sg, management_sg)


def _nat_egress(
    cfg: AwsStackConfig,
    vpc_id: pulumi.Input[str],
    egress_subnet_id: pulumi.Input[str],
    private_rt: aws.ec2.RouteTable,
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> None:
    """A NAT gateway in a small public subnet: nodes reach package mirrors, nothing reaches them."""
    name = cfg.name
    igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc_id, tags=tags, opts=opts)
    public_rt = aws.ec2.RouteTable(
        f"{name}-public",
        vpc_id=vpc_id,
        routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)],
        tags={**tags, "Name": f"{name}-public"},
        opts=opts,
    )
    aws.ec2.RouteTableAssociation(
        f"{name}-egress-rt", subnet_id=egress_subnet_id, route_table_id=public_rt.id, opts=opts
    )
    eip = aws.ec2.Eip(f"{name}-nat", domain="vpc", tags=tags, opts=opts)
    # a public NAT gateway is refused (Gateway.NotAttached) until the VPC has its internet
    # gateway, and nothing in its inputs says so: created side by side, `up` could fail
    nat = aws.ec2.NatGateway(
        f"{name}-nat",
        allocation_id=eip.id,
        subnet_id=egress_subnet_id,
        tags=tags,
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[igw])),
    )
    aws.ec2.Route(
        f"{name}-default",
        route_table_id=private_rt.id,
        destination_cidr_block="0.0.0.0/0",
        nat_gateway_id=nat.id,
        opts=opts,
    )


def s3_endpoint_policy(organization_id: str) -> str:
    """Through the S3 endpoint, only the organisation's principals reach its buckets (the
    condition keys AWS's data-perimeter examples use for endpoint policies)."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "OrganizationOnly",
                    "Effect": "Allow",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": "*",
                    "Condition": {
                        "StringEquals": {
                            "aws:PrincipalOrgID": organization_id,
                            "aws:ResourceOrgID": organization_id,
                        }
                    },
                }
            ],
        },
        sort_keys=True,
    )


def _endpoint_egress(
    cfg: AwsStackConfig,
    vpc_id: pulumi.Input[str],
    management_subnet_id: pulumi.Input[str],
    private_rt: aws.ec2.RouteTable,
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> pulumi.Output[str]:
    """No internet path: an S3 gateway endpoint (package repos on S3, the organisation's
    buckets only) and SSM interface endpoints. Returns the S3 prefix list id."""
    name = cfg.name
    region = cfg.region
    s3 = aws.ec2.VpcEndpoint(
        f"{name}-s3",
        vpc_id=vpc_id,
        service_name=f"com.amazonaws.{region}.s3",
        vpc_endpoint_type="Gateway",
        route_table_ids=[private_rt.id],
        policy=s3_endpoint_policy(str(cfg.aws.organization_id)),
        tags=tags,
        opts=opts,
    )
    endpoint_sg = aws.ec2.SecurityGroup(
        f"{name}-endpoints",
        vpc_id=vpc_id,
        description="HTTPS from the cluster VPC to interface endpoints",
        tags=tags,
        opts=opts,
    )
    aws.vpc.SecurityGroupIngressRule(
        f"{name}-endpoints-https",
        security_group_id=endpoint_sg.id,
        ip_protocol="tcp",
        from_port=443,
        to_port=443,
        cidr_ipv4=cfg.network.cidr,
        opts=opts,
    )
    for service in ENDPOINT_SERVICES:
        aws.ec2.VpcEndpoint(
            f"{name}-{service}",
            vpc_id=vpc_id,
            service_name=f"com.amazonaws.{region}.{service}",
            vpc_endpoint_type="Interface",
            subnet_ids=[management_subnet_id],
            security_group_ids=[endpoint_sg.id],
            private_dns_enabled=True,
            tags=tags,
            opts=opts,
        )
    return s3.prefix_list_id


def _security_groups(
    cfg: AwsStackConfig,
    vpc_id: pulumi.Input[str],
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
    s3_prefix_list: pulumi.Output[str] | None,
) -> tuple[aws.ec2.SecurityGroup, aws.ec2.SecurityGroup]:
    name = cfg.name
    efa_sg = aws.ec2.SecurityGroup(
        f"{name}-efa",
        vpc_id=vpc_id,
        description="EFA: all traffic from and to this group only",
        tags={**tags, "Name": f"{name}-efa"},
        opts=opts,
    )
    # AWS requires both self-rules for EFA (docs/sources.md A.3)
    aws.vpc.SecurityGroupIngressRule(
        f"{name}-efa-in-self",
        security_group_id=efa_sg.id,
        ip_protocol="-1",
        referenced_security_group_id=efa_sg.id,
        opts=opts,
    )
    aws.vpc.SecurityGroupEgressRule(
        f"{name}-efa-out-self",
        security_group_id=efa_sg.id,
        ip_protocol="-1",
        referenced_security_group_id=efa_sg.id,
        opts=opts,
    )
    management_sg = aws.ec2.SecurityGroup(
        f"{name}-mgmt",
        vpc_id=vpc_id,
        description="Management: SSH from the admin network only; egress for packages",
        tags={**tags, "Name": f"{name}-mgmt"},
        opts=opts,
    )
    if cfg.network.management_cidr:
        aws.vpc.SecurityGroupIngressRule(
            f"{name}-mgmt-ssh",
            security_group_id=management_sg.id,
            ip_protocol="tcp",
            from_port=22,
            to_port=22,
            cidr_ipv4=cfg.network.management_cidr,
            opts=opts,
        )
    if cfg.network.egress == "nat":
        aws.vpc.SecurityGroupEgressRule(
            f"{name}-mgmt-out",
            security_group_id=management_sg.id,
            ip_protocol="-1",
            cidr_ipv4="0.0.0.0/0",
            opts=opts,
        )
    elif cfg.network.egress == "endpoints" and s3_prefix_list is not None:
        # no internet path: HTTPS to the interface endpoints (in the VPC) and to S3 only
        aws.vpc.SecurityGroupEgressRule(
            f"{name}-mgmt-out-endpoints",
            security_group_id=management_sg.id,
            ip_protocol="tcp",
            from_port=443,
            to_port=443,
            cidr_ipv4=cfg.network.cidr,
            opts=opts,
        )
        aws.vpc.SecurityGroupEgressRule(
            f"{name}-mgmt-out-s3",
            security_group_id=management_sg.id,
            ip_protocol="tcp",
            from_port=443,
            to_port=443,
            prefix_list_id=s3_prefix_list,
            opts=opts,
        )
    return efa_sg, management_sg


def storage_security_group(
    cfg: AwsStackConfig,
    vpc_id: pulumi.Input[str],
    client_sg: aws.ec2.SecurityGroup,
    efa_enabled: bool,
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> aws.ec2.SecurityGroup:
    """FSx's own group: Lustre ports (all traffic with EFA) to and from itself and the clients,
    and the same ports into the clients' group from it (server-initiated connections).

    With EFA the file system also joins the nodes' EFA group, whose self-rules then cover
    client<->file-system EFA traffic; the EFA group keeps referencing only itself.
    """
    opts = pulumi.ResourceOptions(parent=parent)
    name = cfg.name
    sg = aws.ec2.SecurityGroup(
        f"{name}-storage",
        vpc_id=vpc_id,
        description="FSx for Lustre: cluster clients only",
        tags={**tags, "Name": f"{name}-storage"},
        opts=opts,
    )
    if efa_enabled:
        rules = [("all", "-1", None, None)]
    else:
        rules = [(f"{lo}-{hi}", "tcp", lo, hi) for lo, hi in LUSTRE_PORTS]
    for label, proto, lo, hi in rules:
        # (rule name, rule type, group the rule belongs to, group it references)
        directions = [
            (f"storage-{way}-{peer}", rule, sg.id, peer_id)
            for peer, peer_id in (("self", sg.id), ("nodes", client_sg.id))
            for way, rule in (
                ("in", aws.vpc.SecurityGroupIngressRule),
                ("out", aws.vpc.SecurityGroupEgressRule),
            )
        ] + [
            ("mgmt-to-storage", aws.vpc.SecurityGroupEgressRule, client_sg.id, sg.id),
            # the servers connect to the clients too: the clients' group takes the same ports
            # from the file system's group ([P] docs.aws.amazon.com/fsx/latest/LustreGuide/
            # limit-access-security-groups.html, "Lustre client VPC security group rules")
            ("storage-to-mgmt", aws.vpc.SecurityGroupIngressRule, client_sg.id, sg.id),
        ]
        for rule_name, rule, group_id, peer_id in directions:
            rule(
                f"{name}-{rule_name}-{label}",
                security_group_id=group_id,
                ip_protocol=proto,
                from_port=lo,
                to_port=hi,
                referenced_security_group_id=peer_id,
                opts=opts,
            )
    return sg
