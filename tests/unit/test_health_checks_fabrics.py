"""Step 1 (no traffic) on each fabric's kind of host: which netdevs are fabric NICs, the
counters read from sysfs and `ethtool -S`, NIC PCIe links, IB port states, flaps at their
threshold, and the per-check rows of the report."""

from __future__ import annotations

import copy

import pytest
from tests.unit.test_health_checks import ib_host, lab_host, run_lab

from gpufabric.health.checks import check_host, check_hosts, peer_view, traffic_limits
from gpufabric.health.expect import expected

ETHTOOL_MLX5 = (
    "NIC statistics:\n"
    "     rx_packets_phy: 1000\n"
    "     tx_pause_storm_error_events: 1\n"
    "     rx_crc_errors_phy: 0\n"
)


def netdev(**over: object) -> dict:
    return {
        "operstate": "up",
        "carrier": "1",
        "mtu": "9000",
        "speed": "400000",
        "carrier_changes": "2",
        "type": "1",
        "pcie": {},
        **over,
    }


def roce_host(**ens: object) -> dict:
    """An 8-port RoCE host: mlx5_N's netdev is ensN; eth0 is the management NIC."""
    host = ib_host()
    for i in range(8):
        host["ib"][f"mlx5_{i}"]["netdevs"] = [f"ens{i}"]
        host["ib"][f"mlx5_{i}"]["ports"]["1"]["link_layer"] = "Ethernet"
    host["net"] = {f"ens{i}": netdev(**(ens if i == 0 else {})) for i in range(8)}
    host["net"]["eth0"] = netdev(mtu="1500", speed="100000", operstate="down", carrier="0")
    host["net"]["lo"] = {"operstate": "unknown", "mtu": "65536"}
    return host


def test_on_roce_only_the_rdma_devices_netdevs_are_fabric_nics() -> None:
    exp = expected("roce", "BM.GPU.H200.8", mtu=9000)
    out = check_hosts({"a": roce_host(), "b": roce_host(mtu="1500")}, {}, exp)
    assert out["a"]["reasons"] == []  # eth0 (management) is down at MTU 1500: not judged
    assert out["b"]["reasons"] == ["mtu: ens0 mtu 1500, the fabric's 9000"]


def test_an_rdma_device_without_netdevs_has_no_fabric_netdev() -> None:
    host = roce_host(mtu="1500")
    del host["ib"]["mlx5_0"]["netdevs"]
    out = check_hosts({"a": host}, {}, expected("roce", "BM.GPU.H200.8", mtu=9000))
    assert out["a"]["reasons"] == []  # ens0 is no longer known as a fabric netdev


def test_on_tcpxo_only_the_netdevs_with_a_pcie_link_are_fabric_nics() -> None:
    exp = expected("tcpxo", "a3-megagpu-8g")
    link = {"current_link_width": "16", "max_link_width": "16"}
    host = {"net": {f"eth{i}": netdev(speed="200000", pcie=link) for i in range(1, 9)}, "ib": {}}
    host["net"]["eth0"] = netdev(speed="100000")  # no PCIe link read: not a fabric NIC
    out = check_hosts({"a": host}, {}, exp)
    assert out["a"]["reasons"] == []
    short = copy.deepcopy(host)
    del short["net"]["eth8"]
    assert check_hosts({"a": short}, {}, exp)["a"]["reasons"] == [
        "nic-count: 7 fabric NIC(s), expected 8"
    ]


def test_rows_per_check_carry_their_verdict_and_detail() -> None:
    hosts = {f"h{i}": lab_host() for i in range(1, 4)}
    hosts["h3"] = lab_host(
        mtu="9000", ethtool=ETHTOOL_MLX5.replace("error_events: 1", "error_events: 0")
    )
    hosts["h3"]["net"]["eth0"]["ethtool"] += "     rx_symbol_err_phy: 2\n"
    out = run_lab(hosts)
    assert out["h1"]["checks"][:2] == [
        {"check": "nic-count", "ok": True, "detail": "1"},
        {"check": "link-down", "ok": True, "detail": "ok"},
    ]
    rows = {r["check"]: r for r in out["h3"]["checks"]}
    assert rows["mtu"] == {"check": "mtu", "ok": False, "detail": "eth0 mtu 9000, the peers' 1500"}
    assert rows["errors"] == {"check": "errors", "ok": True, "detail": "eth0 rx_symbol_err_phy 2"}
    both = check_hosts(
        {"x": lab_host(operstate="down", carrier="0", mtu="9000")}, {}, expected("lab", mtu=1500)
    )
    row = next(r for r in both["x"]["checks"] if r["check"] == "link-down")
    assert row == {"check": "link-down", "ok": False, "detail": "eth0 operstate down, no carrier"}


def test_ethtool_and_sysfs_counters_of_one_host_are_all_judged() -> None:
    exp = expected("roce", "BM.GPU.H200.8")
    host = roce_host(ethtool=ETHTOOL_MLX5)
    port = host["ib"]["mlx5_0"]["ports"]["1"]
    port["counters"] = {"port_rcv_errors": "0", "symbol_error": "1", "link_downed": "0"}
    out = check_hosts({"a": host}, {}, exp)
    assert out["a"]["reasons"] == ["errors: ens0 tx_pause_storm_error_events 1"]
    assert out["a"]["warnings"] == ["errors: mlx5_0/1 symbol_error 1"]


def test_efa_hw_counters_warn() -> None:
    exp = expected("efa", "p5en.48xlarge")
    host = ib_host()
    host["ib"] = {
        f"rdmap{i}s0": {
            "ports": {"1": {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "hw_counters": {}}},
            "netdevs": [],
        }
        for i in range(16)
    }
    host["ib"]["rdmap0s0"]["ports"]["1"]["hw_counters"] = {"rx_drops": "7", "tx_bytes": "9"}
    out = check_hosts({"a": host}, {}, exp)
    assert out["a"]["reasons"] == []
    assert out["a"]["warnings"] == ["errors: rdmap0s0/1 rx_drops 7"]


def test_link_error_recovery_is_a_flap_not_an_error() -> None:
    exp = expected("infiniband", "Standard_ND96isr_H100_v5")
    out = check_hosts({"a": ib_host(link_error_recovery="2")}, {}, exp)
    assert out["a"]["reasons"] == ["flap: mlx5_0/1 link_error_recovery 2"]


@pytest.mark.parametrize(
    ("cc", "reasons"),
    [
        ("11", []),  # 9 more than the peers' 2: under the threshold of 10
        ("12", ["flap: eth0 carrier_changes 12, peers' median 2 (~5 more down/up cycles)"]),
    ],
)
def test_flaps_at_the_threshold(cc: str, reasons: list[str]) -> None:
    hosts = {f"h{i}": lab_host() for i in range(1, 4)}
    hosts["h3"] = lab_host(carrier_changes=cc)
    assert run_lab(hosts)["h3"]["reasons"] == reasons


@pytest.mark.parametrize(
    ("state", "phys", "reason"),
    [
        ("4: ACTIVE", "2: Polling", "link-down: mlx5_0/1 ACTIVE / Polling"),
        (None, "5: LinkUp", "link-down: mlx5_0/1 ? / LinkUp"),
        ("1: DOWN", None, "link-down: mlx5_0/1 DOWN / ?"),
    ],
)
def test_ib_port_state_and_physical_state(state: str | None, phys: str | None, reason: str) -> None:
    host = ib_host()
    port = host["ib"]["mlx5_0"]["ports"]["1"]
    for key, val in (("state", state), ("phys_state", phys)):
        if val is None:
            del port[key]
        else:
            port[key] = val
    out = check_hosts({"a": host}, {}, expected("infiniband", "Standard_ND96isr_H100_v5"))
    assert out["a"]["reasons"] == [reason]


def test_an_active_port_without_a_physical_state_is_up() -> None:
    host = ib_host()
    del host["ib"]["mlx5_0"]["ports"]["1"]["phys_state"]
    out = check_hosts({"a": host}, {}, expected("infiniband", "Standard_ND96isr_H100_v5"))
    assert out["a"]["reasons"] == []


def test_a_junk_rdma_device_does_not_hide_the_others() -> None:
    host = ib_host(state="1: DOWN")
    host["ib"] = {"aaa": "junk", **host["ib"]}
    out = check_hosts({"a": host}, {}, expected("infiniband", "Standard_ND96isr_H100_v5"))
    assert out["a"]["reasons"] == ["link-down: mlx5_0/1 DOWN / LinkUp"]


def test_without_an_instance_type_the_peers_rate_is_expected() -> None:
    """The slow host comes last: every host's ports count towards the peers' rate."""
    slow = ib_host()
    for dev in slow["ib"].values():
        dev["ports"]["1"]["rate"] = "200 Gb/sec (4X HDR)"
    hosts = {"a": ib_host(), "b": ib_host(), "c": slow}
    exp = expected("infiniband")
    assert peer_view(hosts, exp)["nic_gbps"] == 400.0
    out = check_hosts(hosts, {}, exp)
    assert out["c"]["reasons"][0] == "link-rate: mlx5_0/1 200 Gb/s, expected 400"
    assert len(out["c"]["reasons"]) == 8 and out["a"]["reasons"] == []


@pytest.mark.parametrize(
    ("speed", "slow"), [("1", True), ("9999", True), ("0", False), ("-1", False)]
)
def test_a_netdev_speed_is_judged_when_it_is_known(speed: str, slow: bool) -> None:
    reasons = run_lab({"a": lab_host(speed=speed)})["a"]["reasons"]
    assert reasons == ([f"link-rate: eth0 {speed} Mb/s, expected 10 Gb/s"] if slow else [])


def test_a_host_judged_alone_is_judged_against_its_expectations() -> None:
    hc = check_host(lab_host(speed="1000"), {}, expected("lab"), {})
    assert hc.reasons == ["link-rate: eth0 1000 Mb/s, expected 10 Gb/s"]


@pytest.mark.parametrize(
    ("pcie", "reasons"),
    [
        (
            {
                "current_link_width": "8",
                "max_link_width": "16",
                "current_link_speed": "8.0 GT/s PCIe",
                "max_link_speed": "16.0 GT/s PCIe",
            },
            ["pcie: eth0 x8 of x16", "pcie: eth0 Gen3 of Gen4"],
        ),
        (
            {
                "current_link_width": "16",
                "max_link_width": "16",
                "current_link_speed": "16.0 GT/s PCIe",
                "max_link_speed": "16.0 GT/s PCIe",
            },
            [],
        ),
        ({"current_link_width": "8", "current_link_speed": "8.0 GT/s PCIe"}, []),
        ({"max_link_width": "16", "max_link_speed": "16.0 GT/s PCIe"}, []),
    ],
)
def test_a_nics_pcie_link_below_its_maximum(pcie: dict, reasons: list[str]) -> None:
    out = run_lab({"a": lab_host(pcie=pcie)})["a"]
    assert out["reasons"] == reasons
    row = next(r for r in out["checks"] if r["check"] == "pcie")
    assert row["detail"] == ("; ".join(r.removeprefix("pcie: ") for r in reasons) or "ok")


def test_only_a_tun_device_named_ipsec_is_userspace_esp() -> None:
    host = lab_host()
    host["net"]["ipsec1"] = netdev(type="1", mtu="1500", speed="10000")  # e.g. a real NIC
    host["net"]["tun0"] = netdev(type="65534", operstate="unknown")  # another program's TUN
    host["net"]["ipsec9"] = "junk"
    out = run_lab({"a": host})
    assert "userspace_esp" not in out["a"]
    assert out["a"]["checks"][0]["detail"] == "2"  # eth0 and ipsec1; tun0 is no fabric NIC


@pytest.mark.parametrize("esp_rate", [0, 1, 10])
def test_the_fraction_asked_for_holds_whatever_the_limits(esp_rate: int) -> None:
    ipsec0 = netdev(type="65534", operstate="unknown")
    plain = {"h1": lab_host()}
    meshed = {"h1": lab_host()}
    meshed["h1"]["net"]["ipsec0"] = ipsec0
    for hosts in (plain, meshed):
        step1 = check_hosts(hosts, {}, expected("lab"))
        limits, _findings, rate = traffic_limits(step1, 0.2, 0.5, esp_rate_mbit=esp_rate)
        assert limits.fraction == 0.5
    assert rate == (esp_rate or None)
    assert limits.expected_gbps == (esp_rate / 1000 if esp_rate else None)
