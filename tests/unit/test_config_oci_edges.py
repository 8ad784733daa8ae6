"""OCI rules at their edges: what is accepted right at a limit, and the whole line a user reads
one step past it (region and availability domain, cluster-network size, capacity reservation,
boot mode, Lustre capacity steps, the Lustre subnet and its suggested size, keys). In-process,
no Pulumi."""

from __future__ import annotations

from typing import Any

import pytest
from tests.unit.config_lines import config_line
from tests.unit.test_config_oci import AD, BASE, ISLAND, LUSTRE, OCI, RES

from gpufabric.clouds.oci.rules import lustre_addresses

OK = "ok (BM.GPU.H100.8 x 16)"
IMAGE = "ocid1.image.oc1.iad.aaaaaaaaexampleimage"
VAULT_KEY = "ocid1.key.oc1.iad.aaaaaaaaexamplekey"
BLOCK = "ocid1.computenetworkblock.oc1.iad.aaaaaaaaexampleblock"
STEPS = "OCI Lustre takes 31200 GB, then steps of 10400 GB up to 124800, then steps of 41600 GB"
AD_NAME = (
    "expected an availability domain name like Uocm:US-ASHBURN-AD-1 "
    "(oci iam availability-domain list)"
)


def _line(override: dict[str, Any]) -> str:
    return config_line(BASE, override)


def _lustre(subnet: str | None = None, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"gpufabric:storage": {**LUSTRE, **kw}}
    if subnet is not None:
        out["gpufabric:network"] = {"storageSubnet": subnet}
    return out


def _subnet(subnet: str, gb: int, need: int, room: int, prefix: int) -> str:
    return (
        f"gpufabric:network.storageSubnet: {subnet!r} is not valid; too small for {gb} GB of "
        f"Lustre: it takes up to {need} addresses (60 per 100 TB), this subnet has {room}; use a "
        f"/{prefix} or larger"
    )


CASES: list[tuple[str, dict[str, Any], str]] = [
    # region and availability domain
    ("region without its number", {"oci:region": "us-ashburn"}, "oci:region: 'us-ashburn' is not valid; expected an OCI region like us-ashburn-1"),
    ("AD-3", {"gpufabric:zone": "Uocm:US-ASHBURN-AD-3"}, OK),
    ("AD-4", {"gpufabric:zone": "Uocm:US-ASHBURN-AD-4"}, f"gpufabric:zone: 'Uocm:US-ASHBURN-AD-4' is not valid; {AD_NAME}"),
    ("AD tenancy prefix of 5", {"gpufabric:zone": "Uocmx:US-ASHBURN-AD-1"}, f"gpufabric:zone: 'Uocmx:US-ASHBURN-AD-1' is not valid; {AD_NAME}"),
    ("AD of another city", {"gpufabric:zone": "Uocm:US-PHOENIX-AD-1"},
     "gpufabric:zone: 'Uocm:US-PHOENIX-AD-1' is not valid; this availability domain is not in the "
     "stack's region us-ashburn-1 (oci:region)"),
    ("AD with the region's number", {"oci:region": "eu-frankfurt-1", "gpufabric:zone": "Uocm:EU-FRANKFURT-1-AD-1"}, OK),
    # cluster network
    ("nodes at the tenancy's limit", {"gpufabric:oci": {**OCI, "maxClusterNetworkNodes": 16}}, OK),
    ("nodes one past the limit", {"gpufabric:oci": {**OCI, "maxClusterNetworkNodes": 15}},
     "gpufabric:nodes: 16 is not valid; one cluster network holds at most 15 nodes here "
     "(gpufabric:oci.maxClusterNetworkNodes, your tenancy's limit)"),
    ("network blocks inside an island", {"gpufabric:oci": {**OCI, "hpcIslandId": ISLAND, "networkBlockIds": [BLOCK]}}, OK),
    ("network blocks without an island", {"gpufabric:oci": {**OCI, "networkBlockIds": [BLOCK]}},
     f"gpufabric:oci.networkBlockIds: [{BLOCK!r}] is not valid; network blocks are chosen inside "
     "an HPC island: set gpufabric:oci.hpcIslandId too"),
    # capacity, boot mode, flow logs
    ("capacity reservation OCID", {"gpufabric:capacity": {"type": "reservation", "reservationId": RES}}, OK),
    ("image OCID as reservation", {"gpufabric:capacity": {"type": "reservation", "reservationId": IMAGE}},
     f"gpufabric:capacity.reservationId: {IMAGE!r} is not valid; must be a compute capacity "
     "reservation OCID (ocid1.capacityreservation.oc1...)"),
    ("boot without the URL's end", {"gpufabric:boot": {"enabled": True}},
     "gpufabric:oci.bootUrlExpires: None is not valid; boot mode reads the bundle through a "
     "pre-authenticated request, which needs an end: an RFC 3339 UTC time like "
     "2027-06-30T00:00:00Z"),
    ("boot with the URL's end", {"gpufabric:boot": {"enabled": True}, "gpufabric:oci": {**OCI, "bootUrlExpires": "2031-01-01T00:00:00Z"}}, OK),
    ("flow logs", {"gpufabric:network": {"flowLogs": {}}},
     "gpufabric:network.flowLogs: {'destination': None} is not valid; not available on oci in "
     "gpufabric; remove it"),
    ("egress none", {"gpufabric:network": {"egress": "none"}}, OK),
    ("no storage", {"gpufabric:storage": {"type": "none"}}, OK),
    # Lustre: capacity steps, both bands, at their edges
    ("lustre 124800 (top of small steps)", _lustre(capacityGb=124800), OK),
    ("lustre 166400 (first large step)", _lustre(capacityGb=166400), OK),
    ("lustre 30000", _lustre(capacityGb=30000), f"gpufabric:storage.capacityGb: 30000 is not valid; {STEPS}"),
    ("lustre 135200", _lustre(capacityGb=135200), f"gpufabric:storage.capacityGb: 135200 is not valid; {STEPS}"),
    ("lustre in the nodes' AD", _lustre(availabilityDomain=AD), OK),
    ("lustre tier 1000", _lustre(performanceTier="MBPS_PER_TB_1000"), OK),
    ("lustre name of 8", _lustre(fileSystemName="ABCD_123"), OK),
    ("lustre name with '-'", _lustre(fileSystemName="a-b"),
     "gpufabric:storage.fileSystemName: 'a-b' is not valid; 1-8 letters, digits or '_' (used in "
     "every mount command)"),
    ("lustre Vault key", _lustre(kmsKeyId=VAULT_KEY), OK),
    ("lustre key of another type", _lustre(kmsKeyId=IMAGE),
     f"gpufabric:storage.kmsKeyId: {IMAGE!r} is not valid; must be a Vault key OCID "
     "(ocid1.key.oc1...)"),
    # the Lustre subnet: 60 addresses per 100 TB, 3 reserved; the size suggested is the least
    ("31200 GB in a /27 (19 of 29)", _lustre("10.0.68.0/27", capacityGb=31200), OK),
    ("31200 GB in a /28 (19 of 13)", _lustre("10.0.68.0/28", capacityGb=31200), _subnet("10.0.68.0/28", 31200, 19, 13, 27)),
    ("208000 GB in a /25 (125 of 125)", _lustre("10.0.68.0/25", capacityGb=208000), OK),
    ("208000 GB in a /26 (125 of 61)", _lustre("10.0.68.0/26", capacityGb=208000), _subnet("10.0.68.0/26", 208000, 125, 61, 25)),
    ("104000 GB in a /27 (63: a /26 holds 61)", _lustre("10.0.68.0/27", capacityGb=104000), _subnet("10.0.68.0/27", 104000, 63, 29, 25)),
]  # fmt: skip


@pytest.mark.parametrize(("case", "override", "line"), CASES, ids=[c[0] for c in CASES])
def test_rule_edge(case: str, override: dict[str, Any], line: str) -> None:
    assert _line(override) == line


def test_lustre_addresses_round_up() -> None:
    """60 per 100 TB, rounded up however little is over: 7,238,400 GB (a large step) takes
    4,343.04 -> 4,344 addresses."""
    assert lustre_addresses(7_238_400) == 4344
    assert lustre_addresses(1_040_000) == 624  # exactly 624: not one more
