"""Azure's network and Managed Lustre beyond the shipped stacks: the VNet flow log, the NSG rules
with no egress and with no admin range, the subnets written one at a time, and the storage output
read from the service's client info (typed, wire-shaped or absent)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pulumi_azure_native.storagecache import outputs as amlfs_outputs
from tests.pulumi.plans import plan_for, registered_dependencies
from tests.unit.test_cluster_wiring import check_tree, planned

from gpufabric.clouds.azure.storage import describe
from gpufabric.plan import Plan, PlannedResource

NSG = "azure-native:network:NetworkSecurityGroup"
SUBNET = "azure-native:network:Subnet"
FLOW_LOG = "azure-native:network:FlowLog"
STORAGE_ID = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/logs/providers/"
    "Microsoft.Storage/storageAccounts/flowlogs1"
)
FLOW_LOGS = "gpufabric:network.flowLogs=" + json.dumps({"destination": STORAGE_ID})
NO_EGRESS = "gpufabric:network.egress=none"
NO_STORAGE = 'gpufabric:storage={"type": "none"}'
# the shipped network without managementCidr (no admin range reaches anything)
NO_ADMIN = "gpufabric:network=" + json.dumps(
    {
        "cidr": "10.0.0.0/16",
        "fabricSubnet": "10.0.0.0/18",
        "storageSubnet": "10.0.64.0/24",
        "managementSubnet": "10.0.65.0/24",
        "egress": "nat",
    }
)
MOUNT = "sudo mount -t lustre -o noatime,flock 10.0.64.4@tcp:/lustrefs /lustre"


def _nsg(plan: Plan, role: str) -> PlannedResource:
    (group,) = [
        g for g in plan.of_type(NSG) if g.inputs["networkSecurityGroupName"] == f"azure-ndv5-{role}-nsg"
    ]  # fmt: skip
    return group


def _rules(plan: Plan, role: str) -> list[tuple[Any, ...]]:
    """(name, priority, direction, access, protocol, source, source port, destination, ports)."""
    return [
        (
            r["name"], r["priority"], r["direction"], r["access"], r["protocol"],
            r["sourceAddressPrefix"], r["sourcePortRange"], r["destinationAddressPrefix"],
            r.get("destinationPortRange") or tuple(r["destinationPortRanges"]),
        )
        for r in _nsg(plan, role).inputs["securityRules"]
    ]  # fmt: skip


DENY_IN = ("deny-all-in", 4096, "Inbound", "Deny", "*", "*", "*", "*", "*")
NO_INTERNET = ("deny-internet-out", 4000, "Outbound", "Deny", "*", "*", "*", "Internet", "*")
COMPUTE, STORAGE, MANAGEMENT, ADMIN = "10.0.0.0/18", "10.0.64.0/24", "10.0.65.0/24", "10.250.0.0/24"
LUSTRE = ("988", "1019-1023")
COMPUTE_ADMIN_SSH = ("ssh-from-admin", 130, "Inbound", "Allow", "Tcp", ADMIN, "*", COMPUTE, ("22",))
MANAGEMENT_ADMIN_SSH = (
    "ssh-from-admin", 100, "Inbound", "Allow", "Tcp", ADMIN, "*", MANAGEMENT, ("22",)
)  # fmt: skip
AZURE_CLOUD_OUT = (
    "azure-cloud-out", 120, "Outbound", "Allow", "*", STORAGE, "*", "AzureCloud", "*"
)  # fmt: skip


# ------------------------------------------------------------------ flow log


def test_flow_log_goes_through_the_regions_network_watcher_under_the_cluster() -> None:
    plan, tree = planned("azure-ndv5", FLOW_LOGS)
    check_tree(plan, tree, "azure")  # the flow log too sits under the cluster component
    (log,) = plan.of_type(FLOW_LOG)
    assert log.name == "azure-ndv5-flow-log"
    assert log.inputs == {
        "enabled": True,
        "flowLogName": "azure-ndv5-vnet",
        "location": "eastus",
        "networkWatcherName": "NetworkWatcher_eastus",
        "resourceGroupName": "NetworkWatcherRG",  # where Azure keeps the region's watcher
        "storageId": STORAGE_ID,
        "tags": {"gpufabric:cluster": "azure-ndv5", "gpufabric:stack": "azure-ndv5"},
        "targetResourceId": "<azure-ndv5-vnet.id>",
    }
    assert plan_for("azure-ndv5").of_type(FLOW_LOG) == []  # off unless asked


# ------------------------------------------------------------------ security rules


def test_each_nsg_has_exactly_its_rules_with_nat_egress_and_an_admin_range() -> None:
    plan = plan_for("azure-ndv5")
    assert _rules(plan, "compute") == [
        ("cluster-in", 100, "Inbound", "Allow", "*", COMPUTE, "*", COMPUTE, "*"),
        ("lustre-in", 110, "Inbound", "Allow", "Tcp", STORAGE, "*", COMPUTE, LUSTRE),
        ("ssh-from-management-subnet", 120, "Inbound", "Allow", "Tcp", MANAGEMENT, "*", COMPUTE, ("22",)),
        ("cluster-out", 100, "Outbound", "Allow", "*", COMPUTE, "*", COMPUTE, "*"),
        ("lustre-out", 110, "Outbound", "Allow", "Tcp", COMPUTE, "*", STORAGE, LUSTRE),
        COMPUTE_ADMIN_SSH,
        DENY_IN,
    ]  # fmt: skip
    assert _rules(plan, "storage") == [
        ("lustre-hosts-in", 100, "Inbound", "Allow", "*", STORAGE, "*", STORAGE, "*"),
        ("lustre-clients-in", 110, "Inbound", "Allow", "Tcp", COMPUTE, "*", STORAGE, LUSTRE),
        ("azure-monitor-in", 120, "Inbound", "Allow", "Tcp", "AzureMonitor", "443", STORAGE, "*"),
        ("lustre-hosts-out", 100, "Outbound", "Allow", "*", STORAGE, "*", STORAGE, "*"),
        ("lustre-clients-out", 110, "Outbound", "Allow", "Tcp", STORAGE, "*", COMPUTE, LUSTRE),
        AZURE_CLOUD_OUT,
        DENY_IN,
    ]  # fmt: skip
    assert _rules(plan, "management") == [MANAGEMENT_ADMIN_SSH, DENY_IN]


def test_a_rule_with_ports_names_them_and_no_single_range() -> None:
    plan = plan_for("azure-ndv5")
    for group in plan.of_type(NSG):
        for rule in group.inputs["securityRules"]:
            ranges = rule.get("destinationPortRanges")
            # Azure takes one of the two: a list of ports, or one range ("*": every port)
            assert ("destinationPortRange" in rule) != bool(ranges), rule


def test_without_egress_compute_and_management_deny_the_internet_storage_keeps_azure_cloud() -> (
    None
):
    plan = plan_for("azure-ndv5", NO_EGRESS, NO_STORAGE)
    compute = _rules(plan, "compute")
    assert compute[-2:] == [NO_INTERNET, DENY_IN]
    assert COMPUTE_ADMIN_SSH in compute
    assert _rules(plan, "management") == [MANAGEMENT_ADMIN_SSH, NO_INTERNET, DENY_IN]
    storage = _rules(plan, "storage")
    assert NO_INTERNET not in storage  # Managed Lustre's control plane needs AzureCloud
    assert AZURE_CLOUD_OUT in storage
    for sub in plan.of_type(SUBNET):
        assert "natGateway" not in sub.inputs and sub.inputs["defaultOutboundAccess"] is False


def test_without_an_admin_range_no_admin_rule_and_management_only_denies() -> None:
    plan = plan_for("azure-ndv5", NO_ADMIN)
    assert plan.config.network.management_cidr is None
    compute = _rules(plan, "compute")
    assert [r[0] for r in compute] == [
        "cluster-in", "lustre-in", "ssh-from-management-subnet", "cluster-out", "lustre-out",
        "deny-all-in",
    ]  # fmt: skip
    assert _rules(plan, "management") == [DENY_IN]


def test_without_egress_or_admin_range_management_denies_everything_but_its_own() -> None:
    plan = plan_for("azure-ndv5", NO_ADMIN, NO_EGRESS, NO_STORAGE)
    assert _rules(plan, "management") == [NO_INTERNET, DENY_IN]
    assert _rules(plan, "compute")[-2:] == [NO_INTERNET, DENY_IN]


# ------------------------------------------------------------------ subnets one at a time


@pytest.mark.parametrize("overrides", [(), (NO_EGRESS, NO_STORAGE)])
def test_subnets_are_written_one_after_another(overrides: tuple[str, ...]) -> None:
    """Azure refuses concurrent writes to one VNet: each subnet waits for the one before it."""
    waits = registered_dependencies("azure-ndv5", *overrides)
    subnets = [name for typ, name in waits if typ == SUBNET]
    assert sorted(subnets) == ["azure-ndv5-compute", "azure-ndv5-management", "azure-ndv5-storage"]
    after = {name: {n for t, n in waits[(SUBNET, name)] if t == SUBNET} for name in subnets}
    assert after == {
        "azure-ndv5-compute": set(),
        "azure-ndv5-storage": {"azure-ndv5-compute"},
        "azure-ndv5-management": {"azure-ndv5-storage"},
    }


# ------------------------------------------------------------------ storage output


def _describe(info: Any) -> dict[str, Any]:
    cfg: Any = plan_for("azure-ndv5").config
    return describe(cfg, cfg.storage, info)


def _typed(mount_command: str) -> Any:
    return amlfs_outputs.AmlFilesystemClientInfoResponse(
        container_storage_interface=None,  # type: ignore[arg-type]
        lustre_version="2.15.6",
        mgs_address="10.0.64.4",
        mount_command=mount_command,
    )


EXPECTED = {
    "type": "azure-managed-lustre",
    "dnsName": "10.0.64.4",
    "mgsAddress": "10.0.64.4",
    "mountName": "lustrefs",
    "mountPoint": "/lustre",
    "mountCommand": MOUNT,
    "lustreVersion": "2.15.6",
    "sku": "AMLFS-Durable-Premium-250",
    "capacityTib": 128,
    "throughputMBps": 32000,  # 128 TiB x 250 MB/s/TiB
    "zone": "1",
}


def test_storage_output_from_the_typed_client_info() -> None:
    assert _describe(_typed(MOUNT)) == EXPECTED


def test_storage_output_from_the_wire_shaped_client_info() -> None:
    wire = {"mgsAddress": "10.0.64.4", "mountCommand": MOUNT, "lustreVersion": "2.15.6"}
    assert _describe(wire) == EXPECTED


def test_storage_output_before_the_service_answers_keeps_the_configured_facts() -> None:
    service = {"dnsName", "mgsAddress", "mountName", "mountCommand", "lustreVersion"}
    for info in (None, {}, object()):
        out = _describe(info)
        assert {k: out[k] for k in service} == dict.fromkeys(service), info
        assert {k: v for k, v in out.items() if k not in service} == {
            k: v for k, v in EXPECTED.items() if k not in service
        }


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("mount -t lustre 10.0.64.4@tcp:/lustrefs /lustre", "lustrefs"),
        ("mount -t lustre 10.0.64.4@tcp:/fs2/project /mnt/p", "fs2"),  # a subdirectory mount
        ("mount -t lustre 10.0.64.4@tcp:/ /lustre", None),  # no file system name
        ("mount -t nfs 10.0.64.4:/lustrefs /lustre", None),  # not a Lustre TCP mount
    ],
)
def test_mount_name_is_the_file_system_after_the_mgs_nid(command: str, name: str | None) -> None:
    assert _describe(_typed(command))["mountName"] == name
