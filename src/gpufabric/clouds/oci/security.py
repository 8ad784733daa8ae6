"""The VCN's security lists: which traffic each subnet lets in, and where it may go.

Every rule says where it comes from (docs/deploy-oci.md repeats them for users):
- Lustre: the file system's subnet takes TCP 988 from its clients and from itself, source ports
  512-1023, and each client subnet takes TCP 988 from the Lustre subnet, source ports 512-1023:
  the servers open connections to the clients too ([P] docs.oracle.com/iaas/Content/lustre/
  security-rules.htm, "Client and Lustre in different subnets").
- SSH: the nodes take it from the management subnet (the bastions there) and from
  `network.managementCidr` (the admin VPN); the management subnet from `managementCidr`, or from
  itself when none is set.
- ICMP: type 3 (destination unreachable) from the VCN, and type 3 code 4 (fragmentation
  needed: path MTU discovery) from anywhere when the nodes reach the internet through NAT, as
  Oracle's default security list and oci-hpc network.tf have them.
- Egress: the nodes reach everything through NAT (`egress: nat`), or only the VCN and the
  region's Oracle services through the service gateway (`egress: none`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_oci as oci

from gpufabric.clouds.oci.settings import OciStackConfig

ALL = "all"
TCP = "6"  # IANA protocol numbers, as the OCI API takes them
ICMP = "1"
LUSTRE_PORT = 988  # [P] docs.oracle.com/iaas/Content/lustre/security-rules.htm: LNet over TCP 988
LUSTRE_SOURCE_PORTS = (512, 1023)  # [P] the same page: Lustre connects from reserved ports
SSH_PORT = 22
ICMP_UNREACHABLE = 3
ICMP_FRAGMENTATION_NEEDED = 4
ANYWHERE = "0.0.0.0/0"


@dataclass(frozen=True)
class SubnetRules:
    role: str
    ingress: list[oci.core.SecurityListIngressSecurityRuleArgs]
    egress: list[oci.core.SecurityListEgressSecurityRuleArgs]


def subnet_rules(cfg: OciStackConfig, services_cidr: pulumi.Input[str]) -> list[SubnetRules]:
    """The ingress and egress rules of the fabric (node), storage and management subnets."""
    net = cfg.network
    nat = net.egress == "nat"
    vcn_only = [_egress(net.cidr, "inside the VCN")]
    node_egress = (
        [_egress(ANYWHERE, "outbound through the NAT gateway")]
        if nat
        else [*vcn_only, _egress(services_cidr, "Oracle services", "SERVICE_CIDR_BLOCK")]
    )
    icmp = [_icmp(net.cidr, None, "destination unreachable from the VCN")]
    if nat:
        icmp.append(_icmp(ANYWHERE, ICMP_FRAGMENTATION_NEEDED, "path MTU discovery"))
    ssh_to_nodes = [_tcp(net.management_subnet, SSH_PORT, "SSH from the bastions")]
    if net.management_cidr:
        ssh_to_nodes.append(_tcp(net.management_cidr, SSH_PORT, "SSH from the admin network"))
    admin = net.management_cidr or net.management_subnet
    return [
        SubnetRules(
            "fabric",
            [
                oci.core.SecurityListIngressSecurityRuleArgs(
                    protocol=ALL,
                    source=net.fabric_subnet,
                    source_type="CIDR_BLOCK",
                    description="node to node",
                ),
                *ssh_to_nodes,
                _lustre(net.storage_subnet, "Lustre servers to their clients"),
                *icmp,
            ],
            node_egress,
        ),
        SubnetRules(
            "storage",
            [
                _lustre(net.fabric_subnet, "Lustre from the nodes"),
                oci.core.SecurityListIngressSecurityRuleArgs(
                    protocol=ALL,
                    source=net.storage_subnet,
                    source_type="CIDR_BLOCK",
                    description="Lustre servers among themselves",
                ),
                *icmp,
            ],
            vcn_only,
        ),
        SubnetRules(
            "management",
            [_tcp(admin, SSH_PORT, "SSH from the admin network"), *icmp],
            vcn_only,
        ),
    ]


def _tcp(source: str, port: int, what: str) -> oci.core.SecurityListIngressSecurityRuleArgs:
    return oci.core.SecurityListIngressSecurityRuleArgs(
        protocol=TCP,
        source=source,
        source_type="CIDR_BLOCK",
        description=what,
        tcp_options=oci.core.SecurityListIngressSecurityRuleTcpOptionsArgs(min=port, max=port),
    )


def _lustre(source: str, what: str) -> oci.core.SecurityListIngressSecurityRuleArgs:
    low, high = LUSTRE_SOURCE_PORTS
    return oci.core.SecurityListIngressSecurityRuleArgs(
        protocol=TCP,
        source=source,
        source_type="CIDR_BLOCK",
        description=what,
        tcp_options=oci.core.SecurityListIngressSecurityRuleTcpOptionsArgs(
            min=LUSTRE_PORT,
            max=LUSTRE_PORT,
            source_port_range=oci.core.SecurityListIngressSecurityRuleTcpOptionsSourcePortRangeArgs(
                min=low, max=high
            ),
        ),
    )


def _icmp(source: str, code: int | None, what: str) -> oci.core.SecurityListIngressSecurityRuleArgs:
    return oci.core.SecurityListIngressSecurityRuleArgs(
        protocol=ICMP,
        source=source,
        source_type="CIDR_BLOCK",
        description=what,
        icmp_options=oci.core.SecurityListIngressSecurityRuleIcmpOptionsArgs(
            type=ICMP_UNREACHABLE, code=code
        ),
    )


def _egress(
    destination: pulumi.Input[str], what: str, kind: str = "CIDR_BLOCK"
) -> oci.core.SecurityListEgressSecurityRuleArgs:
    return oci.core.SecurityListEgressSecurityRuleArgs(
        destination=destination, destination_type=kind, protocol=ALL, description=what
    )
