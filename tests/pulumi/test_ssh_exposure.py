"""No shipped stack opens SSH wider than a /16: every rule that lets TCP port 22 in, on any
cloud, names sources of at least a /16 (a bastion range, IAP), read from the recorded plans of
the shipped stacks (tests/pulumi/golden, kept equal to `gpufabric plan` by
test_golden_plans.py)."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import pytest

# Rules that let port 22 in on purpose, with the reason; nothing else may.
REVIEWED = {
    "azure-monitor-in": "Azure Managed Lustre needs TCP from the AzureMonitor service tag, source "
    "port 443, on the storage subnet (Microsoft's Managed Lustre NSG guide); no GPU node behind it",
}
GOLDEN = sorted((Path(__file__).resolve().parent / "golden").glob("*.json"))
STACKS = sorted((Path(__file__).resolve().parents[2] / "stacks").glob("Pulumi.*.yaml"))


def _covers_22(ports: list[str] | None) -> bool:
    if not ports:
        return True  # no ports named = all ports
    for port in ports:
        low, _, high = str(port).partition("-")
        if port == "*" or int(low) <= 22 <= int(high or low):
            return True
    return False


def ssh_sources(resource: dict[str, Any]) -> list[str]:
    """The source ranges of the rules of `resource` that let TCP port 22 in."""
    kind, inputs = resource["type"], resource["inputs"]
    found: list[str] = []
    if kind == "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
        proto = str(inputs.get("ipProtocol"))
        span = [f"{inputs.get('fromPort')}-{inputs.get('toPort')}"] if proto != "-1" else None
        if proto in ("tcp", "6", "-1") and _covers_22(span):
            found += [v for k, v in inputs.items() if k in ("cidrIpv4", "cidrIpv6")]
    elif kind in ("aws:ec2/securityGroup:SecurityGroup",):
        for rule in inputs.get("ingress") or []:
            proto = str(rule.get("protocol"))
            span = [f"{rule.get('fromPort')}-{rule.get('toPort')}"] if proto != "-1" else None
            if proto in ("tcp", "6", "-1") and _covers_22(span):
                found += rule.get("cidrBlocks") or []
    elif (
        kind == "gcp:compute/firewall:Firewall" and inputs.get("direction", "INGRESS") == "INGRESS"
    ):
        for allow in inputs.get("allows") or []:
            if allow.get("protocol") in ("tcp", "all") and _covers_22(allow.get("ports")):
                found += inputs.get("sourceRanges") or []
    elif kind == "azure-native:network:NetworkSecurityGroup":
        for rule in inputs.get("securityRules") or []:
            if rule.get("direction") != "Inbound" or rule.get("access") != "Allow":
                continue
            if rule.get("name") in REVIEWED and rule.get("sourcePortRange") == "443":
                continue
            ports = rule.get("destinationPortRanges") or [rule.get("destinationPortRange", "*")]
            if rule.get("protocol") in ("Tcp", "*") and _covers_22(ports):
                found += [rule["sourceAddressPrefix"]] if "sourceAddressPrefix" in rule else []
                found += rule.get("sourceAddressPrefixes") or []
    elif kind == "oci:Core/securityList:SecurityList":
        for rule in inputs.get("ingressSecurityRules") or []:
            tcp = rule.get("tcpOptions") or {}
            span = [f"{tcp.get('min', 1)}-{tcp.get('max', 65535)}"] if tcp else None
            if str(rule.get("protocol")) in ("6", "all") and _covers_22(span):
                found.append(rule.get("source", "*"))
    elif kind == "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule":
        tcp = inputs.get("tcpOptions") or {}
        ports = tcp.get("destinationPortRange") or {}
        span = [f"{ports.get('min', 1)}-{ports.get('max', 65535)}"] if tcp else None
        ingress = inputs.get("direction") == "INGRESS"
        if ingress and str(inputs.get("protocol")) in ("6", "all") and _covers_22(span):
            found.append(inputs.get("source", "*"))
    elif kind == "nebius:index/vpcV1SecurityRule:VpcV1SecurityRule":
        ingress = inputs.get("ingress")
        ports = [str(int(p)) for p in (ingress or {}).get("destinationPorts") or []]
        tcp = str(inputs.get("protocol")) in ("TCP", "ANY")
        if (
            isinstance(ingress, dict)
            and inputs.get("access") == "ALLOW"
            and tcp
            and _covers_22(ports)
        ):
            found += ingress.get("sourceCidrs") or ["*"]
    return found


def too_wide(sources: list[str]) -> list[str]:
    bad = []
    for source in sources:
        try:
            net = ipaddress.ip_network(source, strict=False)
        except ValueError:
            bad.append(source)  # "*", "Internet", a service tag: wider than any /16
            continue
        if (net.version == 4 and net.prefixlen < 16) or (net.version == 6 and net.prefixlen < 48):
            bad.append(source)
    return bad


def test_every_shipped_stack_has_a_recorded_plan() -> None:
    assert {p.stem for p in GOLDEN} == {p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS}


@pytest.mark.parametrize("plan", GOLDEN, ids=lambda p: p.stem)
def test_no_shipped_stack_opens_ssh_wider_than_a_slash_16(plan: Path) -> None:
    for resource in json.loads(plan.read_text())["resources"]:
        sources = ssh_sources(resource)
        assert too_wide(sources) == [], (
            f"{plan.stem}: {resource['name']} lets SSH in from {sources}"
        )


def test_the_check_finds_wide_ssh_on_every_cloud() -> None:
    wide = [
        {"type": "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
         "inputs": {"ipProtocol": "tcp", "fromPort": 0, "toPort": 1024, "cidrIpv4": "10.0.0.0/8"}},
        {"type": "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
         "inputs": {"ipProtocol": "-1", "cidrIpv4": "10.0.0.0/15"}},
        {"type": "gcp:compute/firewall:Firewall",
         "inputs": {"allows": [{"protocol": "tcp"}], "sourceRanges": ["10.0.0.0/8"]}},
        {"type": "azure-native:network:NetworkSecurityGroup",
         "inputs": {"securityRules": [{"direction": "Inbound", "access": "Allow",
                                       "protocol": "*", "destinationPortRange": "*",
                                       "sourceAddressPrefix": "VirtualNetwork"}]}},
        {"type": "oci:Core/securityList:SecurityList",
         "inputs": {"ingressSecurityRules": [{"protocol": "6", "source": "10.0.0.0/8",
                                              "tcpOptions": {"min": 22, "max": 22}}]}},
        {"type": "oci:Core/securityList:SecurityList",
         "inputs": {"ingressSecurityRules": [{"protocol": "all", "source": "0.0.0.0/0"}]}},
        {"type": "nebius:index/vpcV1SecurityRule:VpcV1SecurityRule",
         "inputs": {"access": "ALLOW", "protocol": "TCP",
                    "ingress": {"sourceCidrs": ["10.0.0.0/8"], "destinationPorts": [22]}}},
        {"type": "nebius:index/vpcV1SecurityRule:VpcV1SecurityRule",
         "inputs": {"access": "ALLOW", "protocol": "ANY", "ingress": {}}},
    ]  # fmt: skip
    for resource in wide:
        assert too_wide(ssh_sources(resource)) != [], resource
    narrow = {"type": "gcp:compute/firewall:Firewall",
              "inputs": {"allows": [{"protocol": "tcp", "ports": ["80", "443"]}],
                         "sourceRanges": ["0.0.0.0/0"]}}  # fmt: skip
    assert ssh_sources(narrow) == []
