"""Nebius rules at their edges: what is accepted right at a limit, and the whole line a user reads
one step past it (region, reservation id, flow logs, filesystem size, block size and mount
tag). In-process, no Pulumi."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.config_lines import config_line
from tests.unit.test_config_nebius import BASE, FS

OK = "ok (gpu-h100-sxm/8gpu-128vcpu-1600gb x 16)"
RESERVATION = "must be a Nebius reservation (capacity block group) id"
BLOCK = "a power of two from 4096 to 131072 (4 KiB-128 KiB)"
TAG = "1-36 lowercase letters, digits or '-', starting with a letter (a virtiofs tag)"


def _line(override: dict[str, Any]) -> str:
    return config_line(BASE, override)


def _fs(**kw: Any) -> dict[str, Any]:
    return {"gpufabric:storage": {**FS, **kw}}


def _reservation(rid: str) -> dict[str, Any]:
    return {"gpufabric:capacity": {"type": "reservation", "reservationId": rid}}


CASES: list[tuple[str, dict[str, Any], str]] = [
    ("zone in capitals", {"gpufabric:zone": "EU-north1"}, "gpufabric:zone: 'EU-north1' is not valid; expected a Nebius region like eu-north1"),
    ("a provider region other than the zone", {"gcp:region": "eu-west1"},
     "gpufabric:zone: 'eu-north1' is not valid; Nebius has no zones below a region: use the "
     "region eu-west1"),
    ("flow logs", {"gpufabric:network": {"egress": "none", "flowLogs": {}}},
     "gpufabric:network.flowLogs: {'destination': None} is not valid; not available on nebius in "
     "gpufabric; remove it"),
    ("reservation id of 3", _reservation("cbg"), OK),
    ("reservation id of 2", _reservation("cb"), f"gpufabric:capacity.reservationId: 'cb' is not valid; {RESERVATION}"),
    ("reservation id of 63", _reservation("c" * 63), OK),
    ("reservation id of 64", _reservation("c" * 64), f"gpufabric:capacity.reservationId: {'c' * 64!r} is not valid; {RESERVATION}"),
    ("filesystem of 1 GiB", _fs(sizeGib=1), OK),
    ("filesystem of 0 GiB", _fs(sizeGib=0), "gpufabric:storage.sizeGib: 0 is not valid; must be at least 1 GiB"),
    ("WEKA", _fs(filesystemType="WEKA"), OK),
    ("NETWORK_HDD", _fs(filesystemType="NETWORK_HDD"), OK),
    ("block size 4096", _fs(blockSizeBytes=4096), OK),
    ("block size 131072", _fs(blockSizeBytes=131072), OK),
    ("block size 2048", _fs(blockSizeBytes=2048), f"gpufabric:storage.blockSizeBytes: 2048 is not valid; {BLOCK}"),
    ("mount tag of 36", _fs(mountTag="a" * 36), OK),
    ("mount tag of 37", _fs(mountTag="a" * 37), f"gpufabric:storage.mountTag: {'a' * 37!r} is not valid; {TAG}"),
    ("mount tag starting with a digit", _fs(mountTag="1a"), f"gpufabric:storage.mountTag: '1a' is not valid; {TAG}"),
    ("no storage", {"gpufabric:storage": {"type": "none"}}, OK),
]  # fmt: skip


@pytest.mark.parametrize(("case", "override", "line"), CASES, ids=[c[0] for c in CASES])
def test_rule_edge(case: str, override: dict[str, Any], line: str) -> None:
    assert _line(override) == line
