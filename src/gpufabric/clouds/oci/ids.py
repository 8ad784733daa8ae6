"""OCI id formats: OCIDs with their resource type and region.

OCID: ocid1.<resource type>.<realm>.[region][.future use].<unique id> ([P] docs.oracle.com/iaas/
Content/General/Concepts/identifiers.htm). Regional resources carry the region, as its key
(`iad`) or its name (`us-ashburn-1`); tenancy-wide ones (tenancy, compartment, user) leave it
empty. Availability domains and their region are checked in gpufabric.clouds.oci.rules.
"""

from __future__ import annotations

import re

from gpufabric.inputs import types

_OCID_RE = re.compile(
    r"ocid1\.(?P<type>[a-z0-9]+)\.(?P<realm>oc[0-9]+)\.(?P<region>[a-z0-9-]*)"
    r"(?:\.[a-z0-9-]*)?\.(?P<unique>[a-z0-9]+)",
    re.ASCII,
)
Ocid = types.matching(_OCID_RE.pattern, "an OCID (ocid1.<type>.<realm>.<region>.<unique id>)")


def ocid_problem(value: object, kind: str, region: str | None = None) -> str:
    """'' when `value` is an OCID of resource type `kind` (and, where both are known, of
    `region`); else why not, in one line."""
    why = types.problem(Ocid, value)
    if why:
        return why
    match = _OCID_RE.fullmatch(str(value))
    assert match is not None  # Ocid matched it
    if match["type"] != kind:
        return f"is an OCID of {types.article(match['type'])}, not of {types.article(kind)} (ocid1.{kind}.oc1...)"
    where = match["region"]
    if region and where and where != region and not _is_key_of(where, region):
        return f"is an OCID of region {where}, not of the stack's region {region}"
    return ""


# Region keys as OCIDs carry them, for the regions whose key is not readable from the name
# ([P] docs.oracle.com/iaas/Content/General/Concepts/regions.htm, "Region Key" column).
REGION_KEYS = {
    "us-ashburn-1": "iad",
    "us-phoenix-1": "phx",
    "us-chicago-1": "ord",
    "us-sanjose-1": "sjc",
    "eu-frankfurt-1": "fra",
    "uk-london-1": "lhr",
    "ap-tokyo-1": "nrt",
    "ap-osaka-1": "kix",
    "ca-toronto-1": "yyz",
    "sa-saopaulo-1": "gru",
}


def _is_key_of(where: str, region: str) -> bool:
    """Whether OCID region field `where` (not `region` itself) names `region`: its key, when
    the table knows it. For a region the table does not know (it is not every region), any key
    but another region's name or a key the table gives another region."""
    key = REGION_KEYS.get(region)
    if key is not None:
        return where == key
    return "-" not in where and where not in REGION_KEYS.values()
