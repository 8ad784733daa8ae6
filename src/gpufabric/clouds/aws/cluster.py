"""`gpufabric:aws:Cluster`: a GPU cluster on AWS with its EFA fabric done right."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpufabric import stack_outputs
from gpufabric.catalog import InstanceType
from gpufabric.clouds.aws.bundle import build_bundle
from gpufabric.clouds.aws.network import build_network, storage_security_group
from gpufabric.clouds.aws.nodes import build_nodes, build_placement
from gpufabric.clouds.aws.settings import AwsStackConfig, FsxLustreConfig
from gpufabric.clouds.aws.storage import build_fsx, storage_subnet_role
from gpufabric.clouds.outputs import ClusterOutputs, check_instance

CLUSTER_TAG = "gpufabric:cluster"


@dataclass
class AwsClusterArgs:
    """Inputs of AwsCluster: the validated stack config and its catalog entry."""

    config: AwsStackConfig
    instance: InstanceType


class AwsCluster(pulumi.ComponentResource):
    """VPC partitions, EFA security group, cluster placement group (new on demand; the
    reservation's own, or none, on reserved capacity), EFA launch template, node group and
    FSx for Lustre, all in one availability zone."""

    outputs: ClusterOutputs

    def __init__(
        self, name: str, args: AwsClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufabric:aws:Cluster", name, None, opts)
        cfg, itype = args.config, args.instance
        check_instance("AwsClusterArgs", "aws", cfg.instance_type, itype)
        tags = {CLUSTER_TAG: cfg.name, "gpufabric:stack": cfg.stack, **cfg.tags}

        reservation_group = (
            _check_reservation(cfg, self, cfg.capacity.reservation_id, f"{cfg.name}-reservation")
            if cfg.capacity.reservation_id is not None
            else None
        )
        # several reservations: each read and checked alike; each node in its reservation's group
        groups = {
            target.id: _check_reservation(
                cfg, self, target.id, f"{cfg.name}-reservation-{index}", "reservations"
            )
            for index, target in enumerate(cfg.capacity.reservations or [])
        }
        net = build_network(cfg, tags, self)
        placement = build_placement(cfg, reservation_group, tags, self)
        boot = build_bundle(cfg, itype, tags, self) if cfg.boot.enabled else None
        nodes = build_nodes(cfg, itype, net, placement, tags, self, groups, boot)

        storage: pulumi.Output[dict | None] = pulumi.Output.from_input(None)
        if isinstance(cfg.storage, FsxLustreConfig):
            fsx = cfg.storage
            fsx_sg = storage_security_group(cfg, net.vpc_id, net.management_sg, fsx.efa, tags, self)
            groups = [fsx_sg.id, net.efa_sg.id] if fsx.efa else [fsx_sg.id]
            subnet = net.subnet_ids[storage_subnet_role(fsx)]
            storage = build_fsx(cfg, fsx, subnet, groups, tags, self)

        outputs = pulumi.Output.all(
            vpc=net.vpc_id,
            subnets=pulumi.Output.all(**net.subnet_ids),
            efa=net.efa_sg.id,
            management=net.management_sg.id,
            placement=placement.group_name,
            group=nodes.group,
            storage=storage,
        ).apply(
            lambda v: stack_outputs.build(
                cfg,
                itype,
                groups=[v["group"]],
                network={
                    "vpcId": v["vpc"],
                    "zone": cfg.zone,
                    "subnets": dict(v["subnets"]),
                    "securityGroups": {"efa": v["efa"], "management": v["management"]},
                    # source: new (created here), reservation (the reservation's own group,
                    # read at deploy time; name None when it has none) or none (a resource group)
                    "placementGroup": {
                        "name": v["placement"],
                        "strategy": "cluster" if v["placement"] else None,
                        "source": placement.source,
                    },
                },
                storage=v["storage"],
            )
        )
        self.outputs = ClusterOutputs(outputs)
        self.outputs.register(self)


def _check_reservation(
    cfg: AwsStackConfig,
    parent: pulumi.Resource,
    reservation_id: str,
    resource_name: str,
    key: str = "reservationId",
) -> pulumi.Output[str | None]:
    """Read the reservation, fail the deployment if it is in another zone or type, and return
    the ARN of the placement group it reserves capacity in (None: not in a group)."""
    existing = aws.ec2.CapacityReservation.get(
        resource_name, reservation_id, opts=pulumi.ResourceOptions(parent=parent)
    )

    def verify(values: list) -> None:
        zone, itype = values
        if zone and zone != cfg.zone:
            raise pulumi.RunError(
                f"gpufabric:capacity.{key}: {reservation_id} is in {zone}, "
                f"but gpufabric:zone is {cfg.zone}"
            )
        if itype and itype != cfg.instance_type:
            raise pulumi.RunError(
                f"gpufabric:capacity.{key}: {reservation_id} reserves {itype}, "
                f"but gpufabric:instanceType is {cfg.instance_type}"
            )

    pulumi.Output.all(existing.availability_zone, existing.instance_type).apply(verify)
    return existing.placement_group_arn


def build(cfg: AwsStackConfig) -> ClusterOutputs:
    """The cluster component for a stack of this cloud; its outputs are the stack's."""
    return AwsCluster(cfg.name, AwsClusterArgs(config=cfg, instance=cfg.instance)).outputs
