"""Each cloud's id formats (gpufabric.clouds.<cloud>.ids): what each accepts, the line each
refusal prints, the limits at their edges, and the parts read out of a self link, a resource id
or an OCID.

The id types are built while their module is imported; the builders (`resource_id`) are called
again here, at run time, so that a change to them is seen by these tests (and by mutation
testing, which only sees calls made while a test runs).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.clouds.aws import ids as aws
from gpufabric.clouds.azure import ids as azure
from gpufabric.clouds.gcp import ids as gcp
from gpufabric.clouds.nebius import ids as nebius
from gpufabric.clouds.oci import ids as oci
from gpufabric.errors import UserError
from gpufabric.inputs import types

# --- AWS ---------------------------------------------------------------------------------

AWS_INSTANCE = "must be an AWS id i- and 8 or 17 hexadecimal digits, e.g. i-0abc1234def567890"


@pytest.mark.parametrize("value", ["i-0abc1234def567890", "i-0abc1234", "i-00000000"])
def test_aws_instance_ids_of_8_or_17_hex_digits_are_accepted(value: str) -> None:
    assert types.problem(aws.resource_id("i"), value) == ""
    assert types.problem(aws.InstanceId, value) == ""


@pytest.mark.parametrize(
    "value",
    [
        "i-0abc123",  # 7 digits
        "i-0abc12345",  # 9
        "i-0abc1234def56789",  # 16
        "i-0abc1234def5678901",  # 18
        "i-0ABC1234DEF567890",  # upper case
        "i-0abc1234def56789g",  # not hexadecimal
        "vpc-0abc1234",  # another kind's prefix
        "i0abc1234",
        "12345",
    ],
)
def test_aws_instance_ids_of_other_lengths_or_kinds_are_refused(value: str) -> None:
    assert types.problem(aws.resource_id("i"), value) == AWS_INSTANCE
    assert types.problem(aws.InstanceId, value) == AWS_INSTANCE


def test_aws_ids_of_each_kind_name_their_own_prefix() -> None:
    subnet = aws.resource_id("subnet")
    assert types.problem(subnet, "subnet-0abc1234") == ""
    assert types.problem(subnet, "vpc-0abc1234") == (
        "must be an AWS id subnet- and 8 or 17 hexadecimal digits, e.g. subnet-0abc1234def567890"
    )
    assert types.problem(aws.VpcId, "vpc-0abc1234def567890") == ""
    assert types.problem(aws.SubnetId, "vpc-0abc1234def567890").startswith(
        "must be an AWS id subnet- "
    )


def test_an_aws_id_that_is_no_string_or_holds_a_line_break_is_refused_with_one_line() -> None:
    kind = aws.resource_id("i")
    assert types.problem(kind, 12345678) == "must be a string, not an int"
    with pytest.raises(UserError) as err:
        types.check(kind, "i-0abc1234\ni-0abc1235", "outputs: instance")
    assert str(err.value) == (
        "outputs: instance: 'i-0abc1234\\ni-0abc1235' holds the control character '\\n'"
    )


# --- Nebius ------------------------------------------------------------------------------

NEBIUS_INSTANCE = "must be a Nebius computeinstance id like computeinstance-e00abc123"


@pytest.mark.parametrize(
    "value",
    [
        "computeinstance-e00abc123def",
        "computeinstance-e",  # one character
        "computeinstance-e00-abc",  # '-' inside
        "computeinstance-" + "a" * 64,  # the longest
    ],
)
def test_nebius_instance_ids_are_accepted(value: str) -> None:
    assert types.problem(nebius.resource_id("computeinstance"), value) == ""
    assert types.problem(nebius.InstanceId, value) == ""


@pytest.mark.parametrize(
    "value",
    [
        "computeinstance-" + "a" * 65,  # one too long
        "computeinstance-",
        "computeinstance-e00abc-",  # ends with '-'
        "computeinstance--e00abc",  # starts with '-'
        "computeinstance-E00ABC",  # upper case
        "computeinstance-e00_abc",
        "project-e00abc123",  # another kind
        "e00abc123",
    ],
)
def test_nebius_instance_ids_of_another_shape_are_refused(value: str) -> None:
    assert types.problem(nebius.resource_id("computeinstance"), value) == NEBIUS_INSTANCE
    assert types.problem(nebius.InstanceId, value) == NEBIUS_INSTANCE


def test_nebius_ids_of_each_kind_name_their_own_kind() -> None:
    project = nebius.resource_id("project")
    assert types.problem(project, "project-e00abc123") == ""
    assert types.problem(project, "computeinstance-e00abc123") == (
        "must be a Nebius project id like project-e00abc123"
    )
    assert types.problem(nebius.ProjectId, "computeinstance-e00abc123") == (
        "must be a Nebius project id like project-e00abc123"
    )


# --- GCP ---------------------------------------------------------------------------------

LINK = (
    "https://www.googleapis.com/compute/v1/projects/my-project/zones/us-central1-a/instances/a3-0"
)


@pytest.mark.parametrize(
    ("link", "parts"),
    [
        (
            LINK,
            {
                "project": "my-project",
                "scope": "zones/us-central1-a",
                "kind": "instances",
                "name": "a3-0",
            },
        ),
        (
            "projects/example.com:proj-1/regions/us-central1/subnetworks/gpu-net",
            {
                "project": "example.com:proj-1",
                "scope": "regions/us-central1",
                "kind": "subnetworks",
                "name": "gpu-net",
            },
        ),
        (
            "https://www.googleapis.com/compute/beta/projects/my-project/global/networks/n",
            {"project": "my-project", "scope": "global", "kind": "networks", "name": "n"},
        ),
    ],
)
def test_gcp_self_links_give_their_project_scope_kind_and_name(
    link: str, parts: dict[str, str]
) -> None:
    assert gcp.self_link(link) == parts
    assert types.problem(gcp.SelfLink, link) == ""


@pytest.mark.parametrize(
    "link",
    [
        LINK + "/",
        LINK.replace("/v1/", "/v2/"),
        LINK.replace("https://", "http://"),
        LINK.replace("a3-0", "A3-0"),  # names are lower case
        LINK.replace("a3-0", "a3-"),  # and do not end with '-'
        LINK.replace("my-project", "proj"),  # a project id has 6 characters or more
        LINK.replace("zones/us-central1-a", "places/us-central1-a"),
        "projects/my-project/zones/us-central1-a/instances",
        "",
    ],
)
def test_gcp_strings_that_are_no_self_link_give_nothing(link: str) -> None:
    assert gcp.self_link(link) is None
    assert types.problem(gcp.SelfLink, link) == (
        "must be a GCP self link (https://www.googleapis.com/compute/v1/projects/P/zones/Z/KIND/NAME)"
    )


@pytest.mark.parametrize(
    ("zone", "region", "inside"),
    [
        ("us-central1-a", "us-central1", True),
        ("europe-west4-b", "europe-west4", True),
        ("us-central1-a", "us-east1", False),
        ("us-central1", "us-central1", False),  # the region itself is no zone
        ("us-central1-ab", "us-central1", False),
        ("us-central1-1", "us-central1", False),
        ("us-central10-a", "us-central1", False),
        ("xus-central1-a", "us-central1", False),
        ("usxcentral1-a", "us.central1", False),  # the region is text, not a pattern
    ],
)
def test_gcp_a_zone_is_in_its_region_only(zone: str, region: str, inside: bool) -> None:
    assert gcp.zone_in_region(zone, region) is inside


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("1234567890123456789", ""),
        (str(2**64 - 1), ""),  # the Compute API's Instance.id is a uint64
        ("0", ""),
        (str(2**64), "must be a GCP instance id (an unsigned 64-bit number)"),
        ("9" * 20, "must be a GCP instance id (an unsigned 64-bit number)"),
        ("9" * 21, "must be a GCP instance id (an unsigned 64-bit number)"),
        ("", "must be a GCP instance id (an unsigned 64-bit number)"),
        ("-1", "must be a GCP instance id (an unsigned 64-bit number)"),
        ("12 34", "must be a GCP instance id (an unsigned 64-bit number)"),
        ("\u0661\u0662", "must be a GCP instance id (an unsigned 64-bit number)"),  # Arabic digits
        (1234, "must be a string, not an int"),
    ],
)
def test_gcp_instance_ids_are_unsigned_64_bit_numbers(value: Any, why: str) -> None:
    assert types.problem(gcp.InstanceId, value) == why


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("a", ""),
        ("a3-mega-0", ""),
        ("a" * 63, ""),
        ("a" * 64, "too long"),
        ("3a", "a digit first"),
        ("a-", "ends with '-'"),
        ("A3", "upper case"),
    ],
)
def test_gcp_resource_names_follow_rfc_1035(name: str, why: str) -> None:
    expected = (
        ""
        if not why
        else "must be a GCP resource name: a lowercase letter, then up to 62 lowercase letters, "
        "digits or '-'"
    )
    assert types.problem(gcp.ResourceName, name) == expected


# --- Azure -------------------------------------------------------------------------------

SUB = "0a1b2c3d-0000-4000-8000-00000000abcd"
VM = (
    f"/subscriptions/{SUB}/resourceGroups/gpu-rg/providers/Microsoft.Compute/"
    "virtualMachineScaleSets/ndv5/virtualMachines/3"
)
AZURE = (
    "must be an Azure resource id /subscriptions/<uuid>/resourceGroups/<group>/providers/"
    "<namespace>/<type>/<name>"
)


def test_an_azure_resource_id_gives_its_subscription_group_namespace_and_path() -> None:
    assert azure.resource_id(VM) == {
        "subscription": SUB,
        "group": "gpu-rg",
        "namespace": "Microsoft.Compute",
        "path": "/virtualMachineScaleSets/ndv5/virtualMachines/3",
    }
    assert types.problem(azure.ResourceId, VM) == ""


def test_azure_resource_ids_are_read_whatever_their_case() -> None:
    """Azure compares resource ids case-insensitively and its APIs print `resourcegroups` as
    well as `resourceGroups`: the type and the parser accept both alike."""
    lower = VM.replace("resourceGroups", "resourcegroups").replace("Microsoft", "microsoft")
    upper = VM.upper()
    for value in (lower, upper):
        assert azure.resource_id(value) is not None, value
        assert types.problem(azure.ResourceId, value) == "", value
    assert azure.resource_id(upper)["group"] == "GPU-RG"  # type: ignore[index]


@pytest.mark.parametrize(
    ("group", "ok"),
    [
        ("g", True),
        ("a" * 90, True),
        ("a" * 91, False),  # 1-90 characters
        ("rg.", False),  # not ending with '.'
        ("rg.(1)_x", True),
        ("rg x", False),
        ("", False),
    ],
)
def test_azure_resource_group_names_at_their_limits(group: str, ok: bool) -> None:
    value = VM.replace("gpu-rg", group)
    assert (azure.resource_id(value) is not None) is ok
    assert types.problem(azure.ResourceId, value) == ("" if ok else AZURE)


@pytest.mark.parametrize(
    "value",
    [
        VM.replace(SUB, "not-a-uuid"),
        VM.replace("/virtualMachineScaleSets/ndv5/virtualMachines/3", ""),  # no resource
        VM + "/",
        VM.replace("/virtualMachines/3", "/virtualMachines/"),
        VM.replace("/providers/", "/provider/"),
        "gpu-rg/ndv5",
    ],
)
def test_strings_that_are_no_azure_resource_id_give_nothing(value: str) -> None:
    assert azure.resource_id(value) is None
    assert types.problem(azure.ResourceId, value) == AZURE


# --- OCI ---------------------------------------------------------------------------------

OCID = "must be an OCID (ocid1.<type>.<realm>.<region>.<unique id>)"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("ocid1.instance.oc1.iad.anuwcljtnode0aaaa", ""),
        ("ocid1.instance.oc1.us-ashburn-1.anuwcljtnode0aaaa", ""),
        ("ocid1.instance.oc2.iad.future-use.anuwcljtnode0aaaa", ""),
        ("ocid1.instance.oc1..anuwcljtnode0aaaa", ""),
        ("12345", OCID),
        ("ocid2.instance.oc1.iad.a", OCID),
        ("ocid1.instance.xx1.iad.a", OCID),
        ("ocid1.instance.oc1.iad.", OCID),  # no unique id
        ("ocid1.Instance.oc1.iad.a", OCID),
        ("ocid1.instance.oc1.iad.a b", OCID),
        (12345, "must be a string, not an int"),
        (None, "must be a string, not a NoneType"),
        ("ocid1.instance.oc1.iad.a\n", "holds the control character '\\n'"),
    ],
)
def test_ocid_problem_names_what_is_not_an_ocid(value: Any, why: str) -> None:
    assert oci.ocid_problem(value, "instance") == why


@pytest.mark.parametrize(
    ("value", "kind", "why"),
    [
        (
            "ocid1.vnic.oc1.iad.x",
            "instance",
            "is an OCID of a vnic, not of an instance (ocid1.instance.oc1...)",
        ),
        (
            "ocid1.image.oc1.iad.x",
            "instance",
            "is an OCID of an image, not of an instance (ocid1.instance.oc1...)",
        ),
        (
            "ocid1.instance.oc1.iad.x",
            "computecluster",
            "is an OCID of an instance, not of a computecluster (ocid1.computecluster.oc1...)",
        ),
        (
            "ocid1.instancepool.oc1.iad.x",
            "instance",
            "is an OCID of an instancepool, not of an instance (ocid1.instance.oc1...)",
        ),
        (
            "ocid1.ocid.oc1.iad.x",
            "updatable",
            "is an OCID of an ocid, not of an updatable (ocid1.updatable.oc1...)",
        ),
    ],
)
def test_an_ocid_of_another_resource_type_is_named_with_its_article(
    value: str, kind: str, why: str
) -> None:
    assert oci.ocid_problem(value, kind) == why
    assert oci.ocid_problem(value, kind, "us-ashburn-1") == why


@pytest.mark.parametrize(
    ("where", "region"),
    [
        ("iad", "us-ashburn-1"),  # the region's key
        ("us-ashburn-1", "us-ashburn-1"),  # or its name
        ("fra", "eu-frankfurt-1"),
        ("", "us-ashburn-1"),  # tenancy-wide: no region in it
        ("ams", "eu-amsterdam-1"),  # a region the table does not know: its key
        ("eu-amsterdam-1", "eu-amsterdam-1"),
        ("phx", None),  # no stack region to compare with
        ("phx", ""),
    ],
)
def test_ocids_of_the_stacks_region_are_accepted(where: str, region: str | None) -> None:
    assert oci.ocid_problem(f"ocid1.instance.oc1.{where}.uniq", "instance", region) == ""


@pytest.mark.parametrize(
    ("where", "region"),
    [
        ("phx", "us-ashburn-1"),  # another region's key
        ("us-phoenix-1", "us-ashburn-1"),  # another region's name
        ("ashburn", "us-ashburn-1"),
        ("iad", "eu-amsterdam-1"),  # a key the table gives another region
        ("us-phoenix-1", "eu-amsterdam-1"),  # another region's name, unknown region
        ("eu-zurich-1", "eu-amsterdam-1"),
    ],
)
def test_an_ocid_of_another_region_is_refused_naming_both(where: str, region: str) -> None:
    assert oci.ocid_problem(f"ocid1.instance.oc1.{where}.uniq", "instance", region) == (
        f"is an OCID of region {where}, not of the stack's region {region}"
    )


def test_every_region_key_in_the_table_is_three_letters_of_its_own() -> None:
    keys = list(oci.REGION_KEYS.values())
    assert len(set(keys)) == len(keys)
    assert all(len(k) == 3 and k.isalpha() and k.islower() for k in keys)
    assert all(name.count("-") == 2 for name in oci.REGION_KEYS)
