"""Fabric traits: every fabric has them, and the host checks follow the trait, not the name."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufabric import vocabulary
from gpufabric.facts import decisions
from gpufabric.health import checks
from gpufabric.health.expect import expected
from gpufabric.vocabulary import FABRIC_TRAITS, FABRICS, FabricTraits


def test_every_fabric_has_its_traits() -> None:
    assert set(FABRIC_TRAITS) == set(FABRICS)


def test_every_driver_role_exists() -> None:
    from pathlib import Path

    roles = Path(__file__).resolve().parents[2] / "roles"
    for fabric, t in FABRIC_TRAITS.items():
        if t.driver_role is not None:
            assert (roles / t.driver_role / "tasks" / "main.yml").is_file(), fabric


RAW = {
    "net": {
        "eth0": {"operstate": "up", "carrier": "1", "speed": "100000"},
        "gpu0": {"operstate": "up", "carrier": "1", "speed": "200000", "pcie": "0000:0a:00.0"},
    },
    "ib": {
        "mlx5_0": {
            "netdevs": ["eth0"],
            "ports": {"1": {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "100 Gb/sec"}},
        }
    },
}


def test_fabric_nics_follow_the_traits(monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(checks.fabric_netdevs(RAW, expected("roce"))) == {"eth0"}  # the RDMA device's
    assert set(checks.fabric_netdevs(RAW, expected("tcpxo"))) == {"gpu0"}  # the PCIe NICs
    assert set(checks.fabric_netdevs(RAW, expected("lab"))) == {"eth0", "gpu0"}  # every NIC
    # a new fabric is only its traits: give tcpxo RDMA's and it reads the RDMA device's netdevs
    rdma = replace(FABRIC_TRAITS["tcpxo"], rdma=True)
    monkeypatch.setitem(vocabulary.FABRIC_TRAITS, "tcpxo", rdma)
    assert set(checks.fabric_netdevs(RAW, expected("tcpxo"))) == {"eth0"}


def test_port_rate_is_judged_only_where_the_port_reports_the_link() -> None:
    raw = {**RAW, "net": {"eth0": {"operstate": "up", "carrier": "1"}}}
    slow = replace(expected("roce"), nic_gbps=400.0)
    assert _reasons(raw, slow, "link-rate")
    efa = replace(expected("efa"), nic_gbps=400.0)
    assert not _reasons(raw, efa, "link-rate")


def _reasons(raw: dict, exp: object, check: str) -> list[str]:
    found = checks.check_host(raw, {}, exp, {})  # type: ignore[arg-type]
    return [r for r in found.reasons if r.startswith(f"{check}: ")]


def test_driver_roles_and_detection_come_from_the_traits() -> None:
    ofed = {"rdma_devices": [{"name": "mlx5_0", "vendor_id": "0x02c9"}]}
    assert decisions.doca_ofed(ofed, "roce")["run"] is True
    skipped = decisions.doca_ofed(ofed, "efa")
    assert skipped["run"] is False
    assert "(only infiniband or roce)" in skipped["reason"]
    assert decisions.efa({"has_efa": True}, "efa")["run"] is True
    assert decisions.efa({"has_efa": True}, "roce")["run"] is False
    assert decisions.fabric_mismatch({"fabric_detected": "roce"}, "infiniband")
    assert decisions.fabric_mismatch({"fabric_detected": "none"}, "tcpxo") == ""


def test_traits_are_frozen() -> None:
    with pytest.raises(AttributeError):
        FABRIC_TRAITS["efa"].rdma = False  # type: ignore[misc]
    assert isinstance(FABRIC_TRAITS["lab"], FabricTraits)
