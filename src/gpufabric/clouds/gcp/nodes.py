"""GPU nodes on GCP: NIC layout, placement, and the node group.

Node group (docs/gcp.md, "Node group"):
- `group` (default): a zonal managed instance group from one instance template. Templates carry
  everything these machines need (MRDMA / gVNIC NICs, specific reservation affinity, TERMINATE
  on host maintenance, Shielded VM), but Google places MIGs of A3 / A4 machines with a
  *workload policy* (type HIGH_THROUGHPUT) on the group, not with a compact placement policy:
  "use compact placement policies for instances that are created individually or in bulk,
  and use workload policies for MIGs" ([P] cloud.google.com/ai-hypercomputer/docs/
  placement-policy-and-workload-policy; [P] compute/docs/instance-groups/about-workload-policies).
- `instances`: one compute instance per node, attached to a compact placement policy
  (collocation COLLOCATED, optional maxDistance). One policy holds a limited number of VMs
  (clouds/gcp/placement.py): larger clusters get several policies, in node order. On a plain (not dense)
  reservation no policy is created: the reservation's own placement applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import pulumi
import pulumi_gcp.compute as compute

from gpufabric.catalog import InstanceType
from gpufabric.clouds.gcp import facts
from gpufabric.clouds.gcp.bundle import build_bundle
from gpufabric.clouds.gcp.network import GcpNetwork, GcpSubnet
from gpufabric.clouds.gcp.placement import compact_placement, provisioning_model
from gpufabric.clouds.gcp.settings import GcpStackConfig
from gpufabric.clouds.outputs import user_data_input
from gpufabric.stack_outputs import NodeGroup

NicType = Literal["GVNIC", "MRDMA"]
ROLE_LABEL = ("gpufabric-role", "gpu-node")
RESERVATION_KEY = "compute.googleapis.com/reservation-name"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]


@dataclass(frozen=True)
class NicSlot:
    """One NIC of a node, in attach order: the subnet role it sits in and its type."""

    role: str
    nic_type: NicType


def nic_layout(itype: InstanceType) -> list[NicSlot]:
    """Host gVNICs first (nic0 = host-0), then one NIC per GPU NIC. Pure data, from the catalog."""
    gcp = facts.of(itype)
    slots = [NicSlot(f"host-{i}", "GVNIC") for i in range(gcp.host_nics)]
    prefix = "rdma" if gcp.gpu_network == "rdma-roce" else "gpu"
    slots += [NicSlot(f"{prefix}-{i}", gcp.gpu_nic_type) for i in range(itype.fabric_nics)]
    return slots


@dataclass
class GcpNodes:
    placement: list[compute.ResourcePolicy]
    """The workload policy (group), the compact policies (instances), or none (instances on a
    plain reservation, placed by the reservation's own policy)."""
    placement_source: str
    """new-policies | reservation"""
    group: pulumi.Output[NodeGroup]


def build_nodes(
    cfg: GcpStackConfig,
    itype: InstanceType,
    net: GcpNetwork,
    labels: dict[str, str],
    parent: pulumi.Resource,
) -> GcpNodes:
    opts = pulumi.ResourceOptions(parent=parent)
    node_labels = {**labels, ROLE_LABEL[0]: ROLE_LABEL[1]}
    subnets = {sub.role: sub for sub in (net.host, *net.extra_host, *net.gpu)}
    layout = [(slot, subnets[slot.role]) for slot in nic_layout(itype)]
    user_data: pulumi.Input[str] | None = (
        user_data_input(cfg.user_data) if cfg.user_data is not None else None
    )
    if cfg.boot.enabled:  # the bundle in the stack's bucket; the user data fetches it
        user_data = build_bundle(cfg, itype, labels, parent).user_data
    common = _common(cfg, net, node_labels, user_data)
    if cfg.node_group == "group":
        return _managed_group(cfg, itype, net, layout, common, opts)
    return _instances(cfg, itype, net, layout, common, opts)


def _common(
    cfg: GcpStackConfig,
    net: GcpNetwork,
    node_labels: dict[str, str],
    user_data: pulumi.Input[str] | None,
) -> dict[str, Any]:
    """Arguments an instance and an instance template share, by keyword."""
    metadata: dict[str, pulumi.Input[str]] = {"enable-oslogin": "TRUE"}
    if user_data is not None:  # cloud-init on the Ubuntu accelerator images
        metadata["user-data"] = user_data
    return {
        "project": cfg.gcp.project,
        "machine_type": cfg.instance_type,
        "labels": node_labels,
        "tags": [net.node_tag],
        "metadata": metadata,
    }


def _managed_group(
    cfg: GcpStackConfig,
    itype: InstanceType,
    net: GcpNetwork,
    layout: list[tuple[NicSlot, GcpSubnet]],
    common: dict[str, Any],
    opts: pulumi.ResourceOptions,
) -> GcpNodes:
    name = cfg.name
    policy = compute.ResourcePolicy(
        f"{name}-workload",
        name=f"{name}-workload",
        project=cfg.gcp.project,
        region=cfg.region,
        workload_policy=compute.ResourcePolicyWorkloadPolicyArgs(
            type="HIGH_THROUGHPUT", max_topology_distance=cfg.gcp.max_topology_distance
        ),
        description="HIGH_THROUGHPUT: the group's nodes as close together as capacity allows",
        opts=opts,
    )
    template = compute.InstanceTemplate(
        f"{name}-node",
        name_prefix=f"{name}-node-",
        **common,
        disks=[
            compute.InstanceTemplateDiskArgs(
                boot=True,
                auto_delete=True,
                source_image=cfg.gcp.image,
                disk_size_gb=cfg.root_volume.size_gib,
                disk_type=cfg.gcp.boot_disk_type,
            )
        ],
        network_interfaces=[
            compute.InstanceTemplateNetworkInterfaceArgs(
                subnetwork=sub.subnet.id, nic_type=slot.nic_type
            )
            for slot, sub in layout
        ],
        scheduling=compute.InstanceTemplateSchedulingArgs(
            on_host_maintenance="TERMINATE",
            automatic_restart=True,
            provisioning_model=provisioning_model(itype, cfg.capacity.reservation_id),
        ),
        reservation_affinity=(
            compute.InstanceTemplateReservationAffinityArgs(
                type="SPECIFIC_RESERVATION",
                specific_reservation=compute.InstanceTemplateReservationAffinitySpecificReservationArgs(
                    key=RESERVATION_KEY, values=[cfg.capacity.reservation_id]
                ),
            )
            if cfg.capacity.reservation_id
            else None
        ),
        shielded_instance_config=compute.InstanceTemplateShieldedInstanceConfigArgs(
            enable_secure_boot=cfg.gcp.secure_boot,
            enable_vtpm=True,
            enable_integrity_monitoring=True,
        ),
        service_account=(
            compute.InstanceTemplateServiceAccountArgs(email=cfg.gcp.service_account, scopes=SCOPES)
            if cfg.gcp.service_account
            else None
        ),
        resource_manager_tags=net.roce_guard.node_tags if net.roce_guard else None,
        opts=opts,  # templates are immutable: a change makes a new one (name_prefix)
    )
    group = compute.InstanceGroupManager(
        f"{name}-nodes",
        name=f"{name}-nodes",
        project=cfg.gcp.project,
        zone=cfg.zone,
        base_instance_name=f"{name}-node",
        versions=[compute.InstanceGroupManagerVersionArgs(instance_template=template.id)],
        target_size=cfg.nodes,
        resource_policies=compute.InstanceGroupManagerResourcePoliciesArgs(
            workload_policy=policy.id
        ),
        # never replace running training nodes on a template change: new nodes get the new
        # template; no surge (reserved capacity has no spare machines)
        update_policy=compute.InstanceGroupManagerUpdatePolicyArgs(
            type="OPPORTUNISTIC",
            minimal_action="REPLACE",
            max_surge_fixed=0,
            max_unavailable_fixed=1,
            replacement_method="RECREATE",
        ),
        wait_for_instances=False,
        opts=opts,
    )
    # each member carries metadata created-by = the group's URL: discovery's link
    described = group.name.apply(
        lambda group_name: NodeGroup(
            kind="managed-instance-group", name=group_name, count=cfg.nodes
        )
    )
    return GcpNodes([policy], "new-policies", described)


def _instances(
    cfg: GcpStackConfig,
    itype: InstanceType,
    net: GcpNetwork,
    layout: list[tuple[NicSlot, GcpSubnet]],
    common: dict[str, Any],
    opts: pulumi.ResourceOptions,
) -> GcpNodes:
    name = cfg.name
    # one reservation for every node, or several: node i on the i-th share ([a, a, b, ...])
    shares = [t.id for t in cfg.capacity.reservations or [] for _ in range(t.nodes)]
    targets = shares or [cfg.capacity.reservation_id] * cfg.nodes
    plan = compact_placement(itype, cfg.nodes, cfg.gcp.max_distance, targets[0])
    policies = []
    for index, size in enumerate(plan.sizes):
        policy_name = f"{name}-placement" if len(plan.sizes) == 1 else f"{name}-placement-{index}"
        policies.append(
            compute.ResourcePolicy(
                policy_name,
                name=policy_name,
                project=cfg.gcp.project,
                region=cfg.region,
                group_placement_policy=compute.ResourcePolicyGroupPlacementPolicyArgs(
                    collocation="COLLOCATED", vm_count=size, max_distance=cfg.gcp.max_distance
                ),
                description=(
                    "compact placement: these nodes on one low-latency network"
                    + (f" (part {index + 1} of {len(plan.sizes)})" if len(plan.sizes) > 1 else "")
                ),
                opts=opts,
            )
        )
    instances = []
    for index in range(cfg.nodes):
        node_name = f"{name}-node-{index:04d}"
        instances.append(
            compute.Instance(
                node_name,
                name=node_name,
                zone=cfg.zone,
                **common,
                boot_disk=compute.InstanceBootDiskArgs(
                    auto_delete=True,
                    initialize_params=compute.InstanceBootDiskInitializeParamsArgs(
                        image=cfg.gcp.image,
                        size=cfg.root_volume.size_gib,
                        type=cfg.gcp.boot_disk_type,
                    ),
                ),
                # no access_configs: no external IP on any NIC
                network_interfaces=[
                    compute.InstanceNetworkInterfaceArgs(
                        subnetwork=sub.subnet.id, nic_type=slot.nic_type
                    )
                    for slot, sub in layout
                ],
                # a single str in pulumi-gcp 10.x; full policies first, in node order
                resource_policies=(policies[index // plan.limit].id if policies else None),
                scheduling=compute.InstanceSchedulingArgs(
                    on_host_maintenance="TERMINATE",
                    automatic_restart=True,
                    provisioning_model=provisioning_model(itype, targets[index]),
                ),
                reservation_affinity=(
                    compute.InstanceReservationAffinityArgs(
                        type="SPECIFIC_RESERVATION",
                        specific_reservation=compute.InstanceReservationAffinitySpecificReservationArgs(
                            key=RESERVATION_KEY, values=[str(targets[index])]
                        ),
                    )
                    if targets[index]
                    else None
                ),
                shielded_instance_config=compute.InstanceShieldedInstanceConfigArgs(
                    enable_secure_boot=cfg.gcp.secure_boot,
                    enable_vtpm=True,
                    enable_integrity_monitoring=True,
                ),
                service_account=(
                    compute.InstanceServiceAccountArgs(email=cfg.gcp.service_account, scopes=SCOPES)
                    if cfg.gcp.service_account
                    else None
                ),
                params=(
                    net.roce_guard.node_tags.apply(
                        lambda ids: compute.InstanceParamsArgs(resource_manager_tags=ids)
                    )
                    if net.roce_guard
                    else None
                ),
                opts=opts,
            )
        )
    described = pulumi.Output.all(*[i.name for i in instances]).apply(
        lambda names: NodeGroup(
            kind="instances", name=f"{name}-node", count=cfg.nodes, members=list(names)
        )
    )
    return GcpNodes(policies, plan.source, described)
