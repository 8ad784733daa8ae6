"""Azure rules at their edges: what is accepted right at a limit, and the whole line a user reads
one step past it (location, flow logs, scale-set size, the RDMA range, Managed Lustre SKU steps,
its subnet size and maintenance time). In-process, no Pulumi."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.config_lines import config_line
from tests.unit.test_config_azure import AMLFS, AZ, BASE

SIZE = "Standard_ND96isr_H100_v5"
OK = f"ok ({SIZE} x 16)"
STORAGE_ACCOUNT = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/logs/providers/"
    "Microsoft.Storage/storageAccounts/flowlogs1"
)
FLOW = (
    "on Azure the storage account's resource id, /subscriptions/<id>/resourceGroups/<rg>"
    "/providers/Microsoft.Storage/storageAccounts/<name>"
)
TIME = "must be HH:MM in 24-hour UTC, e.g. 02:00"
SPLIT = (
    "gpufabric:nodes: 101 is not valid; more than gpufabric:azure.maxVmsPerScaleSet=100 VMs in "
    "one InfiniBand partition, and gpufabric:azure.allowSplit is false; use at most 100 nodes, "
    "allow the split into 2 scale sets (= 2 InfiniBand partitions, no InfiniBand between them), "
    "or raise maxVmsPerScaleSet (up to 300 after a support request)"
)
RDMA_FREE = {
    "cidr": "172.15.0.0/16",
    "fabricSubnet": "172.15.0.0/18",
    "storageSubnet": "172.15.64.0/24",
    "managementSubnet": "172.15.65.0/24",
    "egressSubnet": "172.15.66.0/28",
}


def _line(override: dict[str, Any]) -> str:
    return config_line(BASE, override)


def _amlfs(subnet: str | None = None, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"gpufabric:storage": {**AMLFS, **kw}}
    if subnet is not None:
        out["gpufabric:network"] = {"storageSubnet": subnet}
    return out


def _split(nodes: int, allow: bool) -> dict[str, Any]:
    return {
        "gpufabric:nodes": nodes,
        "gpufabric:azure": {**AZ, "allowSplit": allow, "maxVmsPerScaleSet": 100},
    }


def _subnet(subnet: str, tib: int, prefix: int) -> str:
    return (
        f"gpufabric:network.storageSubnet: {subnet!r} is not valid; Azure Managed Lustre of "
        f"{tib} TiB needs a dedicated subnet of /{prefix} or larger"
    )


CASES: list[tuple[str, dict[str, Any], str]] = [
    # location: a hint only when there is a location name to suggest
    ("location with '_'", {"azure-native:location": "East_US2"},
     "azure-native:location: 'East_US2' is not valid; expected an Azure location name like eastus "
     "or westeurope (did you mean 'eastus2'?)"),
    ("location starting with a digit", {"azure-native:location": "2eastus"},
     "azure-native:location: '2eastus' is not valid; expected an Azure location name like eastus "
     "or westeurope"),
    # flow logs go to a storage account
    ("flow logs to a storage account", {"gpufabric:network": {"flowLogs": {"destination": STORAGE_ACCOUNT}}}, OK),
    ("flow logs without a destination", {"gpufabric:network": {"flowLogs": {}}},
     f"gpufabric:network.flowLogs.destination: None is not valid; {FLOW}"),
    ("flow logs to another resource type", {"gpufabric:network": {"flowLogs": {"destination": STORAGE_ACCOUNT.replace("Storage", "Compute")}}},
     f"gpufabric:network.flowLogs.destination: {STORAGE_ACCOUNT.replace('Storage', 'Compute')!r} is not valid; {FLOW}"),
    # the VNet next to Azure's RDMA range; egress
    ("VNet just below the RDMA range", {"gpufabric:network": RDMA_FREE}, OK),
    ("no egress without storage", {"gpufabric:network": {"egress": "none"}, "gpufabric:storage": {"type": "none"}}, OK),
    # one scale set = one InfiniBand partition
    ("nodes at the scale-set limit", _split(100, allow=False), f"ok ({SIZE} x 100)"),
    ("nodes one past it", _split(101, allow=False), SPLIT),
    ("nodes past it, split allowed", _split(101, allow=True), f"ok ({SIZE} x 101)"),
    ("individual instances", {"gpufabric:nodeGroup": "instances"},
     "gpufabric:nodeGroup: 'instances' is not valid; on Azure use group: InfiniBand is only set "
     "up inside one VM scale set (single placement group)"),
    # Managed Lustre: the SKU's top step, and the subnet size at each edge of the table
    ("AMLFS-500 at 128 TiB", _amlfs(throughputPerTib=500, capacityTib=128), OK),
    ("AMLFS-500 at 132 TiB", _amlfs(throughputPerTib=500, capacityTib=132),
     "gpufabric:storage.capacityTib: 132 is not valid; AMLFS-Durable-Premium-500 needs at least "
     "4 TiB, in steps of 4 TiB, up to 128 TiB (larger only by support request)"),
    ("16 TiB in a /27", _amlfs("10.0.64.0/27", throughputPerTib=500, capacityTib=16), OK),
    ("20 TiB in a /27", _amlfs("10.0.64.0/27", throughputPerTib=500, capacityTib=20), _subnet("10.0.64.0/27", 20, 26)),
    ("40 TiB in a /26", _amlfs("10.0.64.0/26", throughputPerTib=500, capacityTib=40), OK),
    ("44 TiB in a /26", _amlfs("10.0.64.0/26", throughputPerTib=500, capacityTib=44), _subnet("10.0.64.0/26", 44, 25)),
    ("384 TiB in a /23", _amlfs("10.0.68.0/23", throughputPerTib=40, capacityTib=384), OK),
    ("432 TiB (past the table) in a /23", _amlfs("10.0.68.0/23", throughputPerTib=40, capacityTib=432), _subnet("10.0.68.0/23", 432, 22)),
    ("768 TiB in a /22", _amlfs("10.0.68.0/22", throughputPerTib=40, capacityTib=768), OK),
    ("maintenance at 23:59", _amlfs(maintenanceWindow={"timeOfDayUtc": "23:59"}), OK),
    ("maintenance at 24:00", _amlfs(maintenanceWindow={"timeOfDayUtc": "24:00"}),
     f"gpufabric:storage.maintenanceWindow.timeOfDayUtc: '24:00' is not valid; {TIME}"),
    ("maintenance at 2:00", _amlfs(maintenanceWindow={"timeOfDayUtc": "2:00"}),
     f"gpufabric:storage.maintenanceWindow.timeOfDayUtc: '2:00' is not valid; {TIME}"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "override", "line"), CASES, ids=[c[0] for c in CASES])
def test_rule_edge(case: str, override: dict[str, Any], line: str) -> None:
    assert _line(override) == line
