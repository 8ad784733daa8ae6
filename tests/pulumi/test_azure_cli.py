"""`gpufabric plan` on the Azure stacks from the outside: the promised behaviour."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
VMSS = "azure-native:compute:VirtualMachineScaleSet"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}  # rich wraps table cells at the terminal width
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def plan_json(*args: str) -> dict[str, Any]:
    result = run("plan", *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def of_type(doc: dict[str, Any], token: str) -> list[dict[str, Any]]:
    return [r for r in doc["resources"] if r["type"] == token]


def test_json_plan_shows_scale_set_in_ppg_with_single_placement_group_and_lustre_in_storage() -> (
    None
):
    doc = plan_json("-s", "azure-ndv5")
    ppg = of_type(doc, "azure-native:compute:ProximityPlacementGroup")
    assert len(ppg) == 1
    sets = of_type(doc, VMSS)
    assert sets
    for vmss in sets:
        assert vmss["inputs"]["singlePlacementGroup"] is True
        assert vmss["inputs"]["proximityPlacementGroup"] == {"id": ppg[0]["id"]}
    (lustre,) = of_type(doc, "azure-native:storagecache:AmlFilesystem")
    subnets = {s["id"]: s for s in of_type(doc, "azure-native:network:Subnet")}
    assert subnets[lustre["inputs"]["filesystemSubnet"]]["inputs"]["subnetName"] == "storage"


def test_256_nodes_give_scale_sets_of_at_most_100() -> None:
    doc = plan_json(
        "-s", "azure-ndv5", "-c", "gpufabric:nodes=256", "-c", "gpufabric:azure.allowSplit=true"
    )
    counts = [s["inputs"]["sku"]["capacity"] for s in of_type(doc, VMSS)]
    assert sum(counts) == 256 and max(counts) <= 100 and len(counts) == 3


@pytest.mark.parametrize(
    ("stack", "override", "key"),
    [
        ("azure-ndv5-h200", "gpufabric:nodes=256", "gpufabric:nodes"),  # allowSplit: false
        ("azure-ndv5", "gpufabric:nodes=125", "gpufabric:nodes"),  # the default refuses a split
        (
            "azure-ndv5",
            'gpufabric:capacity={"type": "reservation", "reservationId": "/subscriptions/s/'
            'resourceGroups/r/providers/Microsoft.Compute/capacityReservationGroups/g"}',
            "gpufabric:capacity.type",
        ),
        ("azure-ndv5", "gpufabric:zone=4", "gpufabric:zone"),
        ("azure-ndv5", "gpufabric:storage.capacityTib=20", "gpufabric:storage.capacityTib"),
        ("azure-ndv5", "gpufabric:encryption=provider-native", "gpufabric:encryption"),
        (
            "azure-ndv5",
            "gpufabric:azure.maxVmsPerScaleSet=500",
            "gpufabric:azure.maxVmsPerScaleSet",
        ),
    ],
)
def test_bad_override_exits_2_with_one_line_naming_the_key(
    stack: str, override: str, key: str
) -> None:
    result = run("plan", "-s", stack, "-c", override)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {key}:")
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_human_plan_states_partitions_plainly() -> None:
    result = run(
        "plan",
        "-s",
        "azure-ndv5",
        "-c",
        "gpufabric:nodes=256",
        "-c",
        "gpufabric:azure.allowSplit=true",
    )
    assert result.returncode == 0, result.stderr
    assert "offline preview" in result.stdout
    assert "3 scale sets = 3 InfiniBand partitions (100 + 100 + 56 VMs)" in result.stdout
    assert "no InfiniBand between partitions" in result.stdout
