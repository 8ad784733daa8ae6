"""Cluster-internal-only firewall for the RoCE VPC (A3 Ultra / A4).

A RoCE VPC takes no VPC firewall rules and allows all ingress and egress implicitly. Its only
firewall is a regional network firewall policy of type RDMA_ROCE_POLICY, whose rules are
stateless and match sources by secure tag (a source IP range can only be 0.0.0.0/0):
[P] cloud.google.com/firewall/docs/firewall-for-roce. So:
- a secure tag (purpose GCE_FIREWALL, bound to the RoCE VPC) with one value, `node`, bound to
  every GPU node through resource manager tags;
- rule 1000: allow all ingress from tagged nodes to tagged nodes (both directions: every
  node is both source and target);
- rule 2000: deny all other ingress.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp.compute as compute
import pulumi_gcp.tags as tags

from gpufabric.clouds.gcp.settings import GcpStackConfig


@dataclass
class RoceGuard:
    policy: compute.RegionNetworkFirewallPolicy
    node_tags: pulumi.Output[dict[str, str]]
    """Resource manager tags for each node: {tagKeys/K: tagValues/V}."""


def roce_firewall(
    cfg: GcpStackConfig, rdma_vpc: compute.Network, rdma_vpc_name: str, opts: pulumi.ResourceOptions
) -> RoceGuard:
    project, name = cfg.gcp.project, cfg.name
    key = tags.TagKey(
        f"{name}-rdma-tag",
        parent=f"projects/{project}",
        short_name=f"{name}-rdma",
        purpose="GCE_FIREWALL",
        purpose_data={"network": f"{project}/{rdma_vpc_name}"},
        description=f"gpufabric {name}: GPU nodes on the RoCE VPC",
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[rdma_vpc])),
    )
    value = tags.TagValue(f"{name}-rdma-node", parent=key.id, short_name="node", opts=opts)
    policy = compute.RegionNetworkFirewallPolicy(
        f"{name}-rdma-firewall",
        name=f"{name}-rdma-firewall",
        project=project,
        region=cfg.region,
        policy_type="RDMA_ROCE_POLICY",
        description="RoCE VPC: cluster nodes only",
        opts=opts,
    )
    everything = [compute.RegionNetworkFirewallPolicyRuleMatchLayer4ConfigArgs(ip_protocol="all")]
    compute.RegionNetworkFirewallPolicyRule(
        f"{name}-rdma-allow-nodes",
        project=project,
        region=cfg.region,
        firewall_policy=policy.name,
        priority=1000,
        direction="INGRESS",
        action="allow",
        match=compute.RegionNetworkFirewallPolicyRuleMatchArgs(
            layer4_configs=everything,
            src_secure_tags=[
                compute.RegionNetworkFirewallPolicyRuleMatchSrcSecureTagArgs(name=value.id)
            ],
        ),
        target_secure_tags=[
            compute.RegionNetworkFirewallPolicyRuleTargetSecureTagArgs(name=value.id)
        ],
        description="RDMA between the cluster's nodes (stateless: nodes are sources and targets)",
        opts=opts,
    )
    compute.RegionNetworkFirewallPolicyRule(
        f"{name}-rdma-deny-rest",
        project=project,
        region=cfg.region,
        firewall_policy=policy.name,
        priority=2000,
        direction="INGRESS",
        action="deny",
        match=compute.RegionNetworkFirewallPolicyRuleMatchArgs(
            layer4_configs=everything, src_ip_ranges=["0.0.0.0/0"]
        ),
        description="everything else: the RoCE VPC's implied rule would allow it",
        opts=opts,
    )
    compute.RegionNetworkFirewallPolicyAssociation(
        f"{name}-rdma-firewall-association",
        name=f"{name}-rdma-firewall",
        project=project,
        region=cfg.region,
        firewall_policy=policy.name,
        attachment_target=rdma_vpc.id,
        opts=opts,
    )
    node_tags = pulumi.Output.all(key.id, value.id).apply(lambda ids: {ids[0]: ids[1]})
    return RoceGuard(policy, node_tags)
