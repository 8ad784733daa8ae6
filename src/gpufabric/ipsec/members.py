"""Who is in the IPsec mesh, checked on the controller before anything runs on a host.

Host facts are the host's word: a rogue or broken host can report any string as an address.
Every member's address and every address it reports is parsed with `ipaddress`; names must be
plain host names; no two members may claim one address. Each problem names the host.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping
from typing import Any

from gpufabric.errors import UserError

# inventory names that may appear in swanctl.conf (identities, connection names) and logs
HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,252}")


def ipv4(value: object, what: str) -> str:
    """The canonical IPv4 address `value`, or UserError naming `what`."""
    if not plain_ipv4(value):
        raise UserError(f"{what}: {str(value)!r} is not an IPv4 address")
    address = ipaddress.IPv4Address(str(value))
    if (
        address.is_unspecified
        or address.is_loopback
        or address.is_multicast
        or (address.is_link_local)
    ):
        raise UserError(f"{what}: {value} cannot be a cluster address")
    return str(address)


def fabric_network(cidr: object, address: str, what: str) -> str:
    """The fabric network `cidr` (a.b.c.d/len), which must hold `address`."""
    try:
        network = ipaddress.IPv4Network(str(cidr), strict=True)
    except (ipaddress.AddressValueError, ipaddress.NetmaskValueError, ValueError):
        raise UserError(f"{what}: {str(cidr)!r} is not an IPv4 network (a.b.c.d/len)") from None
    if network.prefixlen < 8:
        raise UserError(f"{what}: {network} is wider than a /8; name the fabric subnet")
    if ipaddress.IPv4Address(address) not in network:
        raise UserError(f"{what}: {network} does not hold this host's address {address}")
    return str(network)


def member_problems(members: Iterable[Mapping[str, Any]]) -> list[str]:
    """members: {name, address, reported: [addresses the host's facts list]} per member.

    One line per problem, naming the host; [] when the mesh may be built.
    """
    problems: list[str] = []
    owner: dict[str, str] = {}
    for member in members:
        name = str(member.get("name", ""))
        if not HOST_NAME.fullmatch(name):
            problems.append(f"ipsec: inventory host name {name!r} is not a plain host name")
            continue
        bad = [str(r) for r in member.get("reported") or [] if not plain_ipv4(r)]
        if bad:
            problems.append(
                f"ipsec: {name} reports addresses that are not IPv4 addresses: "
                f"{', '.join(repr(b) for b in bad)} (its facts are not trusted; fix or remove it)"
            )
            continue
        try:
            address = ipv4(member.get("address", ""), f"ipsec: {name}'s cluster address")
        except UserError as exc:
            problems.append(str(exc))
            continue
        reported = list(member.get("reported") or [])
        if address not in reported:
            problems.append(
                f"ipsec: {name} does not hold its cluster address {address} "
                f"(its facts list {', '.join(reported) or 'no address'})"
            )
        if address in owner:
            problems.append(f"ipsec: {name} and {owner[address]} both claim {address}")
        owner.setdefault(address, name)
    return problems


def plain_ipv4(value: object) -> bool:
    """Any IPv4 address written plainly (loopback too: hosts hold it); nothing else."""
    if not isinstance(value, str):
        return False
    try:
        return str(ipaddress.IPv4Address(value)) == value
    except ValueError:
        return False


def guard_exempt(
    explicit: Iterable[object], found: Iterable[object], network: str, members: Iterable[str]
) -> list[str]:
    """Addresses the guard lets through in clear: `explicit` (ipsec_guard_exempt, each checked)
    and those of `found` (this host's gateway and DNS servers) that lie in the fabric subnet.
    Never a mesh member: member traffic leaves through its SA or not at all."""
    net, members = ipaddress.IPv4Network(network), set(members)
    out = [ipv4(a, "ipsec_guard_exempt") for a in explicit]
    clash = sorted(set(out) & members)
    if clash:
        raise UserError(f"ipsec_guard_exempt: {', '.join(clash)} is a mesh member")
    out += [str(a) for a in found if plain_ipv4(a) and ipaddress.IPv4Address(str(a)) in net]
    return sorted(set(out) - members, key=ipaddress.IPv4Address)


def guard_ipv6_networks(own: Iterable[object], peers: Iterable[object]) -> list[str]:
    """The IPv6 destinations the guard blackholes: the on-link prefixes of this host's fabric
    interface (`own`: its facts' ipv6 entries, {address, prefix, scope}) and the global
    addresses peers report on theirs (`peers`: the same entries). The mesh carries IPv4 only,
    so any IPv6 to these leaves in clear; link-local and multicast are covered by interface.
    An entry that does not parse is refused (a host's facts are its own word)."""
    nets: set[ipaddress.IPv6Network] = set()
    for entries, whole in ((own, True), (peers, False)):
        for entry in entries:
            if not isinstance(entry, Mapping):
                raise UserError(f"ipsec: IPv6 facts entry {str(entry)!r} is not a mapping")
            text = f"{entry.get('address', '')}/{entry.get('prefix', '')}"
            try:
                iface = ipaddress.IPv6Interface(text)
            except ValueError:
                raise UserError(f"ipsec: {text!r} is not an IPv6 address/prefix") from None
            ip = iface.ip
            if ip.is_link_local or ip.is_loopback or ip.is_multicast or ip.is_unspecified:
                continue  # link-local and multicast: covered by the interface rule
            nets.add(iface.network if whole else ipaddress.IPv6Network(iface.ip))
    return [str(n) for n in sorted(nets)]
