"""Break a lab host's link on purpose, and heal it by restarting the host.

    slow-link  tbf at RATE on both ends of the host's link: its eth0 (egress) and its leaf port
               hI (ingress), so traffic is slow both ways
    mtu        the host's eth0 MTU set to MTU (default 9000; the fabric stays at 1500)
    link-down  the leaf port hI down (a pulled cable: the host loses carrier)
    flap       the leaf port hI taken down and up FLAPS times (carrier_changes grows by 2 each)

`restart` heals every fault: it stops the host (if running), replaces its link with a fresh
veth pair (no shaping, MTU 1500, counters at zero, up), boots the host again and waits for
systemd. The state file records the fault so `lab status` shows it.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

from gpufabric.errors import ArgumentError, UserError
from gpufabric.inputs.formats import parse_json
from gpufabric.lab import hosts, lab, network, state
from gpufabric.lab.layout import HostPlan, LabLayout, rate_bits
from gpufabric.lab.state import LabState

KINDS = ("slow-link", "mtu", "link-down", "flap")
DEFAULT_RATE = "20mbit"
DEFAULT_MTU = 9000
DEFAULT_FLAPS = 6
MAX_FLAPS = 50
RESTART_TIMEOUT = 120.0


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise UserError(f"fault: {kind!r} is not valid; use one of {', '.join(KINDS)}")
    return kind


def check_mtu(mtu: int) -> int:
    if not 1280 <= mtu <= 65535:
        raise ArgumentError("mtu", f"{mtu!r} is not valid; use 1280-65535")
    return mtu


def check_flaps(flaps: int) -> int:
    if not 1 <= flaps <= MAX_FLAPS:
        raise ArgumentError("flaps", f"{flaps!r} is not valid; use 1-{MAX_FLAPS}")
    return flaps


def port(host: HostPlan) -> str:
    """The host's port on its leaf bridge (fabric namespace)."""
    return f"h{host.index}"


def find_host(layout: LabLayout, name: str) -> HostPlan:
    for h in layout.hosts:
        if h.name == name:
            return h
    raise UserError(
        f"host: {name!r} is not a host of lab {layout.name!r} "
        f"({', '.join(h.name for h in layout.hosts)})"
    )


def _shape(netns: str, dev: str, bits: int) -> None:
    subprocess.run(
        ["ip", "netns", "exec", netns, "tc", "qdisc", "del", "dev", dev, "root"],
        capture_output=True,
        check=False,
    )
    network.tc(
        netns,
        "qdisc",
        "add",
        "dev",
        dev,
        "root",
        "tbf",
        "rate",
        f"{bits}bit",
        "burst",
        str(network.tbf_burst_bytes(bits)),
        "latency",
        network.TBF_LATENCY,
    )


def apply(
    layout: LabLayout,
    host: HostPlan,
    kind: str,
    rate: str = DEFAULT_RATE,
    mtu: int = DEFAULT_MTU,
    flaps: int = DEFAULT_FLAPS,
    sleep: Callable[[float], None] = time.sleep,
) -> str:
    """Inject `kind` on `host`; returns a one-line description."""
    fab = layout.fabric_netns
    if kind == "slow-link":
        bits = rate_bits(rate)
        _shape(host.netns, "eth0", bits)
        _shape(fab, port(host), bits)
        return f"{host.name}: link shaped to {rate} both ways (eth0 egress, {port(host)} egress)"
    if kind == "mtu":
        network.ip("-n", host.netns, "link", "set", "eth0", "mtu", str(check_mtu(mtu)))
        return f"{host.name}: eth0 mtu {mtu}"
    if kind == "link-down":
        network.ip("-n", fab, "link", "set", port(host), "down")
        return f"{host.name}: leaf port {port(host)} down"
    if kind == "flap":
        for _ in range(check_flaps(flaps)):
            network.ip("-n", fab, "link", "set", port(host), "down")
            sleep(0.2)
            network.ip("-n", fab, "link", "set", port(host), "up")
            sleep(0.2)
        return f"{host.name}: leaf port {port(host)} flapped {flaps} times"
    raise UserError(f"fault: {kind!r} is not valid; use one of {', '.join(KINDS)}")


def fault(
    name: str,
    host_name: str,
    kind: str,
    rate: str = DEFAULT_RATE,
    mtu: int = DEFAULT_MTU,
    flaps: int = DEFAULT_FLAPS,
) -> str:
    """`gpufabric lab fault`: check everything first, then inject and record the fault."""
    check_kind(kind)
    if kind == "slow-link":
        try:
            rate_bits(rate)
        except UserError:
            raise ArgumentError(
                "rate",
                f"{rate!r} is not valid; use a tc rate from 8kbit to 1tbit such as 20mbit, 100mbit",
            ) from None
    if kind == "mtu":
        check_mtu(mtu)
    if kind == "flap":
        check_flaps(flaps)
    lab.check_root()
    st, paths = lab.load_up(name)
    host = find_host(st.layout, host_name)
    what = apply(st.layout, host, kind, rate, mtu, flaps)
    st.faults[host.name] = sorted({*st.faults.get(host.name, []), kind})
    state.save(paths, st)
    return what


def recreate_link(layout: LabLayout, host: HostPlan) -> None:
    """Replace the host's veth pair by a fresh one (as `lab up` made it), keeping the host's
    MAC address: the other hosts' and the controller's ARP caches stay right (a new MAC would
    leave them sending to the old one until their entries go stale)."""
    fab = layout.fabric_netns
    mac = _mac(host.netns, "eth0")
    network.ip("-n", fab, "link", "del", port(host), check=False)
    peer = ["peer", "name", "eth0", *(["address", mac] if mac else []), "netns", host.netns]
    network.ip("-n", fab, "link", "add", port(host), "type", "veth", *peer)
    network.ip("-n", fab, "link", "set", port(host), "master", host.leaf, "up")
    network.ip("-n", host.netns, "addr", "add", f"{host.address}/{layout.prefixlen}", "dev", "eth0")
    network.ip("-n", host.netns, "link", "set", "eth0", "up")


def _mac(netns: str, dev: str) -> str:
    proc = network.ip("-n", netns, "-j", "link", "show", dev, check=False)
    try:
        return str(parse_json(proc.stdout, where="ip -j addr")[0]["address"])
    except (ValueError, LookupError, TypeError):
        return ""


def restart(name: str, host_name: str) -> tuple[LabState, str]:
    """`gpufabric lab restart`: stop the host, give it a fresh link, boot it, wait for systemd."""
    lab.check_root()
    st, paths = lab.load_up(name)
    host = find_host(st.layout, host_name)
    hosts.stop([(st.pids.get(host.name), host)])
    recreate_link(st.layout, host)
    console = paths.host_dir(host.name) / "console.log"
    for attempt in (1, 2):
        pid = hosts.start(paths.host_root(host.name), host, console, paths.shared)
        st.pids[host.name] = pid
        st.faults.pop(host.name, None)
        state.save(paths, st)
        try:
            return st, hosts.wait_booted(pid, host, time.monotonic() + RESTART_TIMEOUT)
        except UserError:
            # seen once with 16 hosts on 2 CPUs: nspawn exited right after the stop (the old
            # container still going away); one more start after a pause boots it
            if attempt == 2 or hosts.is_nspawn_of(pid, host):
                tail = (
                    console.read_text(errors="replace").strip().splitlines()[-1:]
                    if (console.is_file())
                    else []
                )
                raise UserError(
                    f"lab host {host.name} did not boot again: "
                    f"{' '.join(tail) or 'see its console log'}"
                ) from None
            time.sleep(3)
    raise AssertionError("unreachable")
