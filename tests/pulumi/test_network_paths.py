"""The paths a cluster needs, read from the real program's plan under mocks: Lustre servers can
reach their clients (OCI, AWS), the bastions can reach the nodes (OCI), path MTU discovery
works, the nodes reach Oracle services without the internet, and long creates have the time
the cloud says they take."""

from __future__ import annotations

from typing import Any

import pytest
from tests.pulumi.plans import plan_for

from gpufabric.clouds.oci.nodes import cluster_network_create_minutes

OCI_LIST = "oci:Core/securityList:SecurityList"
OCI_SUBNET = "oci:Core/subnet:Subnet"
OCI_ROUTES = "oci:Core/routeTable:RouteTable"
OCI_SGW = "oci:Core/serviceGateway:ServiceGateway"
OCI_CN = "oci:Core/clusterNetwork:ClusterNetwork"
AWS_IN = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule"
AWS_SG = "aws:ec2/securityGroup:SecurityGroup"
AWS_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"


def _oci_lists(*overrides: str) -> dict[str, dict[str, Any]]:
    """Security list inputs by the CIDR of the subnet that uses them."""
    plan = plan_for("oci-h100", *overrides)
    lists = {r.id: r.inputs for r in plan.of_type(OCI_LIST)}
    return {
        s.inputs["cidrBlock"]: lists[s.inputs["securityListIds"][0]]
        for s in plan.of_type(OCI_SUBNET)
    }


def _tcp_in(rules: dict[str, Any], port: int) -> list[dict[str, Any]]:
    found = []
    for rule in rules["ingressSecurityRules"]:
        tcp = rule.get("tcpOptions") or {}
        if rule["protocol"] == "6" and tcp.get("min", 1) <= port <= tcp.get("max", 65535):
            found.append(rule)
    return found


def test_oci_nodes_take_lustre_from_the_lustre_subnet_from_reserved_ports() -> None:
    nodes = _oci_lists()["10.0.0.0/18"]
    (lustre,) = _tcp_in(nodes, 988)
    assert lustre["source"] == "10.0.64.0/24"
    assert lustre["tcpOptions"]["sourcePortRange"] == {"min": 512, "max": 1023}


def test_oci_lustre_subnet_takes_988_from_the_nodes_from_reserved_ports() -> None:
    storage = _oci_lists()["10.0.64.0/24"]
    from_nodes = [r for r in _tcp_in(storage, 988) if r["source"] == "10.0.0.0/18"]
    assert [r["tcpOptions"]["sourcePortRange"] for r in from_nodes] == [{"min": 512, "max": 1023}]


def test_oci_nodes_take_ssh_from_the_bastions_and_the_admin_network() -> None:
    lists = _oci_lists()
    sources = {
        r["source"] for r in _tcp_in(lists["10.0.0.0/18"], 22) if r["source"] != "10.0.0.0/18"
    }
    # the management subnet (bastions) and the stack's managementCidr (admin VPN)
    assert sources == {"10.0.65.0/24", "10.250.0.0/24"}
    assert {r["source"] for r in _tcp_in(lists["10.0.65.0/24"], 22)} == {"10.250.0.0/24"}


def test_oci_without_an_admin_cidr_the_bastions_still_reach_the_nodes() -> None:
    net = (
        'gpufabric:network={"cidr": "10.0.0.0/16", "fabricSubnet": "10.0.0.0/18", '
        '"storageSubnet": "10.0.64.0/24", "managementSubnet": "10.0.65.0/24", "egress": "nat"}'
    )
    lists = _oci_lists(net)
    sources = {
        r["source"] for r in _tcp_in(lists["10.0.0.0/18"], 22) if r["source"] != "10.0.0.0/18"
    }
    assert sources == {"10.0.65.0/24"}


@pytest.mark.parametrize("egress", ["nat", "none"])
def test_oci_lists_let_path_mtu_discovery_in(egress: str) -> None:
    net = (
        'gpufabric:network={"cidr": "10.0.0.0/16", "fabricSubnet": "10.0.0.0/18", '
        '"storageSubnet": "10.0.64.0/24", "managementSubnet": "10.0.65.0/24", '
        f'"egress": "{egress}", "managementCidr": "10.250.0.0/24"}}'
    )
    for cidr, rules in _oci_lists(net).items():
        icmp = {
            (r["source"], r["icmpOptions"]["type"], r["icmpOptions"].get("code"))
            for r in rules["ingressSecurityRules"]
            if r["protocol"] == "1"
        }
        assert ("10.0.0.0/16", 3, None) in icmp, cidr  # every unreachable code from the VCN
        assert (("0.0.0.0/0", 3, 4) in icmp) == (egress == "nat"), cidr


@pytest.mark.parametrize("egress", ["nat", "none"])
def test_oci_nodes_reach_oracle_services_through_a_service_gateway(egress: str) -> None:
    net = (
        'gpufabric:network={"cidr": "10.0.0.0/16", "fabricSubnet": "10.0.0.0/18", '
        '"storageSubnet": "10.0.64.0/24", "managementSubnet": "10.0.65.0/24", '
        f'"egress": "{egress}"}}'
    )
    plan = plan_for("oci-h100", net)
    (gateway,) = plan.of_type(OCI_SGW)
    (routes,) = plan.of_type(OCI_ROUTES)
    to_services = [
        r for r in routes.inputs["routeRules"] if r["destinationType"] == "SERVICE_CIDR_BLOCK"
    ]
    assert [r["networkEntityId"] for r in to_services] == [gateway.id]
    label = to_services[0]["destination"]
    assert gateway.inputs["services"][0]["serviceId"].endswith(label)
    nodes = _oci_lists(net)["10.0.0.0/18"]
    out = {(r["destination"], r.get("destinationType")) for r in nodes["egressSecurityRules"]}
    if egress == "none":
        assert out == {("10.0.0.0/16", "CIDR_BLOCK"), (label, "SERVICE_CIDR_BLOCK")}
    else:
        assert out == {("0.0.0.0/0", "CIDR_BLOCK")}


@pytest.mark.parametrize(("nodes", "minutes"), [(1, 30), (16, 30), (19, 30), (20, 60), (64, 120)])
def test_oci_cluster_network_create_time_is_oracles_figure(nodes: int, minutes: int) -> None:
    assert cluster_network_create_minutes(nodes) == minutes


def test_oci_cluster_network_gets_its_create_time_in_the_plan() -> None:
    (cn,) = plan_for("oci-h100").of_type(OCI_CN)
    assert cn.timeouts == {"create": "30m"}  # 16 nodes: one batch
    (big,) = plan_for("oci-h100", "gpufabric:nodes=64").of_type(OCI_CN)
    assert big.timeouts == {"create": "120m"}


@pytest.mark.parametrize("stack", ["aws-h100", "aws-a100"])
def test_aws_nodes_take_lustre_ports_from_the_file_systems_group(stack: str) -> None:
    plan = plan_for(stack)
    (fsx,) = plan.of_type(AWS_FSX)
    fsx_groups = set(fsx.inputs["securityGroupIds"])
    node_groups: set[str] = set()
    for template in plan.of_type(AWS_TEMPLATE):
        for nic in template.inputs.get("networkInterfaces", []):
            node_groups |= set(nic.get("securityGroups", []))
    inbound = {
        (r.inputs["fromPort"], r.inputs["toPort"])
        for r in plan.of_type(AWS_IN)
        if r.inputs["securityGroupId"] in node_groups
        and r.inputs.get("referencedSecurityGroupId") in fsx_groups
        and r.inputs.get("ipProtocol") == "tcp"
    }
    assert {(988, 988), (1018, 1023)} <= inbound
