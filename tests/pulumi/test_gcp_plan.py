"""The GCP component under recording mocks: what `pulumi up -s gcp-*` would send."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from tests.pulumi.plans import REPO, plan_for

from gpufabric.catalog import lookup
from gpufabric.clouds.gcp.cluster import _check_args
from gpufabric.clouds.gcp.nodes import nic_layout
from gpufabric.errors import ConfigError, UserError
from gpufabric.plan import Plan, PlannedResource, run_plan
from gpufabric.plan.summary import fabric_summary
from gpufabric.stack_outputs import EXPORTS, parse

NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
INSTANCE = "gcp:compute/instance:Instance"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
ROUTER = "gcp:compute/router:Router"
NAT = "gcp:compute/routerNat:RouterNat"
ADDRESS = "gcp:compute/globalAddress:GlobalAddress"
PSA = "gcp:servicenetworking/connection:Connection"
LUSTRE = "gcp:lustre/instance:Instance"
PARALLELSTORE = "gcp:parallelstore/instance:Instance"
FILESTORE = "gcp:filestore/instance:Instance"
MEGA, ULTRA = "gcp-a3-mega", "gcp-a3-ultra"


def one(plan: Plan, token: str) -> PlannedResource:
    found = plan.of_type(token)
    assert len(found) == 1, f"expected one {token}, got {[r.name for r in found]}"
    return found[0]


def subnet_network(plan: Plan) -> dict[str, str]:
    """subnet id -> network id, as the plan records them."""
    return {s.id: s.inputs["network"] for s in plan.of_type(SUBNET)}


def nodes_nics(plan: Plan) -> list[list[dict[str, Any]]]:
    machines = plan.of_type(INSTANCE) or plan.of_type(TEMPLATE)
    return [m.inputs["networkInterfaces"] for m in machines]


# ------------------------------------------------------------------ A3 Mega (done-when)


def test_a3_mega_has_nine_vpcs_one_host_and_eight_gpu() -> None:
    plan = plan_for(MEGA)
    names = sorted(n.name for n in plan.of_type(NETWORK))
    assert len(names) == 9
    assert names == sorted([f"{MEGA}-host-0"] + [f"{MEGA}-gpu-{i}" for i in range(8)])
    assert not any(n.inputs.get("networkProfile") for n in plan.of_type(NETWORK))


def test_a3_mega_every_node_has_exactly_one_gvnic_in_each_vpc() -> None:
    plan = plan_for(MEGA)
    networks = {n.id for n in plan.of_type(NETWORK)}
    to_network = subnet_network(plan)
    all_nics = nodes_nics(plan)
    assert len(all_nics) == 16
    for nics in all_nics:
        assert Counter(to_network[n["subnetwork"]] for n in nics) == Counter(networks)
        assert {n["nicType"] for n in nics} == {"GVNIC"}
        assert not any(n.get("accessConfigs") for n in nics), "no external IPs"
        host = to_network[nics[0]["subnetwork"]]
        assert host == f"<{MEGA}-host-0.id>", "nic0 is the host gVNIC"


def test_a3_mega_collocated_placement_holds_every_node() -> None:
    plan = plan_for(MEGA)
    policy = one(plan, POLICY)
    group = policy.inputs["groupPlacementPolicy"]
    assert group["collocation"] == "COLLOCATED"
    assert group["vmCount"] == 16
    assert group["maxDistance"] == 2
    assert {i.inputs["resourcePolicies"] for i in plan.of_type(INSTANCE)} == {policy.id}


def test_a3_mega_gpu_vpcs_keep_8244_and_the_lustre_host_vpc_gets_8896() -> None:
    plan = plan_for(MEGA)
    mtus = {n.name: n.inputs["mtu"] for n in plan.of_type(NETWORK)}
    assert mtus.pop(f"{MEGA}-host-0") == 8896  # Managed Lustre's VPC guide
    assert set(mtus.values()) == {8244} and len(mtus) == 8
    assert plan.outputs["network"]["hostMtu"] == 8896 and plan.outputs["network"]["mtu"] == 8244
    bare = plan_for(MEGA, 'gpufabric:storage={"type": "none"}')
    assert {n.inputs["mtu"] for n in bare.of_type(NETWORK)} == {8244}


def test_mtu_override_applies_to_every_vpc() -> None:
    plan = plan_for(MEGA, "gpufabric:gcp.mtu=1460")
    assert {n.inputs["mtu"] for n in plan.of_type(NETWORK)} == {1460}


def test_gpu_vpcs_have_no_route_out_but_the_host_vpc_does() -> None:
    plan = plan_for(MEGA)
    routes = {n.name: n.inputs["deleteDefaultRoutesOnCreate"] for n in plan.of_type(NETWORK)}
    assert routes.pop(f"{MEGA}-host-0") is False
    assert set(routes.values()) == {True}


def test_every_vpc_has_a_firewall_admitting_only_its_own_subnets_to_cluster_nodes() -> None:
    plan = plan_for(MEGA)
    ranges: dict[str, set[str]] = {}
    for subnet in plan.of_type(SUBNET):
        ranges.setdefault(subnet.inputs["network"], set()).add(subnet.inputs["ipCidrRange"])
    internal = [f for f in plan.of_type(FIREWALL) if f.name.endswith("-internal")]
    assert {f.inputs["network"] for f in internal} == {n.id for n in plan.of_type(NETWORK)}
    for rule in internal:
        assert rule.inputs["direction"] == "INGRESS"
        assert set(rule.inputs["sourceRanges"]) == ranges[rule.inputs["network"]]
        assert rule.inputs["targetTags"] == [f"{MEGA}-node"]
    for rule in plan.of_type(FIREWALL):
        assert "0.0.0.0/0" not in rule.inputs.get("sourceRanges", [])
    node_tags = {tuple(i.inputs["tags"]) for i in plan.of_type(INSTANCE)}
    assert node_tags == {(f"{MEGA}-node",)}


def test_ssh_only_from_the_management_cidr_on_the_host_vpc() -> None:
    plan = plan_for(MEGA)
    ssh = next(f for f in plan.of_type(FIREWALL) if f.name == f"{MEGA}-ssh")
    assert ssh.inputs["sourceRanges"] == ["35.235.240.0/20"]  # IAP TCP forwarding
    assert ssh.inputs["allows"] == [{"ports": ["22"], "protocol": "tcp"}]
    assert ssh.inputs["network"] == f"<{MEGA}-host-0.id>"


def test_nodes_terminate_on_maintenance_and_are_shielded() -> None:
    plan = plan_for(MEGA)
    for node in plan.of_type(INSTANCE):
        assert node.inputs["scheduling"]["onHostMaintenance"] == "TERMINATE"
        shielded = node.inputs["shieldedInstanceConfig"]
        assert shielded == {
            "enableIntegrityMonitoring": True,
            "enableSecureBoot": False,
            "enableVtpm": True,
        }
        assert node.inputs["zone"] == "us-central1-a"
        assert node.inputs["machineType"] == "a3-megagpu-8g"
    secure = plan_for(MEGA, "gpufabric:gcp.secureBoot=true")
    assert {
        n.inputs["shieldedInstanceConfig"]["enableSecureBoot"] for n in secure.of_type(INSTANCE)
    } == {True}


def test_reservation_is_a_specific_affinity_by_name() -> None:
    plan = plan_for(
        MEGA,
        "gpufabric:capacity.type=reservation",
        "gpufabric:capacity.reservationId=a3m-res",
        "gpufabric:gcp.maxDistance=null",
    )
    expected = {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": ["a3m-res"],
        },
    }
    nodes = plan.of_type(INSTANCE)
    assert len(nodes) == 16
    assert all(i.inputs["reservationAffinity"] == expected for i in nodes)
    assert one(plan_for(ULTRA), TEMPLATE).inputs["reservationAffinity"]["specificReservation"][
        "values"
    ] == ["a3u-reservation"]
    assert "reservationAffinity" not in plan_for(MEGA).of_type(INSTANCE)[0].inputs


def test_cloud_nat_serves_only_the_host_subnet() -> None:
    plan = plan_for(MEGA)
    router = one(plan, ROUTER)
    assert router.inputs["network"] == f"<{MEGA}-host-0.id>"
    nat = one(plan, NAT)
    assert nat.inputs["router"] == router.inputs["name"]
    assert nat.inputs["sourceSubnetworkIpRangesToNat"] == "LIST_OF_SUBNETWORKS"
    assert [s["name"] for s in nat.inputs["subnetworks"]] == [f"<{MEGA}-host-0-subnet.id>"]


def test_egress_none_builds_no_nat_and_drops_the_host_default_route() -> None:
    plan = plan_for(MEGA, "gpufabric:network.egress=none")
    assert not plan.of_type(ROUTER) and not plan.of_type(NAT)
    assert {n.inputs["deleteDefaultRoutesOnCreate"] for n in plan.of_type(NETWORK)} == {True}
    assert {s.inputs["privateIpGoogleAccess"] for s in plan.of_type(SUBNET)} == {False}


def test_egress_endpoints_uses_private_google_access_without_nat() -> None:
    plan = plan_for(MEGA, "gpufabric:network.egress=endpoints")
    assert not plan.of_type(NAT)
    access = {s.name: s.inputs["privateIpGoogleAccess"] for s in plan.of_type(SUBNET)}
    assert access[f"{MEGA}-host-0-subnet"] is True
    assert access[f"{MEGA}-gpu-0-subnet"] is False


# ------------------------------------------------------------------ storage


def test_lustre_in_the_nodes_zone_on_the_host_vpc_over_private_service_access() -> None:
    plan = plan_for(MEGA)
    lustre = one(plan, LUSTRE)
    assert lustre.inputs["location"] == plan.config.zone == "us-central1-a"
    assert lustre.inputs["network"] == f"<{MEGA}-host-0.id>"
    assert lustre.inputs["perUnitStorageThroughput"] == "1000"
    assert lustre.inputs["capacityGib"] == "36000"
    address = one(plan, ADDRESS)
    assert address.inputs["purpose"] == "VPC_PEERING"
    assert f"{address.inputs['address']}/{address.inputs['prefixLength']}" == "10.0.32.0/20"
    peering = one(plan, PSA)
    assert peering.inputs["service"] == "servicenetworking.googleapis.com"
    assert peering.inputs["reservedPeeringRanges"] == [address.inputs["name"]]
    storage = plan.outputs["storage"]
    assert storage["zone"] == "us-central1-a"
    assert storage["mountCommand"] == "mount -t lustre 10.0.32.2@tcp:/lustre /lustre"


def test_storage_clients_accept_tcp_from_the_storage_range_only() -> None:
    rule = next(f for f in plan_for(MEGA).of_type(FIREWALL) if f.name == f"{MEGA}-storage")
    assert rule.inputs["sourceRanges"] == ["10.0.32.0/20"]
    assert rule.inputs["allows"] == [{"protocol": "tcp"}]


@pytest.mark.parametrize(
    ("storage", "token"),
    [
        ('{"type": "parallelstore", "capacityGib": 16000}', PARALLELSTORE),
        ('{"type": "filestore", "tier": "ZONAL", "capacityGib": 2560}', FILESTORE),
    ],
)
def test_other_storage_services_sit_in_the_nodes_zone(storage: str, token: str) -> None:
    plan = plan_for(MEGA, f"gpufabric:storage={storage}")
    store = one(plan, token)
    assert store.inputs["location"] == "us-central1-a"
    assert not plan.of_type(LUSTRE)
    assert plan.outputs["storage"]["zone"] == "us-central1-a"
    if token == PARALLELSTORE:
        assert store.inputs["network"] == f"{MEGA}-host-0"
        assert store.inputs["reservedIpRange"] == one(plan, ADDRESS).inputs["name"]
    if token == FILESTORE:
        (network,) = store.inputs["networks"]
        assert network["network"] == f"{MEGA}-host-0"
        assert network["connectMode"] == "PRIVATE_SERVICE_ACCESS"
        assert network["reservedIpRange"] == one(plan, ADDRESS).inputs["name"]
        assert plan.outputs["storage"]["mountCommand"].endswith("10.0.32.2:/share /filestore")


def test_no_storage_means_no_peering_and_no_storage_firewall() -> None:
    plan = plan_for(MEGA, 'gpufabric:storage={"type": "none"}')
    assert not plan.of_type(PSA) and not plan.of_type(ADDRESS) and not plan.of_type(LUSTRE)
    assert not [f for f in plan.of_type(FIREWALL) if f.name.endswith("-storage")]
    assert plan.outputs.get("storage") is None  # the plan drops null outputs


# ------------------------------------------------------------------ A3 Ultra / A4 (RoCE)


def test_a3_ultra_has_an_rdma_vpc_on_the_zones_roce_profile() -> None:
    plan = plan_for(ULTRA)
    networks = plan.of_type(NETWORK)
    assert len(networks) == 3
    (rdma,) = [n for n in networks if n.inputs.get("networkProfile")]
    assert (
        rdma.inputs["networkProfile"]
        == "projects/my-gpu-project/global/networkProfiles/europe-west1-b-vpc-roce"
    )
    rdma_subnets = [s for s in plan.of_type(SUBNET) if s.inputs["network"] == rdma.id]
    assert len(rdma_subnets) == 8
    assert {n.inputs["mtu"] for n in networks} == {8896}


def test_a3_ultra_template_has_two_gvnics_and_eight_mrdma_nics_in_the_rdma_subnets() -> None:
    plan = plan_for(ULTRA)
    (nics,) = nodes_nics(plan)
    rdma = next(n for n in plan.of_type(NETWORK) if n.inputs.get("networkProfile"))
    to_network = subnet_network(plan)
    mrdma = [n for n in nics if n["nicType"] == "MRDMA"]
    gvnic = [n for n in nics if n["nicType"] == "GVNIC"]
    assert len(mrdma) == 8 and len(gvnic) == 2
    assert {to_network[n["subnetwork"]] for n in mrdma} == {rdma.id}
    assert len({n["subnetwork"] for n in mrdma}) == 8, "one RDMA subnet per MRDMA NIC"
    assert len({to_network[n["subnetwork"]] for n in gvnic}) == 2
    assert rdma.id not in {to_network[n["subnetwork"]] for n in gvnic}
    assert nics[:2] == gvnic, "host gVNICs come first"


def test_roce_vpc_gets_no_vpc_firewall_rules() -> None:
    plan = plan_for(ULTRA)
    rdma = next(n for n in plan.of_type(NETWORK) if n.inputs.get("networkProfile"))
    assert rdma.id not in {f.inputs["network"] for f in plan.of_type(FIREWALL)}
    regular = {n.id for n in plan.of_type(NETWORK)} - {rdma.id}
    internal = {f.inputs["network"] for f in plan.of_type(FIREWALL) if "internal" in f.name}
    assert internal == regular


def test_roce_vpc_admits_only_tagged_cluster_nodes_through_a_roce_firewall_policy() -> None:
    plan = plan_for(ULTRA)
    rdma = next(n for n in plan.of_type(NETWORK) if n.inputs.get("networkProfile"))
    policy = one(plan, "gcp:compute/regionNetworkFirewallPolicy:RegionNetworkFirewallPolicy")
    assert policy.inputs["policyType"] == "RDMA_ROCE_POLICY"
    association = one(
        plan,
        "gcp:compute/regionNetworkFirewallPolicyAssociation:RegionNetworkFirewallPolicyAssociation",
    )
    assert association.inputs["attachmentTarget"] == rdma.id
    assert association.inputs["firewallPolicy"] == policy.inputs["name"]
    key = one(plan, "gcp:tags/tagKey:TagKey")
    assert key.inputs["purpose"] == "GCE_FIREWALL"
    assert key.inputs["purposeData"] == {"network": f"my-gpu-project/{rdma.inputs['name']}"}
    value = one(plan, "gcp:tags/tagValue:TagValue")
    assert value.inputs["parent"] == key.id
    rules = {
        r.inputs["priority"]: r
        for r in plan.of_type(
            "gcp:compute/regionNetworkFirewallPolicyRule:RegionNetworkFirewallPolicyRule"
        )
    }
    allow, deny = rules[1000].inputs, rules[2000].inputs
    assert allow["action"] == "allow" and allow["direction"] == "INGRESS"
    assert allow["match"]["srcSecureTags"] == [{"name": value.id}]
    assert allow["targetSecureTags"] == [{"name": value.id}]
    assert deny["action"] == "deny" and deny["match"]["srcIpRanges"] == ["0.0.0.0/0"]
    assert one(plan, TEMPLATE).inputs["resourceManagerTags"] == {key.id: value.id}
    instances = plan_for(
        ULTRA, "gpufabric:nodeGroup=instances", "gpufabric:gcp.maxTopologyDistance=null"
    )
    tagged = [i.inputs["params"]["resourceManagerTags"] for i in instances.of_type(INSTANCE)]
    assert len(tagged) == 8 and all(t == {key.id: value.id} for t in tagged)


def test_vpc_per_nic_clusters_need_no_roce_policy() -> None:
    plan = plan_for(MEGA)
    assert not plan.of_type("gcp:tags/tagKey:TagKey")
    assert not plan.of_type("gcp:compute/regionNetworkFirewallPolicy:RegionNetworkFirewallPolicy")
    assert all("params" not in i.inputs for i in plan.of_type(INSTANCE))


def test_a3_ultra_group_is_a_mig_placed_by_a_high_throughput_workload_policy() -> None:
    plan = plan_for(ULTRA)
    mig = one(plan, MIG)
    policy = one(plan, POLICY)
    assert policy.inputs["workloadPolicy"] == {
        "maxTopologyDistance": "BLOCK",
        "type": "HIGH_THROUGHPUT",
    }
    assert "groupPlacementPolicy" not in policy.inputs
    assert mig.inputs["resourcePolicies"] == {"workloadPolicy": policy.id}
    assert mig.inputs["targetSize"] == 8
    assert mig.inputs["zone"] == "europe-west1-b"
    assert mig.inputs["versions"] == [{"instanceTemplate": one(plan, TEMPLATE).id}]
    assert mig.inputs["updatePolicy"]["type"] == "OPPORTUNISTIC"
    assert one(plan, TEMPLATE).inputs["scheduling"]["onHostMaintenance"] == "TERMINATE"
    assert not plan.of_type(INSTANCE)


def test_a4_uses_the_same_roce_layout() -> None:
    plan = plan_for(ULTRA, "gpufabric:instanceType=a4-highgpu-8g")
    (nics,) = nodes_nics(plan)
    assert Counter(n["nicType"] for n in nics) == {"GVNIC": 2, "MRDMA": 8}
    assert plan.outputs["cluster"]["fabric"] == "roce"


def test_a3_high_has_four_gpu_vpcs_and_tcpx() -> None:
    plan = plan_for(MEGA, "gpufabric:instanceType=a3-highgpu-8g")
    assert len(plan.of_type(NETWORK)) == 5
    assert {len(nics) for nics in nodes_nics(plan)} == {5}
    assert plan.outputs["cluster"]["fabric"] == "tcpx"


def test_mig_resource_count_does_not_grow_with_nodes() -> None:
    small = plan_for(ULTRA, "gpufabric:nodes=2")
    large = plan_for(ULTRA, "gpufabric:nodes=512")
    assert len(small.resources) == len(large.resources)
    assert one(large, MIG).inputs["targetSize"] == 512


# ------------------------------------------------------------------ outputs and errors


@pytest.mark.parametrize(("stack", "fabric"), [(MEGA, "tcpxo"), (ULTRA, "roce")])
def test_outputs_are_the_contract_with_the_fabric(stack: str, fabric: str) -> None:
    plan = plan_for(stack)
    assert set(plan.outputs) == set(EXPORTS)
    cluster = parse(plan.outputs).cluster
    assert (cluster.cloud, cluster.fabric, cluster.zone) == ("gcp", fabric, plan.config.zone)
    assert cluster.project == plan.config.gcp.project


def test_node_groups_name_what_discovery_links_to() -> None:
    (group,) = parse(plan_for(MEGA).outputs).nodes.groups
    assert group.kind == "instances"
    assert group.members == [i.inputs["name"] for i in plan_for(MEGA).of_type(INSTANCE)]
    (mig,) = parse(plan_for(ULTRA).outputs).nodes.groups
    assert (mig.kind, mig.name, mig.count) == (
        "managed-instance-group",
        one(plan_for(ULTRA), MIG).inputs["name"],
        8,
    )


def test_project_must_match_the_providers_project() -> None:
    with pytest.raises(UserError) as err:
        run_plan(REPO, MEGA, ["gcp:project=another-project"])
    assert str(err.value).startswith("gpufabric:gcp.project:")
    assert "another-project" in str(err.value)


def test_component_rejects_an_instance_type_of_another_cloud() -> None:
    cfg = plan_for(MEGA).config
    with pytest.raises(ValueError, match=r"GcpClusterArgs\.instance: p5\.48xlarge is a aws"):
        _check_args(cfg, lookup("p5.48xlarge"))
    with pytest.raises(ValueError, match="does not match config instanceType"):
        _check_args(cfg, lookup("a3-ultragpu-8g"))


def test_nic_layout_comes_from_the_catalog() -> None:
    mega = nic_layout(lookup("a3-megagpu-8g"))
    assert [s.role for s in mega] == ["host-0"] + [f"gpu-{i}" for i in range(8)]
    ultra = nic_layout(lookup("a3-ultragpu-8g"))
    assert [s.nic_type for s in ultra] == ["GVNIC"] * 2 + ["MRDMA"] * 8


def test_fabric_summary_reads_the_wiring_back() -> None:
    mega = dict(fabric_summary(plan_for(MEGA)))
    assert mega["VPC networks"].startswith("9 (9 regular")
    assert "exactly one NIC in each of the 9 VPCs" in mega["NICs per node"]
    assert (
        "1 new compact placement policy (collocation COLLOCATED, maxDistance 2)"
        in mega["Placement"]
    )
    assert "vmCount 16" in mega["Placement"]
    assert "same zone as the nodes" in mega["Storage"]
    ultra = dict(fabric_summary(plan_for(ULTRA)))
    assert "europe-west1-b-vpc-roce" in ultra["VPC networks"]
    assert "8 MRDMA" in ultra["NICs per node"]
    assert "HIGH_THROUGHPUT" in ultra["Placement"]


def test_a3_mega_as_a_managed_group_uses_a_workload_policy_and_a_nine_nic_template() -> None:
    plan = plan_for(MEGA, "gpufabric:nodeGroup=group", "gpufabric:gcp.maxDistance=null")
    (nics,) = nodes_nics(plan)
    assert len(nics) == 9
    assert one(plan, POLICY).inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT"}
    assert one(plan, MIG).inputs["targetSize"] == 16
    assert not plan.of_type(INSTANCE)


def test_300_a3_mega_nodes_get_two_compact_policies_of_at_most_256() -> None:
    plan = plan_for(MEGA, "gpufabric:nodes=300")
    policies = sorted(plan.of_type(POLICY), key=lambda p: p.name)
    assert [p.name for p in policies] == [f"{MEGA}-placement-0", f"{MEGA}-placement-1"]
    assert [p.inputs["groupPlacementPolicy"]["vmCount"] for p in policies] == [256, 44]
    assert {p.inputs["groupPlacementPolicy"]["maxDistance"] for p in policies} == {2}
    by_node = {i.name: i.inputs["resourcePolicies"] for i in plan.of_type(INSTANCE)}
    assert by_node[f"{MEGA}-node-0255"] == policies[0].id
    assert by_node[f"{MEGA}-node-0256"] == policies[1].id
    counts = [list(by_node.values()).count(p.id) for p in policies]
    assert counts == [256, 44]
    placement = dict(fabric_summary(plan))["Placement"]
    assert placement.startswith("2 new compact placement policies (collocation COLLOCATED")
    assert "256 + 44 VMs" in placement and "not guaranteed to be close" in placement
    assert plan.outputs["network"]["placementPolicy"]["names"] == [p.name for p in policies]


def test_max_distance_1_holds_22_vms_per_policy() -> None:
    plan = plan_for(
        ULTRA,
        "gpufabric:nodeGroup=instances",
        "gpufabric:nodes=30",
        "gpufabric:gcp.maxDistance=1",
        "gpufabric:gcp.maxTopologyDistance=null",
    )
    sizes = sorted(p.inputs["groupPlacementPolicy"]["vmCount"] for p in plan.of_type(POLICY))
    assert sizes == [8, 22]


def test_dense_reservation_is_reservation_bound_and_keeps_its_compact_policy() -> None:
    template = one(plan_for(ULTRA), TEMPLATE)
    assert template.inputs["scheduling"]["provisioningModel"] == "RESERVATION_BOUND"
    ondemand = plan_for(ULTRA, 'gpufabric:capacity={"type": "on-demand"}')
    assert one(ondemand, TEMPLATE).inputs["scheduling"]["provisioningModel"] == "STANDARD"
    instances = plan_for(
        ULTRA, "gpufabric:nodeGroup=instances", "gpufabric:gcp.maxTopologyDistance=null"
    )
    assert {i.inputs["scheduling"]["provisioningModel"] for i in instances.of_type(INSTANCE)} == {
        "RESERVATION_BOUND"
    }
    policy = one(instances, POLICY)
    assert {i.inputs["resourcePolicies"] for i in instances.of_type(INSTANCE)} == {policy.id}


def test_plain_reservation_gets_no_external_compact_policy() -> None:
    plan = plan_for(
        MEGA,
        'gpufabric:capacity={"type": "reservation", "reservationId": "a3m-res"}',
        "gpufabric:gcp.maxDistance=null",
    )
    assert plan.of_type(POLICY) == []
    for node in plan.of_type(INSTANCE):
        assert "resourcePolicies" not in node.inputs
        assert node.inputs["scheduling"]["provisioningModel"] == "STANDARD"
    placement = dict(fabric_summary(plan))["Placement"]
    assert placement.startswith("none created: the reservation's own placement (a3m-res")
    assert plan.outputs["network"]["placementPolicy"]["source"] == "reservation"
    from gpufabric.policies.offline import check_plan

    assert check_plan(plan) == []


def test_plain_reservation_with_max_distance_is_refused_before_any_resource() -> None:
    with pytest.raises(ConfigError) as err:
        plan_for(MEGA, 'gpufabric:capacity={"type": "reservation", "reservationId": "a3m-res"}')
    assert err.value.key == "gpufabric:gcp.maxDistance"


def test_the_component_itself_refuses_a_project_other_than_the_providers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The config check refuses it first for a stack; a program that builds GcpClusterArgs
    itself still meets the component's own check, reading the provider's gcp:project."""
    import pulumi

    from gpufabric.clouds.gcp import cluster

    class ProviderConfig:
        def __init__(self, name: str) -> None:
            self.name = name

        def get(self, key: str) -> str | None:
            return "someone-else" if (self.name, key) == ("gcp", "project") else None

    cfg = plan_for(MEGA).config
    monkeypatch.setattr(cluster.pulumi, "Config", ProviderConfig)
    with pytest.raises(pulumi.RunError) as err:
        _check_args(cfg, lookup(cfg.instance_type))
    assert str(err.value) == (
        "gpufabric:gcp.project: 'my-gpu-project' is not valid; it must match gcp:project "
        "'someone-else' (the provider's project)"
    )
