"""The ingress reader every network policy shares: one record per allowed way in, whatever
cloud's rule holds it; replies and ICMP error reports are not ways in."""

from __future__ import annotations

from gpufabric.clouds.nebius.policy import RULE as NEBIUS_RULE
from gpufabric.clouds.oci.policy import SECURITY_LIST as OCI_LIST
from gpufabric.policies.ingress import SSH_FROM_ADMIN_ONLY, allowed_ingress, wider_than_admin
from gpufabric.policies.model import Resource
from gpufabric.policies.network import NO_WORLD_INGRESS

AZURE_NSG = "azure-native:network:NetworkSecurityGroup"


def _res(type_: str, props: dict) -> Resource:
    return Resource(type_, "r", "r", props)


def test_oci_ssh_from_the_internet_fails_both_policies() -> None:
    lst = _res(OCI_LIST, {"ingressSecurityRules": [
        {"protocol": "6", "source": "0.0.0.0/0", "tcpOptions": {"min": 22, "max": 22}}]})  # fmt: skip
    assert NO_WORLD_INGRESS.check(lst) and SSH_FROM_ADMIN_ONLY.check(lst)


def test_oci_path_mtu_icmp_from_anywhere_is_no_way_in() -> None:
    lst = _res(OCI_LIST, {"ingressSecurityRules": [
        {"protocol": "1", "source": "0.0.0.0/0", "icmpOptions": {"type": 3, "code": 4}}]})  # fmt: skip
    assert NO_WORLD_INGRESS.check(lst) == [] and SSH_FROM_ADMIN_ONLY.check(lst) == []
    other = _res(OCI_LIST, {"ingressSecurityRules": [
        {"protocol": "1", "source": "0.0.0.0/0", "icmpOptions": {"type": 8}}]})  # fmt: skip
    assert NO_WORLD_INGRESS.check(other)  # echo requests from the internet are


def test_oci_all_protocols_cover_ssh() -> None:
    lst = _res(OCI_LIST, {"ingressSecurityRules": [{"protocol": "all", "source": "10.0.0.0/8"}]})
    assert SSH_FROM_ADMIN_ONLY.check(lst) and NO_WORLD_INGRESS.check(lst) == []


def test_nebius_rule_without_a_source_is_any_address() -> None:
    rule = _res(NEBIUS_RULE, {"access": "ALLOW", "protocol": "TCP",
                              "ingress": {"destinationPorts": [22]}})  # fmt: skip
    (record,) = allowed_ingress(rule)
    assert record.source == "0.0.0.0/0" and record.admits("tcp", 22)
    assert NO_WORLD_INGRESS.check(rule) and SSH_FROM_ADMIN_ONLY.check(rule)
    denied = _res(NEBIUS_RULE, {"access": "DENY", "protocol": "ANY", "ingress": {}})
    assert allowed_ingress(denied) == []


def test_azure_replies_from_a_service_port_are_no_ssh_path() -> None:
    nsg = _res(AZURE_NSG, {"securityRules": [
        {"name": "azure-monitor-in", "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
         "sourceAddressPrefix": "AzureMonitor", "sourcePortRange": "443",
         "destinationPortRange": "*"},
        {"name": "ssh", "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
         "sourceAddressPrefix": "VirtualNetwork", "sourcePortRange": "*",
         "destinationPortRanges": ["22"]}]})  # fmt: skip
    reasons = list(SSH_FROM_ADMIN_ONLY.check(nsg))
    assert len(reasons) == 1 and "VirtualNetwork" in reasons[0]


def test_admin_ranges_are_a_slash_16_at_most() -> None:
    assert not wider_than_admin("10.250.0.0/16") and wider_than_admin("10.0.0.0/15")
    assert not wider_than_admin("2001:db8::/48") and wider_than_admin("2001:db8::/47")
    assert wider_than_admin("Internet") and wider_than_admin("*")
