"""AWS: the security group on the EFA interfaces of GPU nodes allows all traffic from and to
itself, and nothing else (EFA's own requirement: its traffic is dropped otherwise)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufabric.policies.model import Resource, Stack, as_list, is_true, maps
from gpufabric.policies.nodes import gpu_nodes

TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
INSTANCE = "aws:ec2/instance:Instance"
SG = "aws:ec2/securityGroup:SecurityGroup"
SG_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"


def efa_security_groups(stack: Stack) -> list[Resource]:
    """The groups on every EFA interface of a GPU node (the primary interface may carry a
    management group besides; the EFA group is the one common to all EFA interfaces)."""
    found: dict[str, Resource] = {}
    definitions = {n.definition.label: n.definition for n in gpu_nodes(stack)}
    for definition in definitions.values():
        if definition.type not in (TEMPLATE, INSTANCE):
            continue
        common: dict[str, Resource] | None = None
        for nic in maps(definition.props.get("networkInterfaces")):
            if nic.get("interfaceType") not in ("efa", "efa-only"):
                continue
            groups = {}
            for ref in as_list(nic.get("securityGroups")):
                sg = stack.resolve(ref, [SG], definition, "networkInterfaces")
                if sg is not None:
                    groups[sg.label] = sg
            common = groups if common is None else {k: common[k] for k in common if k in groups}
        found.update(common or {})
    return list(found.values())


def efa_self_only(stack: Stack) -> Iterator[tuple[Resource, str]]:
    for sg in efa_security_groups(stack):
        self_in = self_out = False
        for rule, direction, peers, other, every_protocol in _rules_of(stack, sg):
            if other:
                yield (
                    rule,
                    f"EFA group {sg.name}: {direction} rule names {other}; EFA needs self only",
                )
                continue
            if not peers:
                continue
            if all(p is sg for p in peers):
                if every_protocol:
                    self_in |= direction == "ingress"
                    self_out |= direction == "egress"
            else:
                names = ", ".join(p.name if p else "an unknown group" for p in peers if p is not sg)
                yield rule, f"EFA group {sg.name}: {direction} rule references {names}, not itself"
        if not self_in:
            yield (
                sg,
                "EFA group has no all-traffic ingress rule from itself: EFA traffic is dropped",
            )
        if not self_out:
            yield sg, "EFA group has no all-traffic egress rule to itself: EFA traffic is dropped"


def _rules_of(
    stack: Stack, sg: Resource
) -> Iterator[tuple[Resource, str, list[Resource | None], str, bool]]:
    """(rule resource, direction, referenced groups, non-group source or '', whether it allows
    every protocol) for each rule of `sg`."""
    for rule in stack.of_type(INGRESS, EGRESS):
        if (
            stack.resolve(rule.props.get("securityGroupId"), [SG], rule, "securityGroupId")
            is not sg
        ):
            continue
        direction = "ingress" if rule.type == INGRESS else "egress"
        other = next(
            (
                f"{k} {rule.props[k]}"
                for k in ("cidrIpv4", "cidrIpv6", "prefixListId")
                if rule.props.get(k)
            ),
            "",
        )
        ref = rule.props.get("referencedSecurityGroupId")
        peers = [stack.resolve(ref, [SG], rule, "referencedSecurityGroupId")] if ref else []
        yield rule, direction, peers, other, _every_protocol(rule.props.get("ipProtocol"))
    for rule in stack.of_type(SG_RULE):
        if (
            stack.resolve(rule.props.get("securityGroupId"), [SG], rule, "securityGroupId")
            is not sg
        ):
            continue
        peers, other = _inline_peers(stack, sg, rule, rule.props, "sourceSecurityGroupId")
        direction = str(rule.props.get("type"))
        yield rule, direction, peers, other, _every_protocol(rule.props.get("protocol"))
    for direction in ("ingress", "egress"):
        for inline in maps(sg.props.get(direction)):
            peers, other = _inline_peers(stack, sg, sg, inline, direction)
            yield sg, direction, peers, other, _every_protocol(inline.get("protocol"))


def _inline_peers(
    stack: Stack, sg: Resource, owner: Resource, rule: Mapping[str, Any], key: str
) -> tuple[list[Resource | None], str]:
    """The groups `rule` names (`key`: the owner's property they depend on), or its other
    source."""
    for field in ("cidrBlocks", "ipv6CidrBlocks", "prefixListIds"):
        if as_list(rule.get(field)):
            return [], f"{field} {', '.join(map(str, as_list(rule.get(field))))}"
    peers: list[Resource | None] = [sg] if is_true(rule.get("self")) else []
    for ref in [*as_list(rule.get("securityGroups")), rule.get("sourceSecurityGroupId")]:
        if ref:
            peers.append(stack.resolve(ref, [SG], owner, key))
    return peers, ""


def _every_protocol(protocol: Any) -> bool:
    return str(protocol) in ("-1", "all")
