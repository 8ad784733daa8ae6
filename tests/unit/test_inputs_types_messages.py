"""The constrained types' refusals, word for word: the line a user reads names the value (shown
quoted, controls escaped, cut at 80 characters) and what the field takes; limits hold at their
exact edge (the longest value accepted, one more refused)."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from gpufabric.errors import UserError
from gpufabric.inputs import types as t

HOST = "must be an RFC 1123 host name: labels of letters, digits and '-' (1-63, not starting or ending with '-') joined by '.', at most 253 characters"
SLURM = "must be a Slurm name: 1-64 letters, digits, '.', '_' or '-', starting and ending with a letter or digit"
NOT_HOST = "address, not a host's address"
LABEL_ONE_SLASH = "must be NAME or PREFIX/NAME with one '/' and a non-empty prefix"
LABEL_NAME = (
    "must have a name part of 1-63 letters, digits, '-', '_' or '.', alphanumeric at both ends"
)
NORMALISED = "must be a normalised path: no '..', '.', '//' or trailing '/'"
PATH_CHARS = "must hold only letters, digits, '.', '_', '-' and '/' (nothing a shell, an fstab line or YAML reads apart), at most 255 characters"
IMAGE = "must be an image name, family or reference: 1-255 letters, digits, '.', '_', ':', '/', '@', '+' or '-', starting with a letter or digit"
TAG_KEY = "must be a tag key of 1-128 letters, digits, '_', '.', ':', '/', '=', '+', '@' or '-', starting with a letter or digit"

REFUSED: list[tuple[Any, Any, str]] = [
    (t.HostName, "x;reboot", f"'x;reboot' {HOST}"),
    (t.HostName, None, "None must be a string, not a NoneType"),
    (t.HostName, 12, "12 must be a string, not an int"),
    (t.HostName, False, "False must be a string, not the boolean false"),
    (t.HostName, ["a"], "['a'] must be a string, not a list"),
    (t.HostName, "ab\u0430", "'ab\u0430' holds the non-ASCII character '\u0430' (U+0430)"),
    (t.HostName, "a\x7f", "'a\\x7f' holds the control character '\\x7f'"),
    (t.SlurmName, "a,b", f"'a,b' {SLURM}"),
    (t.SlurmName, "a~b", f"'a~b' {SLURM}"),
    (t.SlurmName, "a\nb", "'a\\nb' holds the control character '\\n'"),
    (t.SlurmName, "a\x9fb", "'a\\x9fb' holds the control character '\\x9f'"),
    (t.NodeId, "   ", "'   ' must be 1-255 characters, not only spaces"),
    (t.NodeId, "a\u2028b", "'a\\u2028b' holds the line or space separator '\\u2028'"),
    (t.NodeId, "a\xa0b", "'a\\xa0b' holds the line or space separator '\\xa0'"),
    (
        t.HostAddress,
        "10.0.0.999",
        "'10.0.0.999' must be an IPv4 address like 10.0.0.5 (four numbers 0-255)",
    ),
    (t.HostAddress, "0.0.0.0", f"'0.0.0.0' is the unspecified {NOT_HOST}"),
    (t.HostAddress, "224.0.0.1", f"'224.0.0.1' is a multicast {NOT_HOST}"),
    (t.HostAddress, "169.254.1.1", f"'169.254.1.1' is a link-local {NOT_HOST}"),
    (t.HostAddress, "255.255.255.255", f"'255.255.255.255' is the broadcast {NOT_HOST}"),
    (t.HostAddress, "240.0.0.1", f"'240.0.0.1' is a reserved {NOT_HOST}"),
    (
        t.DnsSubdomain,
        "Upper.case",
        "'Upper.case' must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', alphanumeric at both ends, at most 253 characters",
    ),
    (t.LabelKey, "/x", f"'/x' {LABEL_ONE_SLASH}"),
    (t.LabelKey, "a/b/c", f"'a/b/c' {LABEL_ONE_SLASH}"),
    (
        t.LabelKey,
        "Bad_Prefix/x",
        "'Bad_Prefix/x' has the prefix 'Bad_Prefix', which is not a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253 characters)",
    ),
    (t.LabelKey, "ex.com/-x", f"'ex.com/-x' {LABEL_NAME}"),
    (t.LabelKey, "x" * 64, f"'{'x' * 64}' {LABEL_NAME}"),
    (
        t.LabelValue,
        "-x",
        "'-x' must be empty or 1-63 letters, digits, '-', '_' or '.', alphanumeric at both ends",
    ),
    (t.MountPath, "fsx", "'fsx' must be an absolute directory other than /"),
    (t.MountPath, "/", "'/' must be an absolute directory other than /"),
    (t.MountPath, "/a/../b", f"'/a/../b' {NORMALISED}"),
    (t.MountPath, "/a/", f"'/a/' {NORMALISED}"),
    (t.MountPath, "/a//b", f"'/a//b' {NORMALISED}"),
    (t.MountPath, "/a/./b", f"'/a/./b' {NORMALISED}"),
    (t.MountPath, "//shared", f"'//shared' {NORMALISED}"),  # normpath keeps a leading '//'
    (t.MountPath, "/lustre;reboot", f"'/lustre;reboot' {PATH_CHARS}"),
    (t.MountPath, "/" + "a" * 255, f"'/{'a' * 75}... {PATH_CHARS}"),
    (t.ImageName, "a//b", f"'a//b' {IMAGE}"),
    (t.ImageName, "a..b", f"'a..b' {IMAGE}"),
    (t.ImageName, "-x", f"'-x' {IMAGE}"),
    (t.TagKey, "-x", f"'-x' {TAG_KEY}"),
    (t.TagValue, "v" * 257, f"'{'v' * 76}... must be at most 256 characters"),
]


@pytest.mark.parametrize(("kind", "value", "line"), REFUSED)
def test_each_refusal_names_the_value_and_what_is_allowed(kind: Any, value: Any, line: str) -> None:
    with pytest.raises(UserError) as err:
        t.check(kind, value, "nodes[2].name")
    assert str(err.value) == f"nodes[2].name: {line}"
    assert t.problem(kind, value) == line.removeprefix(t.show(value) + " ")


LONG_HOST = ".".join(["a" * 63] * 3 + ["a" * 61])  # 253 characters, labels of at most 63


@pytest.mark.parametrize(
    ("kind", "longest"),
    [
        (t.HostName, LONG_HOST),
        (t.SlurmName, "a" * 64),
        (t.NodeId, "x" * 255),
        (t.MountPath, "/" + "a" * 254),
        (t.TagValue, "v" * 256),
        (t.LabelKey, "x" * 63),
    ],
)
def test_limits_hold_at_their_edge(kind: Any, longest: str) -> None:
    assert t.check(kind, longest, "w") == longest
    assert t.problem(kind, longest + "a") != ""


def test_the_edges_of_control_and_ascii_ranges() -> None:
    assert t.check(t.NodeId, "a~b", "w") == "a~b"  # 0x7E: printable ASCII
    assert t.check(t.NodeId, "r\u00e9seau", "w") == "r\u00e9seau"  # above 0x9F: not a control
    assert "control character" in t.problem(t.NodeId, "a\x7fb")
    assert "control character" in t.problem(t.NodeId, "a\x1fb")
    assert "non-ASCII character '\\x7f'" not in t.problem(t.HostName, "a\x7f")


def test_networks_keep_every_cidr_and_normalise_host_bits() -> None:
    assert t.networks(["10.0.0.5/24", "not-a-cidr", None, "10.1.0.0/16"]) == [
        ipaddress.IPv4Network("10.0.0.0/24"),
        ipaddress.IPv4Network("10.1.0.0/16"),
    ]
    assert t.inside("10.0.0.77", ["10.0.0.5/24"])
    assert not t.inside("10.2.0.1", ["placeholder", "10.0.0.0/24"])
    assert t.inside("10.2.0.1", ["placeholder"])  # nothing known: nothing to check


def test_a_shown_value_is_cut_at_80_characters() -> None:
    assert t.show("x" * 78) == repr("x" * 78)  # 80 with its quotes
    assert t.show("x" * 79) == "'" + "x" * 76 + "..."


def test_a_type_built_by_matching_takes_whole_ascii_strings_only() -> None:
    kind = t.matching(r"id-\w+", "an id like id-abc")  # a type no check has seen yet
    assert t.check(kind, "id-abc", "w") == "id-abc"
    assert t.problem(kind, "id-abc;x") == "must be an id like id-abc"  # the whole string
    assert t.problem(kind, "xid-abc") == "must be an id like id-abc"
    assert t.problem(kind, "id-ab\u00e9") == "must be an id like id-abc"  # \w is ASCII only
    assert t.problem(kind, "id-a\nb") == "holds the control character '\\n'"
    assert t.problem(kind, 5) == "must be a string, not an int"
    with pytest.raises(UserError, match=r"^nodes\[0\]\.id: 'id-' must be an id like id-abc$"):
        t.check(kind, "id-", "nodes[0].id")
