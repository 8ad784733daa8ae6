"""The Azure component under recording mocks: what `pulumi up -s azure-*` would send."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from tests.pulumi.plans import plan_for

from gpufabric.catalog import lookup
from gpufabric.errors import ConfigError
from gpufabric.plan import Plan, PlannedResource
from gpufabric.plan.summary import fabric_summary
from gpufabric.stack_outputs import EXPORTS, parse

VMSS = "azure-native:compute:VirtualMachineScaleSet"
PPG = "azure-native:compute:ProximityPlacementGroup"
SUBNET = "azure-native:network:Subnet"
NSG = "azure-native:network:NetworkSecurityGroup"
NAT = "azure-native:network:NatGateway"
PIP = "azure-native:network:PublicIPAddress"
AMLFS = "azure-native:storagecache:AmlFilesystem"
IDENTITY = "azure-native:managedidentity:UserAssignedIdentity"
RG = "azure-native:resources:ResourceGroup"
VNET = "azure-native:network:VirtualNetwork"


def one(plan: Plan, token: str) -> PlannedResource:
    found = plan.of_type(token)
    assert len(found) == 1, f"expected one {token}, got {[r.name for r in found]}"
    return found[0]


def subnet(plan: Plan, role: str) -> PlannedResource:
    return next(s for s in plan.of_type(SUBNET) if s.inputs["subnetName"] == role)


def nsg(plan: Plan, role: str) -> PlannedResource:
    return next(g for g in plan.of_type(NSG) if g.inputs["networkSecurityGroupName"].endswith(f"-{role}-nsg"))  # fmt: skip


def sizes(plan: Plan) -> list[int]:
    return [s.inputs["sku"]["capacity"] for s in plan.of_type(VMSS)]


@pytest.mark.parametrize("stack", ["azure-ndv5", "azure-ndv5-h200"])
def test_scale_sets_sit_in_the_proximity_placement_group_with_single_placement_group(
    stack: str,
) -> None:
    plan = plan_for(stack)
    ppg = one(plan, PPG)
    assert ppg.inputs["zones"] == [plan.config.zone]
    assert ppg.inputs["intent"]["vmSizes"] == [plan.config.instance_type]
    for vmss in plan.of_type(VMSS):
        assert vmss.inputs["proximityPlacementGroup"]["id"] == ppg.id
        assert vmss.inputs["singlePlacementGroup"] is True
        assert vmss.inputs["orchestrationMode"] == "Uniform"
        assert vmss.inputs["overprovision"] is False
        assert vmss.inputs["zones"] == [plan.config.zone]
        assert vmss.inputs["sku"]["name"] == plan.config.instance_type
    assert sum(sizes(plan)) == plan.config.nodes


@pytest.mark.parametrize("stack", ["azure-ndv5", "azure-ndv5-h200"])
def test_managed_lustre_sits_in_the_storage_subnet_in_the_nodes_zone(stack: str) -> None:
    plan = plan_for(stack)
    fs = one(plan, AMLFS)
    storage = subnet(plan, "storage")
    assert fs.inputs["filesystemSubnet"] == storage.id
    assert storage.inputs["addressPrefix"] == plan.config.network.storage_subnet
    assert fs.inputs["zones"] == [plan.config.zone]
    cfg_storage: Any = plan.config.storage
    assert fs.inputs["sku"]["name"] == f"AMLFS-Durable-Premium-{cfg_storage.throughput_per_tib}"
    assert fs.inputs["storageCapacityTiB"] == cfg_storage.capacity_tib
    assert fs.inputs["maintenanceWindow"]["timeOfDayUTC"] == (
        cfg_storage.maintenance_window.time_of_day_utc
    )
    # no node shares the Lustre subnet
    for vmss in plan.of_type(VMSS):
        nic = vmss.inputs["virtualMachineProfile"]["networkProfile"]
        ip = nic["networkInterfaceConfigurations"][0]["ipConfigurations"][0]
        assert ip["subnet"]["id"] == subnet(plan, "compute").id


def test_256_nodes_become_scale_sets_of_at_most_100_each_one_partition_apiece() -> None:
    plan = plan_for("azure-ndv5", "gpufabric:nodes=256", "gpufabric:azure.allowSplit=true")
    assert sizes(plan) == [100, 100, 56]
    ppg = one(plan, PPG)
    assert {s.inputs["proximityPlacementGroup"]["id"] for s in plan.of_type(VMSS)} == {ppg.id}
    tags = sorted(s.inputs["tags"]["gpufabric:ibPartition"] for s in plan.of_type(VMSS))
    assert tags == ["0", "1", "2"]
    # VM instance ids restart in every set: hostnames stay unique only with distinct prefixes
    prefixes = {
        s.inputs["virtualMachineProfile"]["osProfile"]["computerNamePrefix"]
        for s in plan.of_type(VMSS)
    }
    assert len(prefixes) == 3
    parts = plan.outputs["nodes"]["groups"]
    assert [(p["partition"], p["count"]) for p in parts] == [(0, 100), (1, 100), (2, 56)]
    assert [p["name"] for p in parts] == [s.inputs["vmScaleSetName"] for s in plan.of_type(VMSS)]
    assert plan.outputs["nodes"]["count"] == 256
    facts = dict(fabric_summary(plan))
    assert facts["InfiniBand partitions"].startswith("3 scale sets = 3 InfiniBand partitions")
    assert "no InfiniBand between partitions" in facts["InfiniBand partitions"]


def test_raised_scale_set_limit_is_honoured() -> None:
    plan = plan_for("azure-ndv5", "gpufabric:nodes=256", "gpufabric:azure.maxVmsPerScaleSet=300")
    assert sizes(plan) == [256]


def test_resource_count_grows_with_partitions_not_with_nodes() -> None:
    small, full = plan_for("azure-ndv5"), plan_for("azure-ndv5", "gpufabric:nodes=100")
    assert len(small.resources) == len(full.resources)
    big = plan_for("azure-ndv5", "gpufabric:nodes=256", "gpufabric:azure.allowSplit=true")
    assert len(big.resources) == len(small.resources) + 2


@pytest.mark.parametrize("split", [(), ("gpufabric:azure.allowSplit=false",)])
def test_more_nodes_than_one_partition_are_refused_unless_split_is_allowed(
    split: tuple[str, ...],
) -> None:
    with pytest.raises(ConfigError) as err:
        plan_for("azure-ndv5", "gpufabric:nodes=125", *split)
    assert err.value.key == "gpufabric:nodes"
    assert "allowSplit is false" in str(err.value) and "2 scale sets" in str(err.value)


def test_nodes_have_accelerated_networking_and_no_public_ip() -> None:
    plan = plan_for("azure-ndv5")
    for vmss in plan.of_type(VMSS):
        nics = vmss.inputs["virtualMachineProfile"]["networkProfile"][
            "networkInterfaceConfigurations"
        ]
        assert [n["enableAcceleratedNetworking"] for n in nics] == [True]
        for ip in nics[0]["ipConfigurations"]:
            assert "publicIPAddressConfiguration" not in ip
    # the one public IP in the stack belongs to the NAT gateway
    pip = one(plan, PIP)
    assert one(plan, NAT).inputs["publicIpAddresses"] == [{"id": pip.id}]


def test_nodes_use_the_user_assigned_identity_and_key_only_login() -> None:
    plan = plan_for("azure-ndv5")
    identity = one(plan, IDENTITY)
    for vmss in plan.of_type(VMSS):
        assert vmss.inputs["identity"] == {
            "type": "UserAssigned",
            "userAssignedIdentities": [identity.id],
        }
        linux = vmss.inputs["virtualMachineProfile"]["osProfile"]["linuxConfiguration"]
        assert linux["disablePasswordAuthentication"] is True
        assert linux["ssh"]["publicKeys"][0]["keyData"] == plan.config.azure.ssh_public_key


def test_hpc_image_is_the_configured_one() -> None:
    def ref(plan: Plan) -> dict[str, Any]:
        profile = one(plan, VMSS).inputs["virtualMachineProfile"]
        return profile["storageProfile"]["imageReference"]

    assert ref(plan_for("azure-ndv5")) == {
        "publisher": "microsoft-dsvm",
        "offer": "ubuntu-hpc",
        "sku": "2204",
        "version": "latest",
    }
    urn = "almalinux:almalinux-hpc:8_10-hpc-gen2:latest"
    assert ref(plan_for("azure-ndv5", f"gpufabric:azure.image={urn}"))["offer"] == "almalinux-hpc"
    gallery = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/galleries/x/images/y"
    assert ref(plan_for("azure-ndv5", f"gpufabric:azure.image={gallery}")) == {"id": gallery}


CRG = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/cap/providers/"
    "Microsoft.Compute/capacityReservationGroups/crg1"
)


@pytest.mark.parametrize("stack", ["azure-ndv5", "azure-ndv5-h200"])
def test_capacity_reservation_is_refused_and_shipped_stacks_are_on_demand(stack: str) -> None:
    plan = plan_for(stack)
    assert plan.config.capacity.type == "on-demand"
    for vmss in plan.of_type(VMSS):
        assert "capacityReservation" not in vmss.inputs["virtualMachineProfile"]
    with pytest.raises(ConfigError) as err:
        plan_for(stack, f'gpufabric:capacity={{"type": "reservation", "reservationId": "{CRG}"}}')
    assert err.value.key == "gpufabric:capacity.type" and "ND-series" in str(err.value)


def test_component_refuses_a_capacity_reservation_even_without_the_cli() -> None:
    from gpufabric.clouds.azure.cluster import AzureCluster, AzureClusterArgs
    from gpufabric.config.model import CapacityConfig
    from gpufabric.plan.mocks import MockFacts, RecordingMocks

    pulumi.runtime.set_mocks(RecordingMocks(MockFacts("eastus", "1")), preview=False)
    good = plan_for("azure-ndv5").config
    reserved = CapacityConfig.model_construct(type="reservation", reservation_id=CRG)
    cfg = good.model_copy(update={"capacity": reserved})
    with pytest.raises(ValueError, match=r"AzureClusterArgs\.config: capacity type reservation"):
        AzureCluster("bad", AzureClusterArgs(config=cfg, instance=lookup(cfg.instance_type)))


def test_every_subnet_has_its_own_nsg_the_nat_and_no_default_outbound() -> None:
    plan = plan_for("azure-ndv5")
    nat = one(plan, NAT)
    vnet = one(plan, VNET)
    assert vnet.inputs["addressSpace"]["addressPrefixes"] == [plan.config.network.cidr]
    for role in ("compute", "storage", "management"):
        sub = subnet(plan, role)
        assert sub.inputs["networkSecurityGroup"]["id"] == nsg(plan, role).id
        assert sub.inputs["natGateway"]["id"] == nat.id
        assert sub.inputs["defaultOutboundAccess"] is False
        assert sub.inputs["virtualNetworkName"] == vnet.inputs["virtualNetworkName"]
    assert len({r.id for r in plan.resources}) == len(plan.resources)  # references resolve


def _inbound_allows(group: PlannedResource) -> list[dict[str, Any]]:
    return [
        r
        for r in group.inputs["securityRules"]
        if r["direction"] == "Inbound" and r["access"] == "Allow"
    ]


def test_no_nsg_admits_the_internet_and_each_ends_in_deny_all() -> None:
    plan = plan_for("azure-ndv5")
    for group in plan.of_type(NSG):
        for rule in _inbound_allows(group):
            assert rule["sourceAddressPrefix"] not in ("*", "Internet", "0.0.0.0/0"), rule
        last = max(group.inputs["securityRules"], key=lambda r: r["priority"])
        assert (last["name"], last["access"], last["sourceAddressPrefix"]) == (
            "deny-all-in",
            "Deny",
            "*",
        )


def test_compute_subnet_takes_cluster_traffic_lustre_and_admin_ssh_only() -> None:
    plan = plan_for("azure-ndv5")
    net = plan.config.network
    allowed = {
        (r["sourceAddressPrefix"], r.get("destinationPortRange"), tuple(r.get("destinationPortRanges", [])))
        for r in _inbound_allows(nsg(plan, "compute"))
    }  # fmt: skip
    assert allowed == {
        (net.fabric_subnet, "*", ()),
        (net.storage_subnet, None, ("988", "1019-1023")),
        (net.management_subnet, None, ("22",)),
        (net.management_cidr, None, ("22",)),
    }
    storage_in = {r["sourceAddressPrefix"] for r in _inbound_allows(nsg(plan, "storage"))}
    assert storage_in == {net.storage_subnet, net.fabric_subnet, "AzureMonitor"}
    storage_out = {
        r["destinationAddressPrefix"]
        for r in nsg(plan, "storage").inputs["securityRules"]
        if r["direction"] == "Outbound"
    }
    assert "AzureCloud" in storage_out  # Managed Lustre's control plane


def test_managed_lustre_subnet_admits_azure_monitor_from_port_443_only() -> None:
    rule = next(
        r
        for r in _inbound_allows(nsg(plan_for("azure-ndv5"), "storage"))
        if r["sourceAddressPrefix"] == "AzureMonitor"
    )
    assert rule["protocol"] == "Tcp" and rule["sourcePortRange"] == "443"
    assert rule["destinationAddressPrefix"] == plan_for("azure-ndv5").config.network.storage_subnet
    deny = next(
        r
        for r in nsg(plan_for("azure-ndv5"), "storage").inputs["securityRules"]
        if r["name"] == "deny-all-in"
    )
    assert rule["priority"] < deny["priority"]


def test_no_egress_means_no_nat_no_public_ip_and_internet_denied() -> None:
    plan = plan_for(
        "azure-ndv5", "gpufabric:network.egress=none", 'gpufabric:storage={"type": "none"}'
    )
    assert plan.of_type(NAT) == [] and plan.of_type(PIP) == [] and plan.of_type(AMLFS) == []
    assert plan.outputs.get("storage") is None  # exported as null, which the plan drops
    rules = nsg(plan, "compute").inputs["securityRules"]
    assert any(r["destinationAddressPrefix"] == "Internet" and r["access"] == "Deny" for r in rules)
    assert all("natGateway" not in s.inputs for s in plan.of_type(SUBNET))


def test_everything_lands_in_the_configured_resource_group_and_location() -> None:
    plan = plan_for("azure-ndv5-h200")
    group = one(plan, RG)
    assert group.inputs["resourceGroupName"] == plan.config.azure.resource_group
    for res in plan.resources:
        if res.type != RG:
            assert res.inputs["resourceGroupName"] == plan.config.azure.resource_group, res.name
        if "location" in res.inputs:
            assert res.inputs["location"] == plan.config.region
    assert one(plan, VMSS).inputs["tags"]["team"] == "llm-training"


def test_outputs_have_the_shared_shape_with_the_infiniband_profile() -> None:
    plan = plan_for("azure-ndv5")
    out = plan.outputs
    assert set(out) == set(EXPORTS)
    cluster = parse(out).cluster
    assert cluster.cloud == "azure" and cluster.fabric == "infiniband"
    assert cluster.region == "eastus" and cluster.zone == "1"
    assert cluster.encryption == plan.config.encryption
    assert cluster.resource_group == plan.config.azure.resource_group
    assert out["network"]["placementGroup"]["name"] == one(plan, PPG).name
    assert out["network"]["placementGroup"]["singlePlacementGroup"] is True
    assert out["storage"]["type"] == "azure-managed-lustre"
    assert out["storage"]["mgsAddress"] == "<azure-ndv5-lustre.mgsAddress>"  # from the service
    assert out["storage"]["mountPoint"] == "/lustre"


def test_summary_states_the_fabric_facts() -> None:
    facts = dict(fabric_summary(plan_for("azure-ndv5")))
    assert facts["InfiniBand partitions"] == "1 scale set = 1 InfiniBand partition (16 VMs)"
    assert facts["Placement"].startswith(
        "new proximity placement group azure-ndv5-ppg holding 1 scale set (single placement group"
    )
    scale_set = facts["Scale set azure-ndv5-ib0"]
    assert "single placement group on" in scale_set and "azure-ndv5-ppg" in scale_set
    assert "accelerated networking on" in facts["Node NIC"] and "no public IP" in facts["Node NIC"]
    assert "storage subnet 10.0.64.0/24 in zone 1 (same zone as the nodes)" in facts["Storage"]


def test_component_refuses_an_instance_type_of_another_cloud() -> None:
    from gpufabric.clouds.azure.cluster import AzureCluster, AzureClusterArgs
    from gpufabric.plan.mocks import MockFacts, RecordingMocks

    pulumi.runtime.set_mocks(RecordingMocks(MockFacts("eastus", "1")), preview=False)
    cfg = plan_for("azure-ndv5").config
    with pytest.raises(ValueError, match=r"AzureClusterArgs\.instance: p5\.48xlarge is a aws"):
        AzureCluster("bad", AzureClusterArgs(config=cfg, instance=lookup("p5.48xlarge")))


def test_component_refuses_a_forbidden_split_even_without_the_cli() -> None:
    from gpufabric.clouds.azure.cluster import AzureCluster, AzureClusterArgs
    from gpufabric.plan.mocks import MockFacts, RecordingMocks

    pulumi.runtime.set_mocks(RecordingMocks(MockFacts("eastus", "1")), preview=False)
    good = plan_for("azure-ndv5").config
    # model_copy skips validation on purpose: the component must check on its own
    cfg = good.model_copy(
        update={"nodes": 150, "azure": good.azure.model_copy(update={"allow_split": False})}
    )
    with pytest.raises(ValueError, match=r"AzureClusterArgs\.config: nodes=150 needs 2 scale sets"):
        AzureCluster("bad", AzureClusterArgs(config=cfg, instance=lookup(cfg.instance_type)))


@pytest.mark.parametrize(
    ("stack", "overrides"),
    [
        ("azure-ndv5", ()),
        ("azure-ndv5", ("gpufabric:nodes=256", "gpufabric:azure.allowSplit=true")),
        ("azure-ndv5-h200", ()),
    ],
)
def test_gpufabric_policies_pass_on_the_azure_plans(stack: str, overrides: tuple[str, ...]) -> None:
    from gpufabric.policies.offline import check_plan

    assert check_plan(plan_for(stack, *overrides)) == []


def test_summary_lists_partitions_in_numeric_order() -> None:
    plan = plan_for("azure-ndv5", "gpufabric:nodes=1024", "gpufabric:azure.allowSplit=true")
    facts = fabric_summary(plan)
    assert dict(facts)["InfiniBand partitions"].startswith(
        "11 scale sets = 11 InfiniBand partitions (" + " + ".join(["100"] * 10) + " + 24 VMs)"
    )
    order = [label for label, _ in facts if label.startswith("Scale set ")]
    assert order == [f"Scale set azure-ndv5-ib{i}" for i in range(11)]
