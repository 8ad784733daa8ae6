"""The VCN: front-end (node), storage and management subnets, security lists, NAT egress.

The RDMA cluster network is not part of the VCN (docs/sources.md O.1): the subnets here
carry storage, management and NCCL's bootstrap traffic (eth0) only.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_oci as oci

from gpufabric.config import StackConfig

ALL = "all"
LUSTRE_PORT = 988  # [P] docs/sources.md O.4: Lustre (LNet) over TCP 988
SSH_PORT = 22


@dataclass
class OciNetwork:
    vcn: oci.core.Vcn
    subnets: dict[str, oci.core.Subnet]  # by role: fabric (node front end), storage, management
    security_lists: dict[str, oci.core.SecurityList]
    nat_gateway: oci.core.NatGateway | None


def build_network(
    cfg: StackConfig, compartment: str, tags: dict[str, str], parent: pulumi.Resource
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
    nat = None
    rules: list[oci.core.RouteTableRouteRuleArgs] = []
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
        role: oci.core.SecurityList(
            f"{name}-{role}-sl",
            compartment_id=compartment,
            vcn_id=vcn.id,
            display_name=f"{name}-{role}",
            ingress_security_rules=ingress,
            egress_security_rules=[
                oci.core.SecurityListEgressSecurityRuleArgs(
                    destination=egress_to, protocol=ALL, description="outbound"
                )
            ],
            freeform_tags=tags,
            opts=opts,
        )
        for role, ingress, egress_to in _security_rules(cfg)
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


def _tcp(source: str, port: int, what: str) -> oci.core.SecurityListIngressSecurityRuleArgs:
    return oci.core.SecurityListIngressSecurityRuleArgs(
        protocol="6",  # TCP (IANA protocol number, as the OCI API takes it)
        source=source,
        source_type="CIDR_BLOCK",
        description=what,
        tcp_options=oci.core.SecurityListIngressSecurityRuleTcpOptionsArgs(min=port, max=port),
    )


def _security_rules(
    cfg: StackConfig,
) -> list[tuple[str, list[oci.core.SecurityListIngressSecurityRuleArgs], str]]:
    """(role, ingress rules, egress destination) per subnet: nodes talk freely among
    themselves, reach Lustre on 988 only; SSH only from the management network / admin CIDR."""
    net = cfg.network
    admin = net.management_cidr or net.management_subnet
    among_nodes = oci.core.SecurityListIngressSecurityRuleArgs(
        protocol=ALL, source=net.fabric_subnet, source_type="CIDR_BLOCK", description="node to node"
    )
    node_out = "0.0.0.0/0" if net.egress == "nat" else net.cidr
    return [
        ("fabric", [among_nodes, _tcp(admin, SSH_PORT, "SSH from the admin network")], node_out),
        (
            "storage",
            [
                _tcp(net.fabric_subnet, LUSTRE_PORT, "Lustre from the nodes"),
                oci.core.SecurityListIngressSecurityRuleArgs(
                    protocol=ALL,
                    source=net.storage_subnet,
                    source_type="CIDR_BLOCK",
                    description="Lustre servers among themselves",
                ),
            ],
            net.cidr,
        ),
        ("management", [_tcp(admin, SSH_PORT, "SSH from the admin network")], net.cidr),
    ]
