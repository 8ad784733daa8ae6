"""Each cloud's settings validators at their edges (mutmut 3 does not mutate them: they carry two
decorators): the value accepted right at each limit and the whole line one step past it.
In-process, no Pulumi."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from tests.unit import test_config_azure as azure
from tests.unit import test_config_gcp as gcp
from tests.unit import test_config_nebius as nebius
from tests.unit import test_config_oci as oci

from gpufabric.config import parse
from gpufabric.errors import UserError

GCP_PROJECT = "must be a project id: 6-30 lowercase letters, digits or '-', starting with a letter"
EMAIL = "must be a service account email, e.g. nodes@PROJECT.iam.gserviceaccount.com"
RG = "must be 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending in '.'"
AZ_USER = (
    "must be a Linux user name (lowercase, digits, '_', '-'), not a reserved one (admin, "
    "administrator, guest, root, test, user)"
)
RFC3339 = "must be an RFC 3339 UTC time like 2027-06-30T00:00:00Z"
NEB_USER = "must be a Linux user name other than root (a-z, 0-9, _ or -)"
GALLERY = (
    "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/galleries/g/images/i/"
    "versions/1.0.0"
)


def _line(cloud: ModuleType, section: str, **values: Any) -> str:
    base = cloud.BASE
    given = {**base[f"gpufabric:{section}"], **values}
    extra = {"gpufabric:nodeGroup": "instances"} if "maxDistance" in values else {}
    if "project" in values:  # the provider's project is the same one (else that is refused)
        extra["gcp:project"] = values["project"]
    try:
        parse({**base, **extra, f"gpufabric:{section}": given}, "edge")
    except UserError as exc:
        return str(exc)
    return "ok"


def _refused(key: str, value: Any, why: str) -> str:
    return f"{key}: {value!r} is not valid; {why}"


CASES: list[tuple[str, ModuleType, str, dict[str, Any], str]] = [
    ("gcp project of 6", gcp, "gcp", {"project": "a1234b"}, "ok"),
    ("gcp project of 5", gcp, "gcp", {"project": "a123b"}, _refused("gpufabric:gcp.project", "a123b", GCP_PROJECT)),
    ("gcp project of 30", gcp, "gcp", {"project": "a" + "1" * 28 + "b"}, "ok"),
    ("gcp project of 31", gcp, "gcp", {"project": "a" + "1" * 29 + "b"}, _refused("gpufabric:gcp.project", "a" + "1" * 29 + "b", GCP_PROJECT)),
    ("gcp project ending in '-'", gcp, "gcp", {"project": "a1234-"}, _refused("gpufabric:gcp.project", "a1234-", GCP_PROJECT)),
    ("gcp MTU 1300", gcp, "gcp", {"mtu": 1300}, "ok"),
    ("gcp MTU 1299", gcp, "gcp", {"mtu": 1299}, _refused("gpufabric:gcp.mtu", 1299, "GCP VPC MTU must be 1300-8896")),
    ("gcp MTU 8896", gcp, "gcp", {"mtu": 8896}, "ok"),
    ("gcp MTU 8897", gcp, "gcp", {"mtu": 8897}, _refused("gpufabric:gcp.mtu", 8897, "GCP VPC MTU must be 1300-8896")),
    ("gcp maxDistance 3", gcp, "gcp", {"maxDistance": 3}, "ok"),
    ("gcp maxDistance 4", gcp, "gcp", {"maxDistance": 4}, _refused("gpufabric:gcp.maxDistance", 4, "compact placement maxDistance is 1, 2 or 3")),
    ("gcp maxDistance 0", gcp, "gcp", {"maxDistance": 0}, _refused("gpufabric:gcp.maxDistance", 0, "compact placement maxDistance is 1, 2 or 3")),
    ("gcp service account", gcp, "gcp", {"serviceAccount": "nodes@my-gpu-project.iam.gserviceaccount.com"}, "ok"),
    ("gcp service account with capitals", gcp, "gcp", {"serviceAccount": "Nodes@x.com"}, _refused("gpufabric:gcp.serviceAccount", "Nodes@x.com", EMAIL)),
    ("gcp service account, one-letter domain end", gcp, "gcp", {"serviceAccount": "nodes@x.c"}, _refused("gpufabric:gcp.serviceAccount", "nodes@x.c", EMAIL)),
    ("azure resource group of 90", azure, "azure", {"resourceGroup": "r" * 90}, "ok"),
    ("azure resource group of 91", azure, "azure", {"resourceGroup": "r" * 91}, _refused("gpufabric:azure.resourceGroup", "r" * 91, RG)),
    ("azure resource group of every allowed sign", azure, "azure", {"resourceGroup": "rg(1)_x.y-z"}, "ok"),
    ("azure admin of 32", azure, "azure", {"adminUsername": "u" * 32}, "ok"),
    ("azure admin of 33", azure, "azure", {"adminUsername": "u" * 33}, _refused("gpufabric:azure.adminUsername", "u" * 33, AZ_USER)),
    ("azure admin reserved", azure, "azure", {"adminUsername": "admin"}, _refused("gpufabric:azure.adminUsername", "admin", AZ_USER)),
    ("azure gallery image id", azure, "azure", {"image": GALLERY}, "ok"),
    ("azure scale set of 300", azure, "azure", {"maxVmsPerScaleSet": 300}, "ok"),
    ("azure ecdsa key", azure, "azure", {"sshPublicKey": "ecdsa-sha2-nistp384 AAAA= c"}, "ok"),
    ("azure ecdsa key of no curve", azure, "azure", {"sshPublicKey": "ecdsa-sha2-nistp255 AAAA"},
     _refused("gpufabric:azure.sshPublicKey", "ecdsa-sha2-nistp255 AAAA", "must be an OpenSSH public key line (ssh-ed25519 / ssh-rsa / ecdsa-sha2-*)")),
    ("oci boot URL end, last second of a year", oci, "oci", {"bootUrlExpires": "2027-12-31T23:59:59Z"}, "ok"),
    ("oci boot URL end with an offset", oci, "oci", {"bootUrlExpires": "2027-06-30T00:00:00+00:00"}, _refused("gpufabric:oci.bootUrlExpires", "2027-06-30T00:00:00+00:00", RFC3339)),
    ("oci boot URL end, month 13", oci, "oci", {"bootUrlExpires": "2027-13-30T00:00:00Z"}, _refused("gpufabric:oci.bootUrlExpires", "2027-13-30T00:00:00Z", RFC3339)),
    ("oci boot URL end, day 32", oci, "oci", {"bootUrlExpires": "2027-12-32T00:00:00Z"}, _refused("gpufabric:oci.bootUrlExpires", "2027-12-32T00:00:00Z", RFC3339)),
    ("oci boot URL end, hour 24", oci, "oci", {"bootUrlExpires": "2027-12-31T24:00:00Z"}, _refused("gpufabric:oci.bootUrlExpires", "2027-12-31T24:00:00Z", RFC3339)),
    ("oci tenancy as compartment", oci, "oci", {"compartmentId": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy"}, "ok"),
    ("oci image OCID in capitals", oci, "oci", {"imageId": "ocid1.image.oc1.iad.AAAA"}, _refused("gpufabric:oci.imageId", "ocid1.image.oc1.iad.AAAA", "must be ocid1.image.oc1...")),
    ("oci network block not an OCID", oci, "oci", {"hpcIslandId": oci.ISLAND, "networkBlockIds": ["x"]}, _refused("gpufabric:oci.networkBlockIds", ["x"], "must be an OCID")),
    ("nebius project id of 6", nebius, "nebius", {"projectId": "project-e00abc"}, "ok"),
    ("nebius project id of 5", nebius, "nebius", {"projectId": "project-e00ab"}, _refused("gpufabric:nebius.projectId", "project-e00ab", "must be a Nebius project id like project-e00abc123")),
    ("nebius unpublished fabric of 63", nebius, "nebius", {"infinibandFabric": "f" * 63}, "ok"),
    ("nebius fabric of 64", nebius, "nebius", {"infinibandFabric": "f" * 64}, _refused("gpufabric:nebius.infinibandFabric", "f" * 64, "must be a fabric name like fabric-3 or us-central1-a")),
    ("nebius admin of 32", nebius, "nebius", {"adminUsername": "u" * 32}, "ok"),
    ("nebius admin of 33", nebius, "nebius", {"adminUsername": "u" * 33}, _refused("gpufabric:nebius.adminUsername", "u" * 33, NEB_USER)),
    ("nebius admin starting with '_'", nebius, "nebius", {"adminUsername": "_u"}, "ok"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "cloud", "section", "values", "line"), CASES, ids=[c[0] for c in CASES]
)
def test_settings_edge(
    case: str, cloud: ModuleType, section: str, values: dict[str, Any], line: str
) -> None:
    assert _line(cloud, section, **values) == line
