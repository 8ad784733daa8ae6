"""OCI's VCN and security lists, and Nebius's node security group, as the real program plans them
under mocks: the Oracle services entry the service gateway is built from (OCI filters the
region's services by name, as the program asks), the refusal when a region lists none, the
provider a user's own program gives, and every rule of every subnet where the stack reaches
no internet."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from tests.pulumi.plans import REPO, plan_for

from gpufabric.errors import UserError
from gpufabric.plan import Plan, run_plan
from gpufabric.plan.mocks import RecordingMocks

SERVICES = "oci:Core/getServices:getServices"
OCI_LIST = "oci:Core/securityList:SecurityList"
OCI_SUBNET = "oci:Core/subnet:Subnet"
OCI_ROUTES = "oci:Core/routeTable:RouteTable"
OCI_SGW = "oci:Core/serviceGateway:ServiceGateway"
NEB_RULE = "nebius:index/vpcV1SecurityRule:VpcV1SecurityRule"
NEB_GROUP = "nebius:index/vpcV1SecurityGroup:VpcV1SecurityGroup"
NEB_VM = "nebius:index/computeV1Instance:ComputeV1Instance"
# what ListServices answers in us-ashburn-1 (the Object Storage entry first, as OCI lists it)
OBJECT_STORAGE = {
    "id": "ocid1.service.oc1.iad.objectstorage",
    "cidrBlock": "oci-iad-objectstorage",
    "name": "OCI IAD Object Storage",
    "description": "OCI IAD Object Storage",
}
ALL_IAD = {
    "id": "ocid1.service.oc1.iad.all",
    "cidrBlock": "all-iad-services-in-oracle-services-network",
    "name": "All IAD Services In Oracle Services Network",
    "description": "All IAD Services In Oracle Services Network",
}
CLOSED = (
    'gpufabric:network={"cidr": "10.0.0.0/16", "fabricSubnet": "10.0.0.0/18", '
    '"storageSubnet": "10.0.64.0/24", "managementSubnet": "10.0.65.0/24", "egress": "none"}'
)


def _filtered(items: list[dict[str, Any]], filters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OCI's data source filters: each keeps the items whose field `name` equals one of
    `values`, or matches one of them as a regular expression (unanchored) when `regex`."""
    for f in filters:
        field, values, regex = f.get("name"), f.get("values") or [], f.get("regex", False)
        items = [
            item
            for item in items
            if field in item
            and any(re.search(v, item[field]) if regex else v == item[field] for v in values)
        ]
    return items


def _region_listing(*services: dict[str, Any]) -> type[RecordingMocks]:
    """A cloud whose region lists `services` and filters them as OCI does; the calls it gets
    are kept on the class."""

    class Listing(RecordingMocks):
        calls: list[Any] = []

        def call(self, args):  # type: ignore[override]
            if args.token == SERVICES:
                Listing.calls.append(args)
                return {"services": _filtered(list(services), args.args.get("filters") or [])}
            return super().call(args)

    return Listing


def test_service_gateway_and_routes_take_the_regions_all_services_entry() -> None:
    plan = run_plan(REPO, "oci-h100", [CLOSED], make_mocks=_region_listing(OBJECT_STORAGE, ALL_IAD))
    (gateway,) = plan.of_type(OCI_SGW)
    assert gateway.inputs["services"] == [{"serviceId": ALL_IAD["id"]}]
    (routes,) = plan.of_type(OCI_ROUTES)
    assert routes.inputs["routeRules"] == [
        {
            "destination": ALL_IAD["cidrBlock"],
            "destinationType": "SERVICE_CIDR_BLOCK",
            "networkEntityId": gateway.id,
        }
    ]
    nodes = _lists(plan)["10.0.0.0/18"]
    assert ("all", ALL_IAD["cidrBlock"], "SERVICE_CIDR_BLOCK", "Oracle services") in nodes["out"]


def test_region_without_an_all_services_entry_is_refused_in_one_line() -> None:
    with pytest.raises(UserError) as err:
        run_plan(REPO, "oci-h100", [], make_mocks=_region_listing(OBJECT_STORAGE))
    assert str(err.value) == (
        "OCI lists no service named like 'All .* Services In Oracle Services Network' "
        "in this region"
    )


PROVIDED = """
import pulumi
import pulumi_oci as oci
from gpufabric.clouds.oci import cluster
from gpufabric.config import from_pulumi

cfg = from_pulumi()
frankfurt = oci.Provider("frankfurt", region="eu-frankfurt-1")
outer = pulumi.ComponentResource(
    "test:index:Outer", "outer", opts=pulumi.ResourceOptions(providers=[frankfurt])
)
args = cluster.OciClusterArgs(config=cfg, instance=cfg.instance)
cluster.OciCluster(cfg.name, args, pulumi.ResourceOptions(parent=outer)).outputs.export()
"""


def test_services_are_looked_up_through_the_provider_the_program_gives(tmp_path: Path) -> None:
    """A program that builds the cluster with its own provider (another region, another
    tenancy) reads that region's Oracle services, the ones its VCN's gateway can reach."""
    (tmp_path / "stacks").symlink_to(REPO / "stacks")
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "__main__.py").write_text(PROVIDED)
    mocks = _region_listing(OBJECT_STORAGE, ALL_IAD)
    run_plan(tmp_path, "oci-h100", [], make_mocks=mocks)
    (call,) = mocks.calls  # type: ignore[attr-defined]
    assert call.provider == (
        "urn:pulumi:oci-h100::gpufabric::pulumi:pulumi:Stack$pulumi:providers:oci::frankfurt"
        "::<frankfurt.id>"
    )


def _lists(plan: Plan) -> dict[str, dict[str, list[tuple[Any, ...]]]]:
    """Each subnet's security list by the subnet's CIDR, every rule as one tuple: protocol,
    source or destination (and its type for egress), description, then the ports or ICMP
    type and code."""
    lists = {r.id: r for r in plan.of_type(OCI_LIST)}
    out = {}
    for subnet in plan.of_type(OCI_SUBNET):
        (list_id,) = subnet.inputs["securityListIds"]
        rules = lists[list_id].inputs
        out[subnet.inputs["cidrBlock"]] = {
            "name": [lists[list_id].inputs["displayName"], subnet.inputs["displayName"]],
            "in": [_ingress(r) for r in rules["ingressSecurityRules"]],
            "out": [
                (r["protocol"], r["destination"], r["destinationType"], r["description"])
                for r in rules["egressSecurityRules"]
            ],
        }
    return out


def _ingress(rule: dict[str, Any]) -> tuple[Any, ...]:
    assert rule["sourceType"] == "CIDR_BLOCK"
    found: tuple[Any, ...] = (rule["protocol"], rule["source"], rule["description"])
    if "tcpOptions" in rule:
        tcp = rule["tcpOptions"]
        found += (tcp["min"], tcp["max"])
        if "sourcePortRange" in tcp:
            found += (tcp["sourcePortRange"]["min"], tcp["sourcePortRange"]["max"])
    if "icmpOptions" in rule:
        found += (rule["icmpOptions"]["type"], rule["icmpOptions"].get("code"))
    return found


def test_closed_cluster_lists_every_rule_of_each_subnet() -> None:
    """`egress: none` and no managementCidr: the nodes reach the VCN and Oracle services only,
    SSH comes from the bastions' subnet, ICMP "fragmentation needed" only from the VCN."""
    plan = plan_for("oci-h100", CLOSED)
    label = "all-us-ashburn-1-services-in-oracle-services-network"  # the mocks' service
    unreachable = ("1", "10.0.0.0/16", "destination unreachable from the VCN", 3, None)
    vcn_only = [("all", "10.0.0.0/16", "CIDR_BLOCK", "inside the VCN")]
    assert _lists(plan) == {
        "10.0.0.0/18": {
            "name": ["oci-h100-fabric", "oci-h100-fabric"],
            "in": [
                ("all", "10.0.0.0/18", "node to node"),
                ("6", "10.0.65.0/24", "SSH from the bastions", 22, 22),
                ("6", "10.0.64.0/24", "Lustre servers to their clients", 988, 988, 512, 1023),
                unreachable,
            ],
            "out": [*vcn_only, ("all", label, "SERVICE_CIDR_BLOCK", "Oracle services")],
        },
        "10.0.64.0/24": {
            "name": ["oci-h100-storage", "oci-h100-storage"],
            "in": [
                ("6", "10.0.0.0/18", "Lustre from the nodes", 988, 988, 512, 1023),
                ("all", "10.0.64.0/24", "Lustre servers among themselves"),
                unreachable,
            ],
            "out": vcn_only,
        },
        "10.0.65.0/24": {
            "name": ["oci-h100-management", "oci-h100-management"],
            "in": [("6", "10.0.65.0/24", "SSH from the admin network", 22, 22), unreachable],
            "out": vcn_only,
        },
    }
    assert not [r for r in plan.resources if r.type == "oci:Core/natGateway:NatGateway"]


def _nebius_rules(plan: Plan) -> dict[str, tuple[Any, ...]]:
    (group,) = plan.of_type(NEB_GROUP)
    rules = {}
    for rule in plan.of_type(NEB_RULE):
        assert rule.inputs["parentId"] == group.id and rule.inputs["access"] == "ALLOW"
        rules[rule.inputs["name"]] = (
            rule.inputs["protocol"],
            rule.inputs.get("ingress"),
            rule.inputs.get("egress"),
        )
    return rules


@pytest.mark.parametrize(
    ("network", "admin"),
    [
        ({}, "10.0.0.0/16"),  # no managementCidr: a bastion inside the stack's network
        ({"managementCidr": "10.250.0.0/24"}, "10.250.0.0/24"),
    ],
)
def test_nebius_nodes_group_opens_ssh_to_the_admin_range_only(
    network: dict[str, str], admin: str
) -> None:
    fields = {
        "cidr": "10.0.0.0/16",
        "fabricSubnet": "10.0.0.0/18",
        "storageSubnet": "10.0.64.0/24",
        "managementSubnet": "10.0.65.0/24",
        "egress": "none",
        **network,
    }
    plan = plan_for(
        "nebius-h100",
        "gpufabric:network={" + ", ".join(f'"{k}": "{v}"' for k, v in fields.items()) + "}",
    )
    assert _nebius_rules(plan) == {
        "node-to-node": ("ANY", {"sourceCidrs": ["10.0.0.0/18"]}, None),
        "ssh-from-admin": ("TCP", {"destinationPorts": [22], "sourceCidrs": [admin]}, None),
        "outbound": ("ANY", None, {}),
    }
    (group,) = plan.of_type(NEB_GROUP)
    for vm in plan.of_type(NEB_VM):
        (nic,) = vm.inputs["networkInterfaces"]
        assert nic["securityGroups"] == [{"id": group.id}]
