"""Pure lab layout: names, leaves and addresses of one lab (no system calls; unit-tested).

A lab called NAME owns network namespaces `gf-NAME-fab` (the leaf bridges and the spine),
`gf-NAME-ctl` (the controller Ansible connects from) and `gf-NAME-hI` (one per host), machine
names `gf-NAME-hI`, and one /24 of 10.200.0.0/16 chosen from a hash of NAME, so several labs
(e.g. two engineers' test runs) coexist without sharing a name, an address or a directory.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from dataclasses import dataclass

from gpufabric.errors import ArgumentError, UserError

DEFAULT_NAME = "gpufabric"
NAME_RE = re.compile(r"^[a-z][a-z0-9]{0,19}$")
MAX_NODES = 64
MAX_LEAVES = 8
POOL = ipaddress.IPv4Network("10.200.0.0/16")
CONTROLLER_OFFSET = 1  # .1 is the controller namespace
HOST_OFFSET = 10  # h1 is .11
RATE_RE = re.compile(r"^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps|tbps)$")
_RATE_UNIT = {
    "bit": 1,
    "kbit": 10**3,
    "mbit": 10**6,
    "gbit": 10**9,
    "tbit": 10**12,
    "bps": 8,
    "kbps": 8 * 10**3,
    "mbps": 8 * 10**6,
    "gbps": 8 * 10**9,
    "tbps": 8 * 10**12,
}


@dataclass(frozen=True)
class HostPlan:
    name: str  # inventory name and hostname: h1, h2, ...
    index: int  # 1-based
    leaf: str  # leaf1, leaf2, ...
    address: str
    netns: str
    machine: str


@dataclass(frozen=True)
class LabLayout:
    name: str
    subnet: str  # e.g. 10.200.17.0/24
    prefixlen: int
    controller_address: str
    fabric_netns: str
    controller_netns: str
    leaves: tuple[str, ...]
    hosts: tuple[HostPlan, ...]

    @property
    def namespaces(self) -> list[str]:
        return [self.fabric_netns, self.controller_netns, *(h.netns for h in self.hosts)]

    def host(self, name: str) -> HostPlan:
        for h in self.hosts:
            if h.name == name:
                return h
        raise UserError(
            f"lab {self.name!r} has no host {name!r} "
            f"(hosts: {', '.join(h.name for h in self.hosts)})"
        )


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise ArgumentError(
            "name",
            f"{name!r} is not valid; use 1-20 lowercase letters and digits, starting with a letter",
        )
    return name


def check_counts(nodes: int, leaves: int) -> None:
    if not 1 <= nodes <= MAX_NODES:
        raise ArgumentError("nodes", f"{nodes} is not valid; use 1 to {MAX_NODES}")
    if not 1 <= leaves <= MAX_LEAVES:
        raise ArgumentError("leaves", f"{leaves} is not valid; use 1 to {MAX_LEAVES}")
    if leaves > nodes:
        raise ArgumentError(
            "leaves", f"{leaves} is not valid; at most one leaf per host ({nodes} hosts)"
        )


def rate_bits(rate: str) -> int:
    """'1gbit' -> 1000000000 (tc's units: *bit are bits/s, *bps are bytes/s)."""
    m = RATE_RE.match(rate.strip().lower())
    bits = int(float(m.group(1)) * _RATE_UNIT[m.group(2)]) if m else 0
    if not 8000 <= bits <= 10**12:
        raise ArgumentError(
            "spine_rate",
            f"{rate!r} is not valid; use a tc rate from 8kbit to "
            "1tbit such as 500mbit, 1gbit, 10gbit",
        )
    return bits


def leaf_of(index: int, nodes: int, leaves: int) -> int:
    """1-based leaf of 1-based host `index`: contiguous, even blocks (4/2: h1,h2 | h3,h4)."""
    return (index - 1) * leaves // nodes + 1


def choose_subnet(name: str, taken: set[str]) -> str:
    """A /24 of POOL from the name's hash; the next free one if another lab holds it."""
    count = 2 ** (24 - POOL.prefixlen)
    start = int(hashlib.sha256(name.encode()).hexdigest(), 16) % count
    for step in range(count):
        net = ipaddress.IPv4Network(
            (int(POOL.network_address) + ((start + step) % count) * 256, 24)
        )
        if str(net) not in taken:
            return str(net)
    raise UserError("no free lab address range left in 10.200.0.0/16; take a lab down first")


def make_layout(name: str, nodes: int, leaves: int, taken_subnets: set[str]) -> LabLayout:
    check_name(name)
    check_counts(nodes, leaves)
    subnet = ipaddress.IPv4Network(choose_subnet(name, taken_subnets))
    base = int(subnet.network_address)
    hosts = tuple(
        HostPlan(
            name=f"h{i}",
            index=i,
            leaf=f"leaf{leaf_of(i, nodes, leaves)}",
            address=str(ipaddress.IPv4Address(base + HOST_OFFSET + i)),
            netns=f"gf-{name}-h{i}",
            machine=f"gf-{name}-h{i}",
        )
        for i in range(1, nodes + 1)
    )
    return LabLayout(
        name=name,
        subnet=str(subnet),
        prefixlen=subnet.prefixlen,
        controller_address=str(ipaddress.IPv4Address(base + CONTROLLER_OFFSET)),
        fabric_netns=f"gf-{name}-fab",
        controller_netns=f"gf-{name}-ctl",
        leaves=tuple(f"leaf{j}" for j in range(1, leaves + 1)),
        hosts=hosts,
    )


def owned_netns(name: str, existing: list[str]) -> list[str]:
    """The namespaces in `existing` that belong to lab `name` (exact pattern, not a prefix)."""
    pat = re.compile(rf"^gf-{re.escape(name)}-(fab|ctl|h\d+)$")
    return [ns for ns in existing if pat.match(ns)]
