"""Azure network partitions: a VNet with compute, storage and management subnets, one NSG
each, and a NAT gateway (the stack's only public IP) for egress.

InfiniBand traffic does not cross the VNet: NSGs govern the nodes' Ethernet NIC only, and the
scale set's InfiniBand partition key isolates the GPU fabric (docs/sources.md D.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_azure_native import network as azure_network

from gpufabric.clouds.azure.settings import AzureStackConfig

# Azure Managed Lustre: TCP 988 and 1019-1023 both ways between clients and the file system
# (docs/sources.md D.5), plus outbound to the AzureCloud service tag.
LUSTRE_PORTS = ["988", "1019-1023"]
# Azure Managed Lustre also needs inbound TCP from the AzureMonitor service tag (source port
# 443) into its subnet: [P] learn.microsoft.com/azure/azure-managed-lustre/
# configure-network-security-group, inbound rule "AllowTagCustomAnyInbound".
MONITOR_TAG = "AzureMonitor"
ROLES = ("compute", "storage", "management")

Rule = azure_network.SecurityRuleArgs
ALLOW = azure_network.SecurityRuleAccess.ALLOW
DENY = azure_network.SecurityRuleAccess.DENY
IN = azure_network.SecurityRuleDirection.INBOUND
OUT = azure_network.SecurityRuleDirection.OUTBOUND
ANY = azure_network.SecurityRuleProtocol.ASTERISK
TCP = azure_network.SecurityRuleProtocol.TCP


@dataclass
class AzureNetwork:
    vnet: azure_network.VirtualNetwork
    subnets: dict[str, azure_network.Subnet]
    """By role: compute (the nodes' Ethernet NIC), storage (Managed Lustre only), management."""
    security_groups: dict[str, azure_network.NetworkSecurityGroup]
    nat_gateway: azure_network.NatGateway | None


def subnet_cidrs(cfg: AzureStackConfig) -> dict[str, str]:
    """The subnets Azure gets, by role. The nodes' subnet is `fabricSubnet` in the config."""
    net = cfg.network
    return {
        "compute": net.fabric_subnet,
        "storage": net.storage_subnet,
        "management": net.management_subnet,
    }


def build_network(
    cfg: AzureStackConfig,
    resource_group: pulumi.Input[str],
    tags: dict[str, str],
    parent: pulumi.Resource,
) -> AzureNetwork:
    opts = pulumi.ResourceOptions(parent=parent)
    name = cfg.name
    common = {"resource_group_name": resource_group, "location": cfg.region, "tags": tags}
    vnet = azure_network.VirtualNetwork(
        f"{name}-vnet",
        virtual_network_name=f"{name}-vnet",
        address_space=azure_network.AddressSpaceArgs(address_prefixes=[cfg.network.cidr]),
        **common,
        opts=opts,
    )
    if cfg.network.flow_logs is not None:
        # VNet flow logs through the region's Network Watcher (Azure creates
        # NetworkWatcher_<region> in NetworkWatcherRG) into the operator's storage account
        azure_network.FlowLog(
            f"{name}-flow-log",
            flow_log_name=f"{name}-vnet",
            network_watcher_name=f"NetworkWatcher_{cfg.region}",
            resource_group_name="NetworkWatcherRG",
            location=cfg.region,
            target_resource_id=vnet.id,
            storage_id=cfg.network.flow_logs.destination,
            enabled=True,
            tags=tags,
            opts=opts,
        )
    nat = _nat_gateway(cfg, common, opts) if cfg.network.egress == "nat" else None
    groups = {
        role: azure_network.NetworkSecurityGroup(
            f"{name}-{role}-nsg",
            network_security_group_name=f"{name}-{role}-nsg",
            security_rules=rules,
            **common,
            opts=opts,
        )
        for role, rules in security_rules(cfg).items()
    }
    subnets: dict[str, azure_network.Subnet] = {}
    previous: list[pulumi.Resource] = []
    for role, cidr in subnet_cidrs(cfg).items():
        # one subnet at a time: Azure refuses concurrent writes to the same VNet
        subnet = azure_network.Subnet(
            f"{name}-{role}",
            subnet_name=role,
            resource_group_name=resource_group,
            virtual_network_name=vnet.name,
            address_prefix=cidr,
            network_security_group=azure_network.NetworkSecurityGroupArgs(id=groups[role].id),
            nat_gateway=azure_network.SubResourceArgs(id=nat.id) if nat else None,
            default_outbound_access=False,  # no implicit public egress: NAT or nothing
            opts=pulumi.ResourceOptions(parent=parent, depends_on=previous),
        )
        subnets[role] = subnet
        previous = [subnet]
    return AzureNetwork(vnet, subnets, groups, nat)


def _nat_gateway(
    cfg: AzureStackConfig, common: dict, opts: pulumi.ResourceOptions
) -> azure_network.NatGateway:
    """Egress for package mirrors and the Managed Lustre control plane; nothing comes in."""
    name = cfg.name
    public_ip = azure_network.PublicIPAddress(
        f"{name}-nat-ip",
        public_ip_address_name=f"{name}-nat-ip",
        sku=azure_network.PublicIPAddressSkuArgs(
            name=azure_network.PublicIPAddressSkuName.STANDARD
        ),
        public_ip_allocation_method=azure_network.IPAllocationMethod.STATIC,
        zones=[cfg.zone],
        **common,
        opts=opts,
    )
    return azure_network.NatGateway(
        f"{name}-nat",
        nat_gateway_name=f"{name}-nat",
        sku=azure_network.NatGatewaySkuArgs(name=azure_network.NatGatewaySkuName.STANDARD),
        public_ip_addresses=[azure_network.SubResourceArgs(id=public_ip.id)],
        zones=[cfg.zone],
        **common,
        opts=opts,
    )


def security_rules(cfg: AzureStackConfig) -> dict[str, list[azure_network.SecurityRuleArgs]]:
    """NSG rules per subnet role. Each NSG ends in an explicit deny of all other inbound
    traffic, which also overrides Azure's default AllowVnetInBound."""
    cidrs = subnet_cidrs(cfg)
    compute, storage, management = cidrs["compute"], cidrs["storage"], cidrs["management"]
    admin = cfg.network.management_cidr
    deny_in = Rule(
        name="deny-all-in", priority=4096, direction=IN, access=DENY, protocol=ANY,
        source_address_prefix="*", source_port_range="*",
        destination_address_prefix="*", destination_port_range="*",
    )  # fmt: skip

    def rule(
        rule_name: str,
        priority: int,
        direction: azure_network.SecurityRuleDirection,
        src: str,
        dst: str,
        protocol: azure_network.SecurityRuleProtocol = ANY,
        ports: list[str] | None = None,
        access: azure_network.SecurityRuleAccess = ALLOW,
        source_port: str = "*",
    ) -> azure_network.SecurityRuleArgs:
        return Rule(
            name=rule_name,
            priority=priority,
            direction=direction,
            access=access,
            protocol=protocol,
            source_address_prefix=src,
            source_port_range=source_port,
            destination_address_prefix=dst,
            destination_port_range=None if ports else "*",
            destination_port_ranges=ports,
        )

    compute_rules = [
        rule("cluster-in", 100, IN, compute, compute),
        rule("lustre-in", 110, IN, storage, compute, TCP, LUSTRE_PORTS),
        rule("ssh-from-management-subnet", 120, IN, management, compute, TCP, ["22"]),
        rule("cluster-out", 100, OUT, compute, compute),
        rule("lustre-out", 110, OUT, compute, storage, TCP, LUSTRE_PORTS),
    ]
    if admin:
        compute_rules.append(rule("ssh-from-admin", 130, IN, admin, compute, TCP, ["22"]))
    storage_rules = [
        rule("lustre-hosts-in", 100, IN, storage, storage),
        rule("lustre-clients-in", 110, IN, compute, storage, TCP, LUSTRE_PORTS),
        rule("azure-monitor-in", 120, IN, MONITOR_TAG, storage, TCP, source_port="443"),
        rule("lustre-hosts-out", 100, OUT, storage, storage),
        rule("lustre-clients-out", 110, OUT, storage, compute, TCP, LUSTRE_PORTS),
        rule("azure-cloud-out", 120, OUT, storage, "AzureCloud"),
    ]
    management_rules = [
        rule("ssh-from-admin", 100, IN, admin, management, TCP, ["22"])
    ] if admin else []  # fmt: skip
    if cfg.network.egress == "none":
        no_internet = rule("deny-internet-out", 4000, OUT, "*", "Internet", access=DENY)
        compute_rules.append(no_internet)
        management_rules.append(no_internet)
    return {
        "compute": [*compute_rules, deny_in],
        "storage": [*storage_rules, deny_in],
        "management": [*management_rules, deny_in],
    }
