"""The VCN: front-end (node), storage and management subnets, security lists, NAT egress and a
service gateway to the region's Oracle services.

The RDMA cluster network is not part of the VCN (docs/sources.md O.1): the subnets here
carry storage, management and NCCL's bootstrap traffic (eth0) only. The service gateway gives
the nodes a path to Oracle services (the Oracle Cloud Agent's RDMA plugins among them) without
the internet, with or without NAT, as oci-hpc's network.tf builds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_oci as oci

from gpufabric.clouds.oci.security import subnet_rules
from gpufabric.clouds.oci.settings import OciStackConfig

# The service CIDR label of every Oracle service in the region ([P] oracle-quickstart/oci-hpc
# data.tf: data "oci_core_services" with this filter)
ALL_SERVICES = "All .* Services In Oracle Services Network"


@dataclass
class OciNetwork:
    vcn: oci.core.Vcn
    subnets: dict[str, oci.core.Subnet]  # by role: fabric (node front end), storage, management
    security_lists: dict[str, oci.core.SecurityList]
    nat_gateway: oci.core.NatGateway | None


def build_network(
    cfg: OciStackConfig, compartment: str, tags: dict[str, str], parent: pulumi.Resource
) -> OciNetwork:
    opts = pulumi.ResourceOptions(parent=parent)
    net = cfg.network
    name = cfg.name
    vcn = oci.core.Vcn(
        f"{name}-vcn",
        compartment_id=compartment,
        cidr_blocks=[net.cidr],
        display_name=f"{name}-vcn",
        freeform_tags=tags,
        opts=opts,
    )
    services = oci.core.get_services_output(
        filters=[oci.core.GetServicesFilterArgs(name="name", values=[ALL_SERVICES], regex=True)],
        opts=pulumi.InvokeOutputOptions(parent=parent),
    ).services.apply(_all_services)
    service_gateway = oci.core.ServiceGateway(
        f"{name}-services",
        compartment_id=compartment,
        vcn_id=vcn.id,
        services=[oci.core.ServiceGatewayServiceArgs(service_id=services.id)],
        display_name=f"{name}-services",
        freeform_tags=tags,
        opts=opts,
    )
    nat = None
    rules = [
        oci.core.RouteTableRouteRuleArgs(
            network_entity_id=service_gateway.id,
            destination=services.cidr_block,
            destination_type="SERVICE_CIDR_BLOCK",
        )
    ]
    if net.egress == "nat":
        nat = oci.core.NatGateway(
            f"{name}-nat",
            compartment_id=compartment,
            vcn_id=vcn.id,
            display_name=f"{name}-nat",
            freeform_tags=tags,
            opts=opts,
        )
        rules.append(
            oci.core.RouteTableRouteRuleArgs(
                network_entity_id=nat.id, destination="0.0.0.0/0", destination_type="CIDR_BLOCK"
            )
        )
    routes = oci.core.RouteTable(
        f"{name}-private-routes",
        compartment_id=compartment,
        vcn_id=vcn.id,
        route_rules=rules,
        display_name=f"{name}-private-routes",
        freeform_tags=tags,
        opts=opts,
    )
    lists = {
        spec.role: oci.core.SecurityList(
            f"{name}-{spec.role}-sl",
            compartment_id=compartment,
            vcn_id=vcn.id,
            display_name=f"{name}-{spec.role}",
            ingress_security_rules=spec.ingress,
            egress_security_rules=spec.egress,
            freeform_tags=tags,
            opts=opts,
        )
        for spec in subnet_rules(cfg, services.cidr_block)
    }
    cidrs = {
        "fabric": net.fabric_subnet,
        "storage": net.storage_subnet,
        "management": net.management_subnet,
    }
    subnets = {
        role: oci.core.Subnet(
            f"{name}-{role}",
            compartment_id=compartment,
            vcn_id=vcn.id,
            cidr_block=cidr,
            display_name=f"{name}-{role}",
            # private: no public address may be put on a VNIC here
            prohibit_public_ip_on_vnic=True,
            prohibit_internet_ingress=True,
            route_table_id=routes.id,
            security_list_ids=[lists[role].id],
            freeform_tags={**tags, "gpufabric-partition": role},
            opts=opts,
        )
        for role, cidr in cidrs.items()
    }
    return OciNetwork(vcn, subnets, lists, nat)


def _all_services(found: list[Any]) -> Any:
    # a RunError: `pulumi up` prints its one line, with no traceback
    if not found:
        raise pulumi.RunError(f"OCI lists no service named like {ALL_SERVICES!r} in this region")
    return found[0]
