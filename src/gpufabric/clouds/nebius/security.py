"""The nodes' security group: node to node, SSH from the admin range only, anything out.

Nebius security groups filter a VM's traffic once the group is on its network interface; a
VM without one gets the network's default group ([P] docs.nebius.com/vpc/security-groups/
overview; pulumi-nebius 0.6.73 vpc_v1_security_group.py, vpc_v1_security_rule.py and
ComputeV1InstanceNetworkInterfaceArgs.security_groups). gpufabric puts its own group on every
node so that SSH is open to the same ranges as on the other clouds: `network.managementCidr`,
or the stack's own network when none is set (a bastion inside it).
"""

from __future__ import annotations

import pulumi
import pulumi_nebius as nebius

from gpufabric.clouds.nebius.settings import NebiusStackConfig

SSH_PORT = 22


def build_security_group(
    cfg: NebiusStackConfig,
    project: str,
    network: nebius.VpcV1Network,
    labels: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> nebius.VpcV1SecurityGroup:
    net = cfg.network
    name = cfg.name
    group = nebius.VpcV1SecurityGroup(
        f"{name}-nodes-sg",
        parent_id=project,
        name=f"{name}-nodes",
        network_id=network.id,
        labels=labels,
        opts=opts,
    )
    rules = [
        (
            "node-to-node",
            "ANY",
            nebius.VpcV1SecurityRuleIngressArgs(source_cidrs=[net.fabric_subnet]),
            None,
        ),
        (
            "ssh-from-admin",
            "TCP",
            nebius.VpcV1SecurityRuleIngressArgs(
                source_cidrs=[net.management_cidr or net.cidr], destination_ports=[SSH_PORT]
            ),
            None,
        ),
        ("outbound", "ANY", None, nebius.VpcV1SecurityRuleEgressArgs()),
    ]
    for rule_name, protocol, ingress, egress in rules:
        nebius.VpcV1SecurityRule(
            f"{name}-{rule_name}",
            parent_id=group.id,
            name=rule_name,
            access="ALLOW",
            protocol=protocol,
            ingress=ingress,
            egress=egress,
            labels=labels,
            opts=opts,
        )
    return group
