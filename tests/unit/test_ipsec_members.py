"""Mesh members as the ipsec role's preflight reports them: every problem of every host at
once, each line exact (the host, the value, why), the edges of the fabric subnet's size, and
the guard's exemptions and IPv6 destinations."""

from __future__ import annotations

import pytest

from gpufabric.errors import UserError
from gpufabric.ipsec.members import (
    fabric_network,
    guard_exempt,
    guard_ipv6_networks,
    ipv4,
    member_problems,
    plain_ipv4,
)


def test_every_bad_member_is_reported_not_only_the_first() -> None:
    members = [
        {"name": "bad name!", "address": "10.0.0.1", "reported": ["10.0.0.1"]},
        {"name": "h2", "address": "10.0.0.2", "reported": ["10.0.0.2", "x", "10.0.0.999"]},
        {"name": "h3", "address": "127.0.0.1", "reported": ["127.0.0.1"]},
        {"name": "h4", "address": "10.0.0.4", "reported": []},
        {"name": "h5", "address": "10.0.0.5", "reported": ["10.0.1.5", "10.0.2.5"]},
        {"name": "h6", "address": "10.0.0.4", "reported": ["10.0.0.4"]},
    ]
    assert member_problems(members) == [
        "ipsec: inventory host name 'bad name!' is not a plain host name",
        "ipsec: h2 reports addresses that are not IPv4 addresses: 'x', '10.0.0.999' "
        "(its facts are not trusted; fix or remove it)",
        "ipsec: h3's cluster address: 127.0.0.1 cannot be a cluster address",
        "ipsec: h4 does not hold its cluster address 10.0.0.4 (its facts list no address)",
        "ipsec: h5 does not hold its cluster address 10.0.0.5 (its facts list 10.0.1.5, 10.0.2.5)",
        "ipsec: h6 and h4 both claim 10.0.0.4",
    ]


def test_a_member_without_a_name_or_an_address_is_named_so() -> None:
    assert member_problems([{"address": "10.0.0.1", "reported": ["10.0.0.1"]}]) == [
        "ipsec: inventory host name '' is not a plain host name"
    ]
    assert member_problems([{"name": "h1", "reported": ["10.0.0.1"]}]) == [
        "ipsec: h1's cluster address: '' is not an IPv4 address"
    ]


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("10.0.0.1/24", "k: '10.0.0.1/24' is not an IPv4 address"),
        (167772161, "k: '167772161' is not an IPv4 address"),  # an integer from YAML
        (None, "k: 'None' is not an IPv4 address"),
        ("0.0.0.0", "k: 0.0.0.0 cannot be a cluster address"),
        ("224.0.0.5", "k: 224.0.0.5 cannot be a cluster address"),
        ("169.254.0.1", "k: 169.254.0.1 cannot be a cluster address"),
    ],
)
def test_a_cluster_address_is_refused_in_one_exact_line(value: object, line: str) -> None:
    with pytest.raises(UserError) as exc:
        ipv4(value, "k")
    assert str(exc.value) == line
    assert plain_ipv4(value) is (line.endswith("cluster address"))


def test_the_fabric_subnet_may_be_a_slash_8_not_wider() -> None:
    assert fabric_network("10.0.0.0/8", "10.200.0.1", "k") == "10.0.0.0/8"
    with pytest.raises(UserError) as exc:
        fabric_network("10.0.0.0/7", "10.200.0.1", "k")
    assert str(exc.value) == "k: 10.0.0.0/7 is wider than a /8; name the fabric subnet"
    with pytest.raises(UserError) as exc:
        fabric_network("10.0.0.0/33", "10.200.0.1", "k")
    assert str(exc.value) == "k: '10.0.0.0/33' is not an IPv4 network (a.b.c.d/len)"
    with pytest.raises(UserError) as exc:
        fabric_network("10.1.0.0/16", "10.200.0.1", "k")
    assert str(exc.value) == "k: 10.1.0.0/16 does not hold this host's address 10.200.0.1"


def test_guard_exemptions_are_in_address_order_and_clashes_all_named() -> None:
    net, peers = "10.9.0.0/24", ["10.9.0.12", "10.9.0.13"]
    found = ["10.9.0.100", "10.9.0.9", "10.9.1.1", None]
    assert guard_exempt(["10.9.0.20"], found, net, peers) == ["10.9.0.9", "10.9.0.20", "10.9.0.100"]
    with pytest.raises(UserError) as exc:
        guard_exempt(["10.9.0.13", "10.9.0.12"], [], net, peers)
    assert str(exc.value) == "ipsec_guard_exempt: 10.9.0.12, 10.9.0.13 is a mesh member"


def test_guard_ipv6_skips_what_the_interface_rule_covers_wherever_it_is_listed() -> None:
    own = [
        {"address": "fe80::1", "prefix": "64"},
        {"address": "::1", "prefix": "128"},
        {"address": "fd00:9::11", "prefix": "64"},
    ]
    peers = [
        {"address": "::", "prefix": "128"},
        {"address": "ff02::1", "prefix": "128"},
        {"address": "2001:db8:5::12", "prefix": "64"},
    ]
    assert guard_ipv6_networks(own, peers) == ["2001:db8:5::12/128", "fd00:9::/64"]


@pytest.mark.parametrize(
    ("entry", "line"),
    [
        ({"prefix": "64"}, "ipsec: '/64' is not an IPv6 address/prefix"),
        ({"address": "fd00::1"}, "ipsec: 'fd00::1/' is not an IPv6 address/prefix"),
        ("fd00::1/64", "ipsec: IPv6 facts entry 'fd00::1/64' is not a mapping"),
    ],
)
def test_a_broken_ipv6_fact_is_one_exact_line(entry: object, line: str) -> None:
    with pytest.raises(UserError) as exc:
        guard_ipv6_networks([], [entry])
    assert str(exc.value) == line
