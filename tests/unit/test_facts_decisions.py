"""The role decisions and the fabric-NIC verdict, each with the exact line a role prints."""

from __future__ import annotations

import pytest

from gpufabric.errors import UserError
from gpufabric.facts import decisions
from gpufabric.facts.cloud_nics import classify, roce_ports

MLX = {"name": "mlx5_0", "vendor_id": "0x02c9"}


# --- efa ----------------------------------------------------------------------------------


def test_efa_runs_and_counts_the_devices_fi_info_lists():
    facts = {"has_efa": True, "efa_devices": ["rdmap16s27", "rdmap32s27"], "efa_pci": [{}] * 4}
    assert decisions.efa(facts, "efa") == {"run": True, "reason": "efa: 2 EFA device(s) found"}


def test_efa_counts_the_pci_devices_when_fi_info_lists_none():
    facts = {"has_efa": True, "efa_devices": [], "efa_pci": [{}] * 4}
    assert decisions.efa(facts, "efa")["reason"] == "efa: 4 EFA device(s) found"


def test_efa_hardware_on_another_fabric_is_skipped_with_the_reason():
    assert decisions.efa({"has_efa": True}, "roce") == {
        "run": False,
        "reason": "efa: skipped, EFA hardware found but gpufabric_fabric=roce",
    }


def test_efa_no_device():
    assert decisions.efa({}, "efa") == {
        "run": False,
        "reason": "efa: skipped, no EFA device on this host (PCI 1d0f:efa*, fi_info -p efa); "
        "gpufabric_fabric=efa",
    }


# --- doca_ofed ------------------------------------------------------------------------------


def test_doca_ofed_counts_the_connectx_verbs_devices_not_the_efa_ones():
    facts = {
        "rdma_devices": [
            MLX,
            {"name": "mlx5_1", "vendor_id": ""},  # listed by ibstat only: no vendor read
            {"name": "mlx5_2", "vendor_id": "0x15b3"},  # ibstat only: the PCI vendor from sysfs
            {"name": "rdmap16s27", "vendor_id": ""},  # an EFA device seen by ibstat only
            {"name": "efa_0", "vendor_id": ""},
            {"name": "rdmap32s27", "vendor_id": "0x1d0f"},
            {"name": "irdma0", "vendor_id": "0x8086"},
        ],
        "rdma_nic_pci": [{}] * 5,
    }
    assert decisions.doca_ofed(facts, "infiniband") == {
        "run": True,
        "reason": "doca_ofed: 3 ConnectX device(s) found and no OFED installed",
    }


def test_doca_ofed_counts_the_pci_devices_when_no_driver_lists_them():
    facts = {"rdma_devices": [], "rdma_nic_pci": [{}] * 3}
    assert decisions.doca_ofed(facts, "roce")["reason"] == (
        "doca_ofed: 3 ConnectX device(s) found and no OFED installed"
    )


@pytest.mark.parametrize(
    "devices",
    [
        [],
        [{"name": "rdmap16s27", "vendor_id": ""}, {"name": "efa_0", "vendor_id": ""}],
        [{"name": "irdma0", "vendor_id": "0x8086"}],
    ],
)
def test_doca_ofed_skips_a_host_without_connectx(devices: list):
    assert decisions.doca_ofed({"rdma_devices": devices}, "infiniband") == {
        "run": False,
        "reason": "doca_ofed: skipped, no ConnectX/InfiniBand device on this host "
        "(ibstat, ibv_devinfo, PCI 15b3); gpufabric_fabric=infiniband",
    }


def test_doca_ofed_connectx_on_another_fabric_names_the_fabrics_it_serves():
    assert decisions.doca_ofed({"rdma_devices": [MLX]}, "efa") == {
        "run": False,
        "reason": "doca_ofed: skipped, ConnectX hardware found but gpufabric_fabric=efa "
        "(only infiniband or roce)",
    }


def test_doca_ofed_an_installed_ofed_is_kept():
    facts = {"rdma_devices": [MLX], "ofed_version": "OFED-internal-24.10-1.1.4"}
    assert decisions.doca_ofed(facts, "roce") == {
        "run": False,
        "reason": "doca_ofed: skipped install, the image already has OFED-internal-24.10-1.1.4 "
        "(ofed_info -s)",
    }


# --- host_tuning ----------------------------------------------------------------------------


def test_hugepages_only_with_efa():
    assert decisions.hugepages({"has_efa": True}, 5128) == {
        "run": True,
        "reason": "host_tuning: 5128 x 2 MiB hugepages for the EFA driver",
    }
    assert decisions.hugepages({"has_efa": False}, 5128) == {
        "run": False,
        "reason": "host_tuning: hugepages skipped, no EFA device on this host",
    }


@pytest.mark.parametrize(
    ("facts", "run"),
    [
        ({"has_gpu": True, "has_rdma": False}, True),
        ({"has_gpu": False, "has_rdma": True}, True),
        ({"has_gpu": True, "has_rdma": True}, True),
        ({"has_gpu": False, "has_rdma": False}, False),
    ],
)
def test_cpu_governor_on_gpu_or_rdma_hosts(facts: dict, run: bool):
    reason = (
        "host_tuning: CPU governor set for GPU/RDMA hardware"
        if run
        else "host_tuning: CPU governor skipped, no GPU or RDMA hardware on this host"
    )
    assert decisions.cpu_tuning(facts) == {"run": run, "reason": reason}


# --- fabric mismatch ------------------------------------------------------------------------


def test_fabric_mismatch_line_and_facts_without_detection():
    assert decisions.fabric_mismatch({}, "roce") == (
        "gpufabric_fabric=roce but this host shows fabric none "
        "(hardware steps follow the hardware; check the inventory)"
    )
    assert decisions.fabric_mismatch({"fabric_detected": "roce"}, "roce") == ""
    assert decisions.fabric_mismatch({}, "tcpxo") == ""  # nothing to detect on that fabric


def test_an_unknown_fabric_is_refused_by_every_decision():
    for call in (
        lambda: decisions.efa({}, "ethernet"),
        lambda: decisions.doca_ofed({}, "ethernet"),
        lambda: decisions.fabric_mismatch({}, "ethernet"),
    ):
        with pytest.raises(UserError, match=r"^gpufabric_fabric: 'ethernet' is not valid"):
            call()


# --- fabric NICs of an instance type ----------------------------------------------------------


def _dev(name: str, layer: str = "InfiniBand", state: str = "Active") -> dict:
    return {"name": name, "ports": [{"number": 1, "state": state, "link_layer": layer}]}


NEBIUS = "gpu-h100-sxm/8gpu-128vcpu-1600gb"  # 8 InfiniBand HCAs mlx5_0..7


def test_fabric_nics_a_type_without_a_list_is_not_checked():
    out = classify({"rdma_devices": [_dev("mlx5_1"), _dev("mlx5_0")]}, "BM.GPU4.8")
    assert out == {
        "ok": True,
        "fabric_up": [],
        "missing": [],
        "down": [],
        "wrong_layer": [],
        "other": ["mlx5_0", "mlx5_1"],
        "line": "fabric NICs: the catalog names no HCA list for BM.GPU4.8; not checked",
    }


def test_fabric_nics_every_finding_in_one_line():
    devices = [_dev(f"mlx5_{i}") for i in (0, 1, 2, 3)]
    devices += [_dev("mlx5_4", state="Down"), _dev("mlx5_5", state="Polling")]
    devices += [_dev("mlx5_6", "Ethernet"), _dev("mlx5_7", "Ethernet")]
    devices += [_dev("mlx5_8", "Ethernet"), _dev("mlx5_9", "Ethernet")]
    del devices[1:3]  # mlx5_1 and mlx5_2 missing
    out = classify({"rdma_devices": devices}, NEBIUS)
    assert out == {
        "ok": False,
        "fabric_up": ["mlx5_0", "mlx5_3"],
        "missing": ["mlx5_1", "mlx5_2"],
        "down": ["mlx5_4", "mlx5_5"],
        "wrong_layer": ["mlx5_6", "mlx5_7"],
        "other": ["mlx5_8", "mlx5_9"],
        "line": f"fabric NICs: 2 of 8 {NEBIUS} fabric NICs up (InfiniBand); "
        "missing mlx5_1, mlx5_2; down mlx5_4, mlx5_5; not InfiniBand: mlx5_6, mlx5_7; "
        "not fabric (front end): mlx5_8, mlx5_9",
    }


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (lambda d: d.pop(3), "missing"),
        (lambda d: d.__setitem__(3, _dev("mlx5_3", state="Down")), "down"),
        (lambda d: d.__setitem__(3, _dev("mlx5_3", "Ethernet")), "wrong_layer"),
    ],
)
def test_fabric_nics_one_finding_alone_fails_the_host(change, key: str):
    devices = [_dev(f"mlx5_{i}") for i in range(8)]
    change(devices)
    out = classify({"rdma_devices": devices}, NEBIUS)
    assert out["ok"] is False and out[key] == ["mlx5_3"]


def test_fabric_nics_a_port_without_link_layer_is_judged_by_its_state():
    """ibv_devinfo-only devices and some ibstat builds print no link layer."""
    devices = [_dev(f"mlx5_{i}", layer="") for i in range(8)]
    out = classify({"rdma_devices": devices}, NEBIUS)
    assert out["ok"] is True and len(out["fabric_up"]) == 8
    assert out["line"] == f"fabric NICs: 8 of 8 {NEBIUS} fabric NICs up (InfiniBand)"


def test_fabric_nics_port_active_counts_as_up():
    devices = [_dev(f"mlx5_{i}", state="PORT_ACTIVE") for i in range(8)]
    assert classify({"rdma_devices": devices}, NEBIUS)["ok"] is True


# --- roce_qos ports ---------------------------------------------------------------------------


FOUND = ["ens1 mlx5_0", "", "ens2 mlx5_1", "ens3 mlx5_2"]


def test_roce_ports_the_order_of_choice():
    assert roce_ports(FOUND, ["ens3", "ens9"], ["mlx5_0"], NEBIUS) == ["ens3"]
    assert roce_ports(FOUND, [], ["mlx5_1", "mlx5_2"], NEBIUS) == ["ens2", "ens3"]
    # the catalog's HCAs: OCI's H100 front-end NIC mlx5_2 is left alone
    assert roce_ports(FOUND, [], [], "BM.GPU.H100.8") == ["ens1", "ens2"]
    assert roce_ports(FOUND, [], [], "BM.GPU4.8") == ["ens1", "ens2", "ens3"]  # no list: all
    assert roce_ports(FOUND, [], [], "") == ["ens1", "ens2", "ens3"]
    assert roce_ports(FOUND, [], []) == ["ens1", "ens2", "ens3"]  # no type given: all


@pytest.mark.parametrize("bad", ["ens1", "ens1 mlx5_0 extra"])
def test_roce_ports_a_probe_line_of_another_shape_is_one_line(bad: str):
    with pytest.raises(UserError) as err:
        roce_ports(["ens0 mlx5_9", bad], [], [], "")
    assert str(err.value) == f"roce_qos: unexpected probe line {bad!r} (want 'netdev rdma-device')"
