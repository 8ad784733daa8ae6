"""The NCCL gate judges a fabric by what the catalog says NCCL prints for it
(nccl_networks.yaml `fabric_devices`: the link layer NET/IB lists its HCAs under, the libfabric
provider whose devices aws-ofi-nccl counts), never by the fabric's name: a made-up fabric given
those entries is judged by them, and without them it is not."""

from __future__ import annotations

from typing import Any

import pytest

from gpufabric.catalog import lookup, networks
from gpufabric.catalog.networks import FabricDevices
from gpufabric.nccl.gate.thresholds import FabricRule, Thresholds, thresholds
from gpufabric.nccl.gate.verdict import GateReport, gate
from gpufabric.nccl.parse.capture import parse_text

# Constructed NCCL_DEBUG=INFO lines in the shapes aws-ofi-nccl and NET/IB print (the real
# captures are in test_gate_golden.py); the provider 'tfp' and the fabric 'testfabric' are made up.
OFI = "h:1:1 [0] NCCL INFO NET/OFI Selected provider is tfp, fabric is tfp (found {n} nics)\n"
VIA = (
    "h:1:1 [0] NCCL INFO Channel {c:02d}/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/{c}/GDRDMA\n"
)
IB = (
    "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_ib0:1/IB "
    "[RO]; OOB eth0:10.2.0.4<0>\n"
)


def _judge(log: str, monkeypatch: pytest.MonkeyPatch, shows: FabricDevices | None) -> GateReport:
    """`log` gated on a p5.48xlarge whose fabric is 'testfabric' (32 NICs, 8 GPUs)."""
    table = networks._table()
    devices: dict[Any, FabricDevices] = dict(table.fabric_devices)
    if shows is not None:
        devices["testfabric"] = shows
    monkeypatch.setattr(
        networks, "_table", lambda: table.model_copy(update={"fabric_devices": devices})
    )
    rule = FabricRule(
        transports=["testfabric", "ib", "roce"],
        expect="the test fabric",
        net_devices="min_nics_gpus",
        require_gdr=True,
    )
    base = thresholds()
    limits = Thresholds.model_validate(
        {**base.model_dump(), "fabrics": {**base.fabrics, "testfabric": rule}}
    )
    facts = lookup("p5.48xlarge").model_copy(update={"fabric": "testfabric"})
    return gate([parse_text(log, "log.txt")], facts, 2, limits=limits)


def _nics(report: GateReport) -> list[tuple[str, str]]:
    return [(v.status, v.message) for v in report.verdicts if v.check == "nics"]


def _ofi_log(found: int) -> str:
    return OFI.format(n=found) + "".join(VIA.format(c=c) for c in range(8))


def test_the_provider_of_a_made_up_fabric_is_its_transport_and_its_devices_are_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shows = FabricDevices(ofi_provider="tfp", devices="TF")
    short = _judge(_ofi_log(31), monkeypatch, shows)
    assert short.transport == "testfabric"
    assert (
        "fail",
        "aws-ofi-nccl found 31 of the 32 TF devices of p5.48xlarge: a device is missing or "
        "down (fi_info -p tfp)",
    ) in _nics(short)
    full = _judge(_ofi_log(32), monkeypatch, shows)
    assert ("pass", "aws-ofi-nccl found 32/32 TF devices") in _nics(full)


def test_without_the_entry_the_provider_is_not_the_fabric(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _judge(_ofi_log(32), monkeypatch, None)
    assert report.transport == "ofi-tfp"
    transport = [v for v in report.verdicts if v.check == "transport"]
    assert [v.status for v in transport] == ["fail"]
    assert _nics(report) == []  # no NIC count for a transport that is not the fabric's


def test_a_device_of_another_link_layer_among_the_fabrics_hcas_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = _judge(IB, monkeypatch, FabricDevices(hca_link="RoCE"))
    assert (
        "warn",
        "IB device mlx5_ib0 listed among the RoCE HCAs: exclude it with NCCL_IB_HCA",
    ) in _nics(report)
    # the same listing on a fabric whose HCAs are InfiniBand's names the RoCE ones
    ib = _judge(IB, monkeypatch, FabricDevices(hca_link="IB"))
    assert (
        "warn",
        "RoCE device mlx5_0, mlx5_1 listed among the IB HCAs: exclude it with NCCL_IB_HCA",
    ) in _nics(ib)
    # a fabric NET/IB does not carry: no such judgement
    assert not [m for _s, m in _nics(_judge(IB, monkeypatch, FabricDevices())) if "HCAs" in m]


def test_only_the_fabrics_own_link_layer_is_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    own = IB.replace("mlx5_ib0:1/IB", "mlx5_2:1/RoCE")
    report = _judge(own, monkeypatch, FabricDevices(hca_link="RoCE"))
    assert not [m for _s, m in _nics(report) if "HCAs" in m]


def test_every_catalog_fabric_device_entry_names_a_fabric_the_thresholds_judge() -> None:
    rules = thresholds().fabrics
    for fabric, shows in networks.fabric_devices().items():
        assert fabric in rules, fabric
        if shows.ofi_provider:  # the transport over its own provider is named after it
            assert fabric in rules[fabric].transports, fabric


def test_a_hca_link_nccl_never_prints_is_refused() -> None:
    data = networks._table().model_dump()
    data["fabric_devices"] = {"infiniband": {"hca_link": "Infiniband"}}
    with pytest.raises(ValueError, match=r"fabric_devices\.infiniband\.hca_link: not one of"):
        networks.NetworkNames.model_validate(data)
