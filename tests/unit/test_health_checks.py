"""Step 1 (no traffic): parsers on real captured output, and each check on a broken host."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from tests.conftest import capture

from gpufabric.errors import UserError
from gpufabric.health import expect as health_expect
from gpufabric.health import parsers
from gpufabric.health.checks import check_hosts
from gpufabric.health.expect import expected
from gpufabric.vocabulary import FABRICS

DATA = Path(__file__).parent / "data" / "health"


def lab_host(**net: object) -> dict:
    eth0 = {
        "operstate": "up",
        "carrier": "1",
        "mtu": "1500",
        "speed": "10000",
        "carrier_changes": "2",
        "stats": {},
        "pcie": {},
        "driver": "veth",
        **net,
    }
    return {
        "net": {"lo": {"operstate": "unknown", "mtu": "65536"}, "eth0": eth0},
        "ib": {},
        "nvidia_smi_pcie": "",
    }


def ib_host(rate: str = "400 Gb/sec (4X NDR)", state: str = "4: ACTIVE", **counters: str) -> dict:
    ports = {
        f"mlx5_{i}": {
            "ports": {
                "1": {
                    "state": state if i == 0 else "4: ACTIVE",
                    "phys_state": "5: LinkUp",
                    "rate": rate if i == 0 else "400 Gb/sec (4X NDR)",
                    "link_layer": "InfiniBand",
                    "counters": dict(counters) if i == 0 else {},
                    "hw_counters": {},
                }
            },
            "netdevs": [],
        }
        for i in range(8)
    }
    return {"net": {}, "ib": ports, "nvidia_smi_pcie": ""}


def run_lab(hosts: dict[str, dict]) -> dict[str, dict]:
    return check_hosts(hosts, {}, expected("lab"))


def test_healthy_lab_hosts_pass_every_check() -> None:
    out = run_lab({f"h{i}": lab_host() for i in range(1, 5)})
    assert all(v["reasons"] == [] for v in out.values())
    assert [r["check"] for r in out["h1"]["checks"]] == [
        "nic-count",
        "link-down",
        "link-rate",
        "mtu",
        "flap",
        "errors",
        "pcie",
        "affinity",
    ]


@pytest.mark.parametrize(
    ("broken", "reason"),
    [
        ({"mtu": "9000"}, "mtu: eth0 mtu 9000, the peers' 1500"),
        ({"operstate": "down", "carrier": "0"}, "link-down: eth0 operstate down, no carrier"),
        ({"carrier": "0"}, "link-down: eth0 operstate up, no carrier"),  # no carrier, yet "up"
        ({"carrier_changes": "14"}, "flap: eth0 carrier_changes 14, peers' median 2"),
        ({"speed": "1000"}, "link-rate: eth0 1000 Mb/s, expected 10 Gb/s"),
    ],
)
def test_one_broken_lab_host_is_named_with_its_reason(broken: dict, reason: str) -> None:
    hosts = {f"h{i}": lab_host() for i in range(1, 5)}
    hosts["h3"] = lab_host(**broken)
    out = run_lab(hosts)
    assert out["h3"]["reasons"] and out["h3"]["reasons"][0].startswith(reason), out["h3"]
    assert all(out[h]["reasons"] == [] for h in ("h1", "h2", "h4"))


def test_a_missing_nic_and_a_fixed_fabric_mtu() -> None:
    hosts = {"a": lab_host(), "b": {"net": {}, "ib": {}}}
    out = check_hosts(hosts, {}, expected("lab", mtu=9000))
    assert out["b"]["reasons"] == ["nic-count: 0 fabric NIC(s), expected 1"]
    assert out["a"]["reasons"] == ["mtu: eth0 mtu 1500, the fabric's 9000"]


def test_infiniband_port_rate_state_and_counters_against_the_instance_type() -> None:
    exp = expected("infiniband", "Standard_ND96isr_H100_v5")
    good = ib_host()
    slow = ib_host(rate="200 Gb/sec (4X HDR)")
    down = ib_host(state="1: DOWN")
    errs = ib_host(link_downed="3", symbol_error="5", port_rcv_errors="101")
    out = check_hosts({"g": good, "s": slow, "d": down, "e": errs}, {}, exp)
    assert out["g"]["reasons"] == []
    assert out["s"]["reasons"] == ["link-rate: mlx5_0/1 200 Gb/s, expected 400"]
    assert out["d"]["reasons"] == ["link-down: mlx5_0/1 DOWN / LinkUp"]
    assert out["e"]["reasons"] == [
        "flap: mlx5_0/1 link_downed 3",
        "errors: mlx5_0/1 port_rcv_errors 101",
    ]
    assert out["e"]["warnings"] == ["errors: mlx5_0/1 symbol_error 5"]


def test_gpu_and_nic_pcie_links_against_the_expected_width_and_generation() -> None:
    exp = expected("infiniband", "Standard_ND96isr_H100_v5")
    host = ib_host()
    host["nvidia_smi_pcie"] = (
        "0, 00000000:18:00.0, 1, 5, 16, 16\n"  # idle Gen1: not judged
        "1, 00000000:2A:00.0, 5, 5, 8, 8\n"
        "2, 00000000:3A:00.0, 4, 4, 16, 16\n"
    )
    out = check_hosts({"x": host}, {}, exp)
    assert out["x"]["reasons"] == [
        "pcie: GPU1 x8, expected x16",
        "pcie: GPU2 max Gen4, expected Gen5 (H100)",
    ]


def test_gpu_nic_affinity_across_numa_nodes() -> None:
    facts = {
        "gpus": [
            {"name": "GPU0", "numa_node": 0, "nearest_nic": "mlx5_0"},
            {"name": "GPU4", "numa_node": 1, "nearest_nic": "mlx5_0"},
        ],
        "rdma_devices": [{"name": "mlx5_0", "numa_node": 0}],
    }
    out = check_hosts({"x": lab_host()}, {"x": facts}, expected("lab"))
    assert out["x"]["reasons"] == ["affinity: GPU4 on NUMA 1, nearest NIC mlx5_0 on NUMA 0"]


def test_hostile_values_never_raise() -> None:
    weird = lab_host(mtu="NaN", carrier_changes="\x00", speed="-1", operstate="up\n")
    out = run_lab({"a": lab_host(), "b": weird, "c": {"net": "junk", "ib": ["x"]}})
    assert "link-down: eth0 operstate up\n" in out["b"]["reasons"]


def test_bad_fabric_or_instance_type_is_one_line() -> None:
    with pytest.raises(UserError, match="gpufabric_fabric: 'ethernet'"):
        expected("ethernet")
    with pytest.raises(UserError, match="fabric_health_instance_type"):
        expected("efa", "p5.48xlarg")
    with pytest.raises(UserError, match="fabric_health_mtu"):
        expected("lab", mtu=70000)


def test_parsers_on_real_ibstatus_output() -> None:
    path = capture("infiniband/ibstatus_excerpt_ndr_and_eth.txt")
    ports = parsers.ibstatus_ports(path.read_text())
    rates = {p["device"]: p["rate_gbps"] for p in ports}
    assert rates["mlx5_ib0"] == 400.0 and rates["mlx5_eth4"] == 25.0
    assert parsers.ib_state("4: ACTIVE") == "ACTIVE" and parsers.ib_state("5: LinkUp") == "LinkUp"
    assert parsers.ib_state("garbage") is None and parsers.ib_rate_gbps("") is None


def test_ethtool_stats_on_real_lab_output_and_pcie_speeds() -> None:
    stats = parsers.ethtool_stats((DATA / "ethtool_S_veth_lab.txt").read_text())
    assert stats["peer_ifindex"] == 6 and stats["rx_queue_0_drops"] == 0
    assert parsers.pcie_gen("32.0 GT/s PCIe") == 5 and parsers.pcie_gen("2.5 GT/s PCIe") == 1
    assert parsers.pcie_gen("Unknown") is None
    assert parsers.nvidia_smi_pcie("0, 00:18.0, [N/A], 5, 16, 16\nbad line\n") == [
        {
            "index": 0,
            "bus_id": "00:18.0",
            "gen_current": None,
            "gen_max": 5,
            "width_current": 16,
            "width_max": 16,
        }
    ]


def test_checks_do_not_modify_their_input() -> None:
    hosts = {"a": lab_host(), "b": lab_host(mtu="9000")}
    before = copy.deepcopy(hosts)
    run_lab(hosts)
    assert hosts == before


def test_every_host_short_of_the_instance_types_nics_or_rate_is_bad_even_when_all_agree() -> None:
    """The peers' view cannot hide a fault every host shares: the instance type (or the lab's
    table) sets the NIC count and rate."""
    exp = expected("infiniband", "Standard_ND96isr_H100_v5")
    assert (exp.nics, exp.nic_gbps, exp.gpu_model) == (8, 400.0, "H100")
    half = ib_host()
    half["ib"] = {k: v for k, v in half["ib"].items() if k < "mlx5_4"}
    out = check_hosts({"a": half, "b": copy.deepcopy(half)}, {}, exp)
    assert out["a"]["reasons"] == out["b"]["reasons"] == ["nic-count: 4 fabric NIC(s), expected 8"]
    slow = check_hosts({"a": ib_host(rate="200 Gb/sec (4X HDR)")}, {}, exp)
    assert slow["a"]["reasons"] == ["link-rate: mlx5_0/1 200 Gb/s, expected 400"]
    bare = run_lab({"a": {"net": {}, "ib": {}}, "b": {"net": {}, "ib": {}}})
    assert bare["a"]["reasons"] == ["nic-count: 0 fabric NIC(s), expected 1"]


def test_without_an_instance_type_only_the_peers_set_the_nic_count_and_rate() -> None:
    exp = expected("infiniband")
    assert (exp.nics, exp.nic_gbps, exp.gpu_model, exp.gpu_pcie_gen) == (None, None, "", None)
    half = ib_host()
    half["ib"] = {k: v for k, v in half["ib"].items() if k < "mlx5_4"}
    out = check_hosts({"a": half, "b": ib_host(), "c": ib_host()}, {}, exp)
    assert out["a"]["reasons"] == ["nic-count: 4 fabric NIC(s), expected 8"]


def test_a_gpu_model_without_a_pcie_entry_is_judged_on_width_x16_only() -> None:
    exp = expected("roce", "a4-highgpu-8g")  # B200: no entry in health.yaml
    assert (exp.gpu_model, exp.gpu_pcie_gen, exp.gpu_pcie_width) == ("B200", None, 16)


def test_the_pcie_width_in_the_table_is_the_one_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    table = copy.deepcopy(health_expect.table())
    table["gpu_pcie"]["H100"] = {"gen": 5, "width": 8}
    monkeypatch.setattr(health_expect, "table", lambda: table)
    assert expected("infiniband", "Standard_ND96isr_H100_v5").gpu_pcie_width == 8


@pytest.mark.parametrize("mtu", [576, 65535])
def test_the_mtu_limits_themselves_are_valid(mtu: int) -> None:
    assert expected("lab", mtu=mtu).mtu == mtu


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("lab", "", 575), "fabric_health_mtu: 575 is not valid; use 576-65535 (or 0: peers' MTU)"),
        (
            ("lab", "", 65536),
            "fabric_health_mtu: 65536 is not valid; use 576-65535 (or 0: peers' MTU)",
        ),
        (
            ("ethernet",),
            f"gpufabric_fabric: 'ethernet' is not valid; use one of {', '.join(FABRICS)}",
        ),
        (
            ("infiniband", "p5.48xlarge"),
            "fabric_health_instance_type: 'p5.48xlarge' has fabric efa, not gpufabric_fabric "
            "'infiniband'; its NIC count and rate would judge the wrong fabric",
        ),
        (
            ("tcpxo", "a4-highgpu-8g"),
            "fabric_health_instance_type: 'a4-highgpu-8g' has fabric roce, not gpufabric_fabric "
            "'tcpxo'; its NIC count and rate would judge the wrong fabric",
        ),
    ],
)
def test_bad_expectations_are_refused_in_one_exact_line(args: tuple, message: str) -> None:
    with pytest.raises(UserError) as exc:
        expected(*args)
    assert str(exc.value) == message


def test_an_unknown_instance_type_names_its_key_first() -> None:
    with pytest.raises(UserError) as exc:
        expected("efa", "p5.48xlarg")
    assert str(exc.value).startswith(
        "fabric_health_instance_type: 'p5.48xlarg' is not valid; did you mean 'p5.48xlarge'?"
    )
