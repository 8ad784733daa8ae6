"""A host with the lab's IPsec mesh up (strongSwan's userspace ESP over its TUN device ipsec0)
is judged like any other: the TUN device is not a fabric NIC, and the rate of encryption in
userspace is judged against the peers, not against the link's expected rate."""

from __future__ import annotations

import copy

from tests.unit.test_health_checks import lab_host

from gpufabric.health import bisect
from gpufabric.health.checks import check_hosts, traffic_limits
from gpufabric.health.expect import expected

# /sys/class/net/ipsec0 of a lab host with the mesh up: a TUN device in IP mode (ARPHRD_NONE)
# has no carrier of its own and reads operstate "unknown"; its speed cannot be read.
IPSEC0 = {
    "operstate": "unknown",
    "carrier": "1",
    "mtu": "1400",
    "carrier_changes": "0",
    "type": "65534",
    "stats": {},
    "pcie": {},
    "driver": "tun",
}


def meshed(host: dict) -> dict:
    out = copy.deepcopy(host)
    out["net"]["eth0"]["type"] = "1"
    out["net"]["ipsec0"] = dict(IPSEC0)
    return out


def test_the_userspace_esp_device_is_not_a_fabric_nic() -> None:
    hosts = {h: meshed(lab_host()) for h in ("h1", "h2", "h3", "h4")}
    step1 = check_hosts(hosts, {}, expected("lab"))
    assert {h: r["reasons"] for h, r in step1.items()} == {h: [] for h in hosts}
    assert all(r["userspace_esp"] == ["ipsec0"] for r in step1.values())


def test_a_real_link_fault_is_still_found_with_the_mesh_up() -> None:
    hosts = {h: meshed(lab_host()) for h in ("h1", "h2", "h3")}
    hosts["h2"]["net"]["eth0"]["operstate"] = "down"
    step1 = check_hosts(hosts, {}, expected("lab"))
    assert step1["h2"]["reasons"] == ["link-down: eth0 operstate down"]


def test_userspace_esp_rates_are_judged_against_peers_only() -> None:
    step1 = check_hosts(
        {h: meshed(lab_host()) for h in ("h1", "h2", "h3", "h4")}, {}, expected("lab")
    )
    limits, findings = traffic_limits(step1, 0.2, 0.7)
    assert limits.expected_gbps is None and limits.fraction == 0.7
    assert len(findings) == 1 and "userspace ESP" in findings[0] and "h1, h2, h3, h4" in findings[0]
    # every group moves ~0.05 Gbit/s through userspace ESP: against 0.2 * 0.7 all would fail
    state = bisect.start(list(step1), limits)
    while not state["done"]:
        tests = bisect.plan(state)
        state = bisect.record(
            state, [{"fwd": [0.05] * 4, "rev": [0.05] * 4, "error": ""}] * len(tests)
        )
    assert state["bad"] == {} and sorted(state["good"]) == ["h1", "h2", "h3", "h4"]


def test_without_the_mesh_the_expected_rate_still_applies() -> None:
    step1 = check_hosts({h: lab_host() for h in ("h1", "h2")}, {}, expected("lab"))
    limits, findings = traffic_limits(step1, 0.2, 0.7)
    assert limits.expected_gbps == 0.2 and findings == []
