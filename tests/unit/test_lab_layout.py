"""The lab's address plan, names and flag checks (pure; no root)."""

from __future__ import annotations

import ipaddress

import pytest

from gpufabric.cli.conventions import error_line
from gpufabric.errors import UserError
from gpufabric.lab import layout
from gpufabric.lab.layout import make_layout


def test_four_hosts_two_leaves() -> None:
    lay = make_layout("gpufabric", 4, 2, set())
    assert [(h.name, h.leaf) for h in lay.hosts] == [
        ("h1", "leaf1"),
        ("h2", "leaf1"),
        ("h3", "leaf2"),
        ("h4", "leaf2"),
    ]
    net = ipaddress.IPv4Network(lay.subnet)
    assert net.prefixlen == 24 and net.subnet_of(layout.POOL)
    addrs = [ipaddress.IPv4Address(h.address) for h in lay.hosts]
    assert all(a in net for a in addrs) and len(set(addrs)) == 4
    assert ipaddress.IPv4Address(lay.controller_address) in net
    assert lay.controller_address not in {h.address for h in lay.hosts}
    assert lay.namespaces == [
        "gf-gpufabric-fab",
        "gf-gpufabric-ctl",
        "gf-gpufabric-h1",
        "gf-gpufabric-h2",
        "gf-gpufabric-h3",
        "gf-gpufabric-h4",
    ]
    assert lay.host("h3").machine == "gf-gpufabric-h3"


@pytest.mark.parametrize(
    ("nodes", "leaves", "sizes"),
    [
        (8, 2, [4, 4]),
        (5, 2, [3, 2]),
        (7, 3, [3, 2, 2]),
        (3, 3, [1, 1, 1]),
        (64, 8, [8] * 8),
        (1, 1, [1]),
    ],
)
def test_hosts_spread_evenly_in_contiguous_blocks(
    nodes: int, leaves: int, sizes: list[int]
) -> None:
    lay = make_layout("x", nodes, leaves, set())
    per_leaf = [sum(h.leaf == leaf for h in lay.hosts) for leaf in lay.leaves]
    assert per_leaf == sizes
    leaf_numbers = [int(h.leaf.removeprefix("leaf")) for h in lay.hosts]
    assert leaf_numbers == sorted(leaf_numbers)


def test_labs_get_distinct_names_and_ranges() -> None:
    a = make_layout("alice", 4, 2, set())
    b = make_layout("bob", 4, 2, {a.subnet})
    assert a.subnet != b.subnet
    assert not set(a.namespaces) & set(b.namespaces)
    assert {h.machine for h in a.hosts}.isdisjoint(h.machine for h in b.hosts)
    # the same name alone always gets the same range; a taken range moves it on
    assert make_layout("alice", 2, 1, set()).subnet == a.subnet
    assert make_layout("alice", 4, 2, {a.subnet}).subnet != a.subnet


def test_owned_netns_is_exact() -> None:
    existing = ["gf-a-fab", "gf-a-ctl", "gf-a-h1", "gf-a-h12", "gf-ab-h1", "gf-a-hx", "other"]
    assert layout.owned_netns("a", existing) == ["gf-a-fab", "gf-a-ctl", "gf-a-h1", "gf-a-h12"]


@pytest.mark.parametrize(
    ("nodes", "leaves", "flag"),
    [
        (0, 1, "--nodes"),
        (65, 2, "--nodes"),
        (4, 0, "--leaves"),
        (4, 9, "--leaves"),
        (2, 3, "--leaves"),
    ],
)
def test_bad_counts(nodes: int, leaves: int, flag: str) -> None:
    with pytest.raises(UserError) as err:
        make_layout("x", nodes, leaves, set())
    value = leaves if flag == "--leaves" else nodes
    assert error_line(err.value).startswith(f"error: {flag}: {value} "), err.value


@pytest.mark.parametrize("name", ["", "Gpu", "a-b", "1lab", "a" * 21, "lab_1"])
def test_bad_names(name: str) -> None:
    with pytest.raises(UserError) as err:
        layout.check_name(name)
    assert error_line(err.value).startswith("error: --name: "), err.value


@pytest.mark.parametrize(
    ("rate", "bits"),
    [
        ("1gbit", 10**9),
        ("500mbit", 5 * 10**8),
        ("2.5Gbit", 25 * 10**8),
        ("100mbps", 8 * 10**8),
        ("8kbit", 8000),
        ("1tbit", 10**12),
    ],
)
def test_rates(rate: str, bits: int) -> None:
    assert layout.rate_bits(rate) == bits


@pytest.mark.parametrize("rate", ["fast", "1", "1gb", "-1gbit", "1kbit", "", "2tbit"])
def test_bad_rates(rate: str) -> None:
    with pytest.raises(UserError) as err:
        layout.rate_bits(rate)
    assert error_line(err.value).startswith("error: --spine-rate: "), err.value
