"""no-ingress-from-internet and efa-security-group-self-only."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpufabric.policies import Resource, check_stack
from gpufabric.policies.network import NO_WORLD_INGRESS, is_world

from .helpers import by_policy, mutate, stack

WORLD = "no-ingress-from-internet"
EFA = "efa-security-group-self-only"
INGRESS = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
EGRESS = "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule"


@pytest.mark.parametrize(
    ("source", "world"),
    [
        ("0.0.0.0/0", True),
        ("0.0.0.0/1", True),
        ("128.0.0.0/1", True),
        ("::/0", True),
        ("*", True),
        ("Internet", True),
        ("10.0.0.0/8", False),
        ("203.0.113.7/32", False),
        ("VirtualNetwork", False),
        (None, False),
    ],
)
def test_is_world(source: object, world: bool) -> None:
    assert is_world(source) is world


def _azure_open(props: dict[str, Any]) -> None:
    props["securityRules"][0]["sourceAddressPrefix"] = "*"


@pytest.mark.parametrize(
    ("name", "type_", "resource", "change"),
    [
        ("aws-h100", INGRESS, "aws-h100-mgmt-ssh", lambda p: p.update(cidrIpv4="0.0.0.0/0")),
        (
            "gcp-a3-mega",
            "gcp:compute/firewall:Firewall",
            "gcp-a3-mega-ssh",
            lambda p: p.update(sourceRanges=["10.0.0.0/8", "0.0.0.0/0"]),
        ),
        (
            "azure-ndv5",
            "azure-native:network:NetworkSecurityGroup",
            "azure-ndv5-management-nsg",
            _azure_open,
        ),
    ],
)
def test_ingress_from_the_internet_is_a_violation(name, type_, resource, change) -> None:
    found = by_policy(check_stack(mutate(stack(name), type_, change, resource)), WORLD)
    assert [v.resource for v in found] == [f"{type_} {resource}"]


def test_deny_rules_and_egress_to_the_internet_are_fine() -> None:
    deny = {"direction": "INGRESS", "denies": [{"protocol": "all"}], "sourceRanges": ["0.0.0.0/0"]}
    assert (
        list(NO_WORLD_INGRESS.check(Resource("gcp:compute/firewall:Firewall", "d", "", deny))) == []
    )
    # aws-h100's management group already has an all-traffic egress rule to 0.0.0.0/0 (NAT)
    assert by_policy(check_stack(stack("aws-h100")), WORLD) == []


def test_efa_rule_referencing_another_group_is_a_violation() -> None:
    view = mutate(
        stack("aws-h100"),
        INGRESS,
        lambda p: p.update(referencedSecurityGroupId="<aws-h100-mgmt.id>"),
        "aws-h100-efa-in-self",
    )
    found = by_policy(check_stack(view), EFA)
    reasons = {v.resource: v.reason for v in found}
    assert "references aws-h100-mgmt, not itself" in reasons[f"{INGRESS} aws-h100-efa-in-self"]
    # and with its self rule gone, EFA traffic would be dropped: said too
    assert (
        "no all-traffic ingress rule from itself"
        in reasons["aws:ec2/securityGroup:SecurityGroup aws-h100-efa"]
    )


def test_efa_rule_with_a_cidr_is_a_violation() -> None:
    view = mutate(
        stack("aws-h100"),
        EGRESS,
        lambda p: p.update(cidrIpv4="10.0.0.0/16"),
        "aws-h100-efa-out-self",
    )
    found = by_policy(check_stack(view), EFA)
    assert any("cidrIpv4 10.0.0.0/16" in v.reason for v in found)


def test_missing_efa_self_rule_is_a_violation() -> None:
    view = stack("aws-h100")
    view.resources = [r for r in view.resources if r.name != "aws-h100-efa-out-self"]
    found = by_policy(check_stack(view), EFA)
    assert [v.reason for v in found] == [
        "EFA group has no all-traffic egress rule to itself: EFA traffic is dropped"
    ]


def test_efa_policy_covers_the_ena_primary_layout_and_efa_storage() -> None:
    view = stack(
        "aws-h100",
        "gpufabric:aws.efaLayout=ena-primary",
        "gpufabric:storage.efa=true",
        "gpufabric:storage.capacityGib=4800",
    )
    assert check_stack(view) == []


GCP_FIREWALL = "gcp:compute/firewall:Firewall"


def test_gcp_gpu_network_open_beyond_its_subnets_is_a_violation() -> None:
    view = mutate(
        stack("gcp-a3-mega"),
        GCP_FIREWALL,
        lambda p: p.update(sourceRanges=["10.128.32.0/19"]),  # gpu-1's range into gpu-0
        "gcp-a3-mega-gpu-0-internal",
    )
    found = by_policy(check_stack(view), "gpu-network-cluster-only")
    assert [v.resource for v in found] == [f"{GCP_FIREWALL} gcp-a3-mega-gpu-0-internal"]
    assert "outside its own subnets (10.128.0.0/19)" in found[0].reason


def test_gcp_host_network_rules_are_not_gpu_network_rules() -> None:
    # the SSH rule on the host VPC admits the admin network: fine for this policy
    view = mutate(
        stack("gcp-a3-mega"),
        GCP_FIREWALL,
        lambda p: p.update(sourceRanges=["192.168.0.0/16"]),
        "gcp-a3-mega-ssh",
    )
    assert by_policy(check_stack(view), "gpu-network-cluster-only") == []


def test_gcp_rdma_network_rule_from_outside_is_a_violation() -> None:
    view = stack("gcp-a3-ultra")
    rule = copy.deepcopy(
        next(r for r in view.resources if r.name == "gcp-a3-ultra-host-0-internal")
    )
    props = dict(rule.props)
    props["network"] = "<gcp-a3-ultra-rdma.id>"
    view.resources.append(
        Resource(rule.type, "rdma-open", "<rdma-open.id>", props, rule.urn + "-rdma")
    )
    found = by_policy(check_stack(view), "gpu-network-cluster-only")
    assert {v.resource for v in found} == {f"{GCP_FIREWALL} rdma-open"}
    assert len(found) == len(props["sourceRanges"])  # one line per range from outside
