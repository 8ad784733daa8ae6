"""The constrained types of values that enter from outside (gpufabric.inputs.types).

Hostile values below are constructed for these tests (the classes the hostile-input review
found: control characters, shell and YAML metacharacters, look-alike letters, YAML 1.1 booleans,
impossible addresses); the property tests generate more of each class.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.inputs.types import (
    DnsSubdomain,
    HostAddress,
    HostName,
    ImageName,
    IPv4Address,
    LabelKey,
    LabelValue,
    MountPath,
    NodeId,
    SlurmName,
    TagKey,
    TagValue,
    check,
    inside,
    problem,
)

CYRILLIC_ES = "\u0441"  # looks like Latin 'c'


@pytest.mark.parametrize("value", ["10.0.0.5", "192.168.1.200", "172.31.255.1"])
def test_ipv4_address_accepted(value: str) -> None:
    assert check(IPv4Address, value, "x") == value


@pytest.mark.parametrize(
    "value",
    ["10.0.0.999", "nan", "not-an-ip/32", "10.0.0.5/32", "010.0.0.5", "10.0.0", " 10.0.0.5",
     "10.0.0.5\n", "::1", "", 167772165, None, True],
)  # fmt: skip
def test_ipv4_address_refused(value: object) -> None:
    with pytest.raises(UserError) as err:
        check(IPv4Address, value, "inventory: node1: address")
    message = str(err.value)
    assert message.startswith("inventory: node1: address: ")
    assert "\n" not in message


@pytest.mark.parametrize(
    "value", ["0.0.0.0", "224.0.0.1", "169.254.10.1", "255.255.255.255", "240.0.0.1"]
)
def test_host_address_refuses_addresses_no_host_has(value: str) -> None:
    assert problem(IPv4Address, value) == ""
    assert "not a host's address" in problem(HostAddress, value)


def test_inside_the_stack_network() -> None:
    assert inside("10.0.1.5", ["10.0.0.0/16"])
    assert not inside("10.1.0.5", ["10.0.0.0/16", "10.2.0.0/24"])
    assert inside("10.2.0.9", ["10.0.0.0/16", "10.2.0.0/24"])
    # placeholders of an offline plan are no network: nothing to check against
    assert inside("10.9.9.9", ["<vpc.cidr>", None])
    assert inside("10.9.9.9", [])


@pytest.mark.parametrize("value", ["node01", "gpu-0.cluster.local", "ip-10-0-1-12", "a", "1x"])
def test_host_name_accepted(value: str) -> None:
    assert check(HostName, value, "x") == value


@pytest.mark.parametrize(
    "value",
    [
        "x;reboot",
        "nebius-h100-1\nrm -rf /",
        "node1\n",  # a trailing newline: `$` in a regex would let it through
        f"gpu-{CYRILLIC_ES}1",  # Cyrillic look-alike
        "-node",
        "node-",
        "a" * 64,  # one label longer than 63
        ".".join(["a" * 63] * 4) + "x",  # longer than 253
        "node_1",
        "",
        False,  # YAML 1.1 `no`
        12345,
    ],
)
def test_host_name_refused(value: object) -> None:
    why = problem(HostName, value)
    assert why and "\n" not in why


def test_host_name_refusal_names_the_look_alike() -> None:
    assert "U+0441" in problem(HostName, f"gpu-{CYRILLIC_ES}1")
    assert "boolean false" in problem(HostName, False)


@pytest.mark.parametrize("value", ["sw0", "leaf_1.a", "p5-48xlarge", "a" * 64])
def test_slurm_name_accepted(value: str) -> None:
    assert problem(SlurmName, value) == ""


@pytest.mark.parametrize(
    "value", ["a" * 65, "a,b", "a b", "a[1-2]", "a#b", 'a"b', "a\\b", "s\nSwitchName=x", "_a"]
)
def test_slurm_name_refused(value: str) -> None:
    assert problem(SlurmName, value)


def test_node_id_takes_numbers_but_not_booleans_or_lists() -> None:
    assert check(NodeId, 7, "x") == "7"
    assert problem(NodeId, "ocid1.computelocalblock.oc1.iad.anuwcljt") == ""
    assert problem(NodeId, "rack a") == ""
    for bad in (True, [True], 1.5, "", "  ", "a\tb", "a\u2028b", "evil\nSwitchName=evil", None,
                "a" * 256):  # fmt: skip
        assert problem(NodeId, bad), bad


@pytest.mark.parametrize(
    "value",
    ["network.gpufabric.io/leaf", "kubernetes.io/hostname", "app", "a.b-c_d", "x" * 63,
     "topology.k8s.aws/network-node-layer-1", f"{'a' * 253}/x"],
)  # fmt: skip
def test_label_key_accepted(value: str) -> None:
    assert problem(LabelKey, value) == ""


@pytest.mark.parametrize(
    "value",
    ["", "/name", "a/b/c", "Upper.io/x", "x" * 64, "-a", "a-", "pre fix/x", "p/", f"{'a' * 254}/x",
     "a\n", "network.gpufabric.io/le\naf"],
)  # fmt: skip
def test_label_key_refused(value: str) -> None:
    assert problem(LabelKey, value)


@pytest.mark.parametrize("value", ["", "leaf-1", "A_b.c", "x" * 63])
def test_label_value_accepted(value: str) -> None:
    assert problem(LabelValue, value) == ""


@pytest.mark.parametrize("value", ["x" * 64, "-a", "a.", "a b", "a/b", "a\n", "é"])
def test_label_value_refused(value: str) -> None:
    assert problem(LabelValue, value)


def test_dns_subdomain() -> None:
    assert problem(DnsSubdomain, "gpu-0.example") == ""
    for bad in ("GPU-0", "gpu_0", "gpu-0.", "a" * 254):
        assert problem(DnsSubdomain, bad), bad


@pytest.mark.parametrize("value", ["/shared", "/lustre", "/mnt/fs-1.a_b"])
def test_mount_path_accepted(value: str) -> None:
    assert problem(MountPath, value) == ""


@pytest.mark.parametrize(
    "value",
    ['/shared"x', "/lustre;reboot", "/lustre$(id)", "/shared/../etc", "/", "shared", "/a/",
     "/a//b", "/a/./b", "/a b", "/a\nb", "/a'b", "/a:b", "/a#b", "/x`id`", "/" + "a" * 255],
)  # fmt: skip
def test_mount_path_refused(value: str) -> None:
    why = problem(MountPath, value)
    assert why and "\n" not in why


def test_image_and_tag_names() -> None:
    for good in ("ubuntu22.04-cuda12", "Canonical:ubuntu-hpc:2204:latest", "nvcr.io/nvidia/x:1"):
        assert problem(ImageName, good) == "", good
    for bad in ("a b", "x;y", "../x", "x\n", "", "$(id)"):
        assert problem(ImageName, bad), bad
    assert problem(TagKey, "team") == "" and problem(TagKey, "cost-center/a") == ""
    for bad in ("", "a b", "x;y", "k\n", "a" * 129):
        assert problem(TagKey, bad), bad
    assert problem(TagValue, "anything at all: 1") == ""
    assert problem(TagValue, "x\ny") and problem(TagValue, "a" * 257)


def test_check_message_is_one_line_naming_where_and_value() -> None:
    with pytest.raises(UserError) as err:
        check(MountPath, "/lustre;reboot", "gpufabric:storage.mountPoint")
    assert str(err.value) == (
        "gpufabric:storage.mountPoint: '/lustre;reboot' must hold only letters, digits, '.', "
        "'_', '-' and '/' (nothing a shell, an fstab line or YAML reads apart), at most 255 "
        "characters"
    )


# --- properties --------------------------------------------------------------------------

_ALNUM = string.ascii_letters + string.digits
_label_1123 = st.builds(
    lambda first, mid, last: first + mid + last if mid or last else first,
    st.sampled_from(_ALNUM),
    st.text(_ALNUM + "-", max_size=61),
    st.sampled_from(["", *_ALNUM]),
).filter(lambda s: not s.endswith("-"))
host_names = st.lists(_label_1123, min_size=1, max_size=4).map(".".join)
slurm_names = st.builds(
    lambda first, mid, last: first + mid + last,
    st.sampled_from(_ALNUM),
    st.text(_ALNUM + "._-", max_size=62),
    st.sampled_from(_ALNUM),
)
mount_paths = st.lists(
    st.text(_ALNUM + "._-", min_size=1, max_size=20).filter(lambda s: s not in (".", "..")),
    min_size=1,
    max_size=6,
).map(lambda parts: "/" + "/".join(parts))
label_values = st.one_of(st.just(""), slurm_names.filter(lambda s: len(s) <= 63))
# hostile: a valid value with one character no format here may hold spliced in
_HOSTILE = [*"\n\r\t\x00\x1b ;$`\"'\\|&<>(){}#", CYRILLIC_ES, "\u200b", "\u2028"]


@given(host_names.filter(lambda s: len(s) <= 253))
def test_generated_host_names_round_trip(name: str) -> None:
    assert check(HostName, name, "x") == name


@given(slurm_names)
def test_generated_slurm_names_round_trip(name: str) -> None:
    assert check(SlurmName, name, "x") == name


@given(mount_paths.filter(lambda p: len(p) <= 255))
def test_generated_mount_paths_round_trip(path: str) -> None:
    assert check(MountPath, path, "x") == path


@given(label_values)
def test_generated_label_values_round_trip(value: str) -> None:
    assert check(LabelValue, value, "x") == value


@given(st.integers(0, 2**32 - 1))
def test_generated_addresses_round_trip(number: int) -> None:
    text = ".".join(str((number >> s) & 255) for s in (24, 16, 8, 0))
    assert check(IPv4Address, text, "x") == text


_HOSTILE_KINDS = [HostName, SlurmName, MountPath, LabelValue, LabelKey, IPv4Address, TagKey]


@given(
    st.sampled_from(_HOSTILE_KINDS),
    slurm_names.filter(lambda s: len(s) <= 60),
    st.sampled_from(_HOSTILE),
    st.integers(0, 60),
)
def test_generated_hostile_values_are_refused(kind: object, base: str, bad: str, at: int) -> None:
    value = base[:at] + bad + base[at:]
    if kind is MountPath:
        value = "/" + value
    why = types.problem(kind, value)
    assert why, value
    assert "\n" not in why


@given(st.text(min_size=1).filter(lambda s: any(ord(c) < 0x20 for c in s)))
def test_generated_control_characters_never_pass_as_an_id(value: str) -> None:
    assert problem(NodeId, value)
    assert problem(TagValue, value)


def test_a_type_says_the_article_an_error_line_needs() -> None:
    assert [types.a_type(v) for v in (1, [], {}, 1.5, None, "x")] == [
        "an int", "a list", "a dict", "a float", "a NoneType", "a str"
    ]  # fmt: skip


def test_digits_are_ascii_digits_only() -> None:
    """str.isdigit() holds for '²' (int() refuses it) and '٣' (int() reads 3): neither is a
    number a tool we read prints."""
    assert [types.digits(t) for t in ("0", "0042", "²", "٣", "", "-1", "1.0", " 1")] == [
        True, True, False, False, False, False, False, False
    ]  # fmt: skip


def test_no_reader_asks_str_isdigit_itself() -> None:
    """Every reader asks inputs.types.digits, so a superscript digit is not a traceback."""
    from pathlib import Path

    src = Path(types.__file__).resolve().parents[1]
    allowed = {"inputs/types.py", "lab/hosts.py", "clouds/gcp/mocks.py"}  # the lab's, the mocks'
    found = [
        f"{p.relative_to(src)}:{n}"
        for p in sorted(src.rglob("*.py"))
        if p.relative_to(src).as_posix() not in allowed
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if ".isdigit()" in line.split("#", 1)[0]
    ]
    assert found == []


def test_article_goes_by_the_first_letter_in_either_case() -> None:
    assert [types.article(w) for w in ("instance", "vnic", "Ethernet", "OCID", "NCCL")] == [
        "an instance", "a vnic", "an Ethernet", "an OCID", "a NCCL"
    ]  # fmt: skip
