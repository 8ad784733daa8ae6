"""gpufabric_facts from gathered tool output, and the role decisions taken from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import capture

from gpufabric.errors import UserError
from gpufabric.facts import decisions, host

DATA = Path(__file__).resolve().parent / "facts_data"
IBSTAT_SAMPLE = (DATA / "ibstat_layout_sample.txt").read_text()  # hand-written, see PROVENANCE
IBV_DEVINFO_SAMPLE = (DATA / "ibv_devinfo_layout_sample.txt").read_text()


def fixture(rel: str) -> str:
    return capture(rel).read_text()


def lab_raw() -> dict:
    """What the collector returns on a lab host: only `ip`, no GPU/RDMA tools, no PCI hits."""
    return {
        "tools": {"ip": "/usr/sbin/ip", "nvidia-smi": "", "ibstat": "", "fi_info": ""},
        "outputs": {"ip_link": (DATA / "ip_j_d_link_netns_veth_bridge.json").read_text()},
        "sysfs": {"pci": [], "net": {"eth0": {"numa_node": "-1", "pci": ""}}, "infiniband": {}},
    }


def test_lab_host_reports_no_gpu_no_rdma_in_one_line():
    facts = host.summarize(lab_raw(), "h1")
    assert facts["has_gpu"] is False and facts["has_rdma"] is False
    assert facts["fabric_detected"] == "none"
    assert facts["summary"].startswith("h1: no GPU, no RDMA (fabric none)")
    assert "eth0 mtu 9000" in facts["summary"] and "\n" not in facts["summary"]
    assert facts["tools"] == {"ip": "/usr/sbin/ip"}


def test_p4de_efa_host():
    raw = {
        "outputs": {
            "fi_info": fixture("fi_info/fi_info_p_efa_rdm_p4de_4nic.txt"),
            "nvidia_smi_topo": fixture("nvidia-smi-topo/a100_8gpu_nv12_no_nics.txt"),
        },
        "sysfs": {
            "pci": [
                {
                    "address": "0000:10:1b.0",
                    "vendor": "0x1d0f",
                    "device": "0xefa1",
                    "class": "0x020000",
                }
            ]
        },
    }
    facts = host.summarize(raw, "p4de-1")
    assert facts["fabric_detected"] == "efa"
    assert facts["efa_devices"] == ["rdmap144s27", "rdmap160s27", "rdmap16s27", "rdmap32s27"]
    assert facts["gpu_count"] == 8
    assert "8 GPU, 4 EFA (fabric efa)" in facts["summary"]
    assert decisions.efa(facts, "efa")["run"] is True
    assert decisions.hugepages(facts, 5128)["run"] is True
    assert decisions.doca_ofed(facts, "efa")["run"] is False


def test_infiniband_host_from_ibstat_and_topo():
    raw = {
        "outputs": {
            "ibstat": IBSTAT_SAMPLE,
            "ibv_devinfo": IBV_DEVINFO_SAMPLE,
            "nvidia_smi_topo": fixture("nvidia-smi-topo/h100_8gpu_13nic_8ib_5eth.txt"),
        },
        "sysfs": {
            "infiniband": {"mlx5_0": {"pci": "0000:1a:00.0", "numa_node": "0", "vendor": "0x15b3"}}
        },
    }
    facts = host.summarize(raw, "ib1")
    names = [d["name"] for d in facts["rdma_devices"]]
    assert names == ["mlx5_0", "mlx5_1", "rdmap16s27"]
    assert facts["rdma_devices"][0]["numa_node"] == 0
    assert facts["rdma_devices"][0]["ports"][0]["rate_gbps"] == 400.0
    # the hand-made ibv_devinfo sample also lists an EFA-vendor device: EFA wins detection
    assert facts["gpus"][3]["nearest_nic"] == "mlx5_ib3"


def test_ib_fabric_detection_and_doca_decisions():
    raw = {"outputs": {"ibstat": IBSTAT_SAMPLE}}
    facts = host.summarize(raw)
    assert facts["fabric_detected"] == "infiniband"
    assert "2 RDMA @ 2.5/400 Gb/s" in facts["summary"]
    assert decisions.doca_ofed(facts, "infiniband")["run"] is True
    assert decisions.efa(facts, "infiniband")["run"] is False
    installed = host.summarize({**raw, "ofed_version": "MLNX_OFED_LINUX-23.10-1.1.9.0"})
    skip = decisions.doca_ofed(installed, "infiniband")
    assert skip["run"] is False and "already has MLNX_OFED_LINUX-23.10-1.1.9.0" in skip["reason"]


def test_roce_detection_from_ibstatus_link_layer():
    only_eth = IBSTAT_SAMPLE.split("CA 'mlx5_1'")[1]
    facts = host.summarize({"outputs": {"ibstat": "CA 'mlx5_1'" + only_eth}})
    assert facts["fabric_detected"] == "roce"


def test_lab_decisions_skip_with_one_line_reasons():
    facts = host.summarize(lab_raw(), "h1")
    for decision in (
        decisions.efa(facts, "lab"),
        decisions.doca_ofed(facts, "lab"),
        decisions.hugepages(facts, 5128),
        decisions.cpu_tuning(facts),
    ):
        assert decision["run"] is False
        assert "skipped" in decision["reason"] and "\n" not in decision["reason"]
    assert decisions.fabric_mismatch(facts, "lab") == ""
    assert "fabric none" in decisions.fabric_mismatch(facts, "efa")


def test_bad_fabric_is_a_user_error():
    with pytest.raises(UserError, match="gpufabric_fabric: 'ethernet' is not valid"):
        decisions.efa({}, "ethernet")


def test_pci_classification():
    out = host.classify_pci(
        [
            {"vendor": "0x10de", "device": "0x2330", "class": "0x030200"},
            {"vendor": "0x15b3", "device": "0x1021", "class": "0x020700"},
            {"vendor": "0x1d0f", "device": "0xec20", "class": "0x020000"},  # ENA, not EFA
            {"vendor": "0x1d0f", "device": "0xefa2", "class": "0x020000"},
        ]
    )
    assert [len(out[k]) for k in ("gpu", "rdma_nic", "efa")] == [1, 1, 1]


def test_collector_script_output_feeds_the_library_on_this_machine():
    """The role's collector (read-only) run here; its JSON is what summarize() expects."""
    import json
    import subprocess
    import sys

    script = (
        Path(__file__).resolve().parents[2]
        / "roles"
        / "fabric_facts"
        / "files"
        / "collect_fabric.py"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, timeout=120
    )
    raw = json.loads(proc.stdout)
    assert set(raw) == {
        "tools",
        "outputs",
        "errors",
        "ofed_version",
        "efa_installer_version",
        "sysfs",
    }
    facts = host.summarize(raw, "ci")
    assert facts["summary"].startswith("ci: ")
    if raw["tools"].get("ip"):
        assert facts["netdevs"], "ip -j -d link ran but no interface was parsed"
        assert all(n["link_type"] != "loopback" for n in facts["netdevs"])
