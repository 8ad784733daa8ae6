"""GCP rules at their edges: what is accepted right at a limit, and the whole line a user reads
one step past it (GPU address plan, second host range, reservations, labels, flow logs, boot
mode, Parallelstore and Filestore bands). In-process, no Pulumi."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.config_lines import config_line
from tests.unit.test_config_gcp import BASE, GCP, NETWORK

ULTRA = "a3-ultragpu-8g"  # 8 GPU NICs, 2 host NICs (a second host range)
SA = "nodes@my-gpu-project.iam.gserviceaccount.com"
PSA24 = {**NETWORK, "storageSubnet": "10.0.32.0/24"}


def _line(override: dict[str, Any]) -> str:
    return config_line(BASE, override)


def _gcp(**kw: Any) -> dict[str, Any]:
    return {"gpufabric:gcp": {**GCP, **kw}}


def _instances(itype: str, **capacity: Any) -> dict[str, Any]:
    return {
        "gpufabric:instanceType": itype,
        "gpufabric:nodeGroup": "instances",
        "gpufabric:capacity": {"type": "reservation", **capacity},
    }


def _store(**storage: Any) -> dict[str, Any]:
    return {"gpufabric:network": PSA24, "gpufabric:storage": storage}


GPU = "gpufabric:gcp.gpuCidr"
SPLIT = (
    "too small to split into 8 GPU subnets of at least /29 (GCP's smallest); use a /26 or larger"
)
ROOM = "(GCP reserves 4 addresses in every subnet)"
RES_NAME = (
    "must be a reservation name (e.g. a3mega-res), optionally projects/PROJECT/reservations/NAME"
    "[/reservationBlocks/BLOCK[/reservationSubBlocks/SUBBLOCK]]"
)
SHARED = (
    "compact placement policies work only with single-project reservations, not ones shared "
    "from another project; use nodeGroup group"
)
PS_BAND = "a multiple of 4000 GiB from 12000 to 100000"

CASES: list[tuple[str, dict[str, Any], str]] = [
    # GPU address plan: 8 NICs take 3 bits; each part at least a /29 holding 4 nodes
    ("gpu /26, 4 nodes", {"gpufabric:nodes": 4, **_gcp(gpuCidr="10.128.0.0/26")}, "ok (a3-megagpu-8g x 4)"),
    ("gpu /26, 5 nodes", {"gpufabric:nodes": 5, **_gcp(gpuCidr="10.128.0.0/26")},
     f"{GPU}: '10.128.0.0/26' is not valid; each of its 8 GPU subnets (/29) has room for 4 nodes "
     f"{ROOM}: it cannot hold 5 nodes"),
    ("gpu /27", {"gpufabric:nodes": 4, **_gcp(gpuCidr="10.128.0.0/27")}, f"{GPU}: '10.128.0.0/27' is not valid; {SPLIT}"),
    ("gpu /30", {"gpufabric:nodes": 1, **_gcp(gpuCidr="10.128.0.0/30")}, f"{GPU}: '10.128.0.0/30' is not valid; {SPLIT}"),
    ("gpu /27 on 4 NICs", {"gpufabric:instanceType": "a3-highgpu-8g", "gpufabric:nodes": 4, **_gcp(gpuCidr="10.128.0.0/27")},
     "ok (a3-highgpu-8g x 4)"),
    ("gpu /24, 64 nodes", {"gpufabric:nodes": 64, **_gcp(gpuCidr="10.128.0.0/24")},
     f"{GPU}: '10.128.0.0/24' is not valid; each of its 8 GPU subnets (/27) has room for 28 nodes "
     f"{ROOM}: it cannot hold 64 nodes"),
    # the second host range exists only where the machine has two host NICs
    ("one host NIC: gpu range on the unused second range", _gcp(gpuCidr="10.1.0.0/16"), "ok (a3-megagpu-8g x 16)"),
    ("one host NIC: unused second range inside the VPC", _gcp(secondaryHostCidr="10.0.0.0/16"), "ok (a3-megagpu-8g x 16)"),
    ("one host NIC: unused second range too small", _gcp(secondaryHostCidr="10.1.0.0/29"), "ok (a3-megagpu-8g x 16)"),
    ("two host NICs: gpu range on the second range", {"gpufabric:instanceType": ULTRA, **_gcp(gpuCidr="10.1.0.0/16")},
     f"{GPU}: '10.1.0.0/16' is not valid; overlaps gpufabric:gcp.secondaryHostCidr 10.1.0.0/16"),
    ("two host NICs: second range inside the VPC", {"gpufabric:instanceType": ULTRA, **_gcp(secondaryHostCidr="10.0.0.0/20")},
     "gpufabric:gcp.secondaryHostCidr: '10.0.0.0/20' is not valid; overlaps gpufabric:network.cidr "
     "10.0.0.0/16"),
    ("two host NICs: /28 holds 12", {"gpufabric:instanceType": ULTRA, "gpufabric:nodes": 12, **_gcp(secondaryHostCidr="10.1.0.0/28")},
     "ok (a3-ultragpu-8g x 12)"),
    ("two host NICs: /28 for 13", {"gpufabric:instanceType": ULTRA, "gpufabric:nodes": 13, **_gcp(secondaryHostCidr="10.1.0.0/28")},
     "gpufabric:gcp.secondaryHostCidr: '10.1.0.0/28' is not valid; this range has room for 12 nodes "
     f"{ROOM}: it cannot hold 13 nodes"),
    # reservations: each of several is checked as one; a dense one only from this project
    ("several reservations, one misnamed", _instances("a3-megagpu-8g", reservations=[{"id": "res-a", "nodes": 8}, {"id": "Res_B", "nodes": 8}]),
     f"gpufabric:capacity.reservations: 'Res_B' is not valid; {RES_NAME}"),
    ("several dense reservations, one shared", _instances(ULTRA, reservations=[{"id": "res-a", "nodes": 8}, {"id": "projects/other-proj/reservations/b", "nodes": 8}]),
     f"gpufabric:capacity.reservations: 'projects/other-proj/reservations/b' is not valid; {SHARED}"),
    ("several dense reservations of this project", _instances(ULTRA, reservations=[{"id": "res-a", "nodes": 8}, {"id": "projects/my-gpu-project/reservations/b", "nodes": 8}]),
     "ok (a3-ultragpu-8g x 16)"),
    ("dense reservation by bare name", _instances(ULTRA, reservationId="a3u-res"), "ok (a3-ultragpu-8g x 16)"),
    ("dense reservation shared, managed group", {**_instances(ULTRA, reservationId="projects/other-proj/reservations/b"), "gpufabric:nodeGroup": "group"},
     "ok (a3-ultragpu-8g x 16)"),
    ("maxDistance 1 on A3 Mega", {"gpufabric:nodeGroup": "instances", **_gcp(maxDistance=1)},
     "gpufabric:gcp.maxDistance: 1 is not valid; a3-megagpu-8g cannot use maxDistance 1; use 2 or 3"),
    # labels
    ("label value with capitals", {"gpufabric:tags": {"team": "ML"}},
     "gpufabric:tags.team: 'ML' is not valid; GCP label values are up to 63 lowercase letters, "
     "digits, '_' or '-'"),
    ("label value empty, or of 63", {"gpufabric:tags": {"team": "", "owner": "a" * 63}}, "ok (a3-megagpu-8g x 16)"),
    ("label value of 64", {"gpufabric:tags": {"team": "a" * 64}},
     f"gpufabric:tags.team: {'a' * 64!r} is not valid; GCP label values are up to 63 lowercase "
     "letters, digits, '_' or '-'"),
    ("label key starting with a digit", {"gpufabric:tags": {"1team": "ml"}},
     "gpufabric:tags: '1team' is not valid; GCP label keys are 1-63 lowercase letters, digits, "
     "'_' or '-', starting with a letter"),
    # flow logs and boot mode
    ("flow logs, no destination", {"gpufabric:network": {**NETWORK, "flowLogs": {}}}, "ok (a3-megagpu-8g x 16)"),
    ("flow logs to a bucket", {"gpufabric:network": {**NETWORK, "flowLogs": {"destination": "gs://b"}}},
     "gpufabric:network.flowLogs.destination: 'gs://b' is not valid; leave it unset on GCP: "
     "subnet flow logs go to Cloud Logging"),
    ("boot without a service account", {"gpufabric:boot": {"enabled": True}},
     "gpufabric:gcp.serviceAccount: None is not valid; boot mode lets only the nodes' service "
     "account read the bundle: name one (gpufabric:boot.enabled)"),
    ("boot with a service account", {"gpufabric:boot": {"enabled": True}, **_gcp(serviceAccount=SA)}, "ok (a3-megagpu-8g x 16)"),
    # Parallelstore and Filestore bands, at both ends
    ("parallelstore PERSISTENT 12000", _store(type="parallelstore", deploymentType="PERSISTENT", capacityGib=12000), "ok (a3-megagpu-8g x 16)"),
    ("parallelstore 100000", _store(type="parallelstore", capacityGib=100000), "ok (a3-megagpu-8g x 16)"),
    ("parallelstore 8000", _store(type="parallelstore", capacityGib=8000), f"gpufabric:storage.capacityGib: 8000 is not valid; {PS_BAND}"),
    ("parallelstore 104000", _store(type="parallelstore", capacityGib=104000), f"gpufabric:storage.capacityGib: 104000 is not valid; {PS_BAND}"),
    ("parallelstore in a /25", {**_store(type="parallelstore"), "gpufabric:network": {**NETWORK, "storageSubnet": "10.0.32.0/25"}},
     "gpufabric:network.storageSubnet: '10.0.32.0/25' is not valid; the private-service-access "
     "range for parallelstore must be a /24 or larger"),
    ("lustre in a /23", {"gpufabric:network": {**NETWORK, "storageSubnet": "10.0.32.0/23"}}, "ok (a3-megagpu-8g x 16)"),
    ("filestore BASIC_HDD 1024", _store(type="filestore", tier="BASIC_HDD", capacityGib=1024), "ok (a3-megagpu-8g x 16)"),
    ("filestore BASIC_HDD 65434", _store(type="filestore", tier="BASIC_HDD", capacityGib=65434), "ok (a3-megagpu-8g x 16)"),
    ("filestore BASIC_HDD 1023", _store(type="filestore", tier="BASIC_HDD", capacityGib=1023),
     "gpufabric:storage.capacityGib: 1023 is not valid; BASIC_HDD takes 1024-65434 GiB"),
    ("filestore ZONAL 1024", _store(type="filestore", tier="ZONAL", capacityGib=1024), "ok (a3-megagpu-8g x 16)"),
    ("filestore ZONAL 1100", _store(type="filestore", tier="ZONAL", capacityGib=1100),
     "gpufabric:storage.capacityGib: 1100 is not valid; ZONAL takes 1024-9984 GiB in steps of 256 "
     "or 10240-102400 GiB in steps of 2560"),
    ("filestore share name", _store(type="filestore", shareName="Share-1"),
     "gpufabric:storage.shareName: 'Share-1' is not valid; 1-16 lowercase letters, digits or '_', "
     "starting with a letter"),
    ("filestore share name of 16", _store(type="filestore", shareName="s" * 16), "ok (a3-megagpu-8g x 16)"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "override", "line"), CASES, ids=[c[0] for c in CASES])
def test_rule_edge(case: str, override: dict[str, Any], line: str) -> None:
    assert _line(override) == line
