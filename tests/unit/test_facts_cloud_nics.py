"""Fabric facts tell OCI's RoCE HCAs from its front-end NIC, and Nebius' 8 IB HCAs."""

from __future__ import annotations

import pytest

from gpufabric.catalog import lookup
from gpufabric.errors import ConfigError
from gpufabric.facts.cloud_nics import classify


def _dev(name: str, layer: str, state: str = "Active") -> dict:
    return {
        "name": name,
        "ports": [{"number": 1, "state": state, "link_layer": layer, "rate_gbps": 200.0}],
    }


def _oci_host(shape: str) -> dict:
    hcas = lookup(shape).fabric_hcas
    names = [*hcas, "mlx5_2", "mlx5_11"] if shape == "BM.GPU.H100.8" else hcas
    return {"rdma_devices": [_dev(n, "Ethernet") for n in names]}


def test_oci_h100_sixteen_roce_hcas_and_the_front_end_apart() -> None:
    out = classify(_oci_host("BM.GPU.H100.8"), "BM.GPU.H100.8")
    assert out["ok"] and len(out["fabric_up"]) == 16
    assert out["other"] == ["mlx5_11", "mlx5_2"]
    assert "16 of 16 BM.GPU.H100.8 fabric NICs up (Ethernet)" in out["line"]
    assert "front end" in out["line"]


def test_oci_missing_and_down_hcas_are_named() -> None:
    host = _oci_host("BM.GPU.H200.8")
    host["rdma_devices"] = [d for d in host["rdma_devices"] if d["name"] != "mlx5_9"]
    host["rdma_devices"][0] = _dev("mlx5_0", "Ethernet", "Down")
    out = classify(host, "BM.GPU.H200.8")
    assert not out["ok"]
    assert out["missing"] == ["mlx5_9"] and out["down"] == ["mlx5_0"]
    assert "6 of 8" in out["line"]


def test_nebius_ib_hcas_and_an_ethernet_port_is_wrong() -> None:
    host = {"rdma_devices": [_dev(f"mlx5_{i}", "InfiniBand") for i in range(8)]}
    assert classify(host, "gpu-h100-sxm/8gpu-128vcpu-1600gb")["ok"]
    host["rdma_devices"][3] = _dev("mlx5_3", "Ethernet")
    out = classify(host, "gpu-h100-sxm/8gpu-128vcpu-1600gb")
    assert out["wrong_layer"] == ["mlx5_3"] and "not InfiniBand: mlx5_3" in out["line"]


def test_types_without_a_list_are_not_checked() -> None:
    out = classify({"rdma_devices": [_dev("mlx5_0", "Ethernet")]}, "BM.GPU4.8")
    assert out["ok"] and "not checked" in out["line"]


def test_unknown_type_names_the_variable() -> None:
    with pytest.raises(ConfigError, match=r"^gpufabric_instance_type: 'BM\.GPU\.H100'"):
        classify({}, "BM.GPU.H100")
