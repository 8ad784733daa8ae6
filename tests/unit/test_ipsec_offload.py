"""The data-path plan at the edges of what each strongSwan / Linux version and NIC can do, the
kernel's esp-hw-offload verdict read as ethtool prints it, and the exact lines a user reads."""

from __future__ import annotations

import pytest

from gpufabric.errors import UserError
from gpufabric.ipsec.offload import DatapathPlan, esp_feature, plan_datapath


def _plan(**kw: object) -> DatapathPlan:
    args: dict[str, object] = {
        "datapath": "kernel", "offload": "auto", "per_cpu": "auto", "model": "ConnectX-7",
        "esp_hw_offload": True, "strongswan": "6.0.2", "kernel": "6.13.0",
    }  # fmt: skip
    args.update(kw)
    return plan_datapath(**args)  # type: ignore[arg-type]


def _refused(**kw: object) -> str:
    with pytest.raises(UserError) as exc:
        _plan(**kw)
    return str(exc.value)


@pytest.mark.parametrize(
    ("ethtool", "verdict"),
    [
        ("esp-hw-offload: on [fixed]\n", True),  # always on
        ("esp-hw-offload: off\n", True),  # off now, can be turned on
        ("esp-hw-offload: on\n", True),
        ("esp-hw-offload: off [fixed]\n", False),  # cannot
        ("tx-esp-segmentation: off [fixed]\n", None),
    ],
)
def test_esp_hw_offload_as_ethtool_prints_it(ethtool: str, verdict: bool | None) -> None:
    assert esp_feature("rx-checksumming: on\n" + ethtool) is verdict


def test_crypto_offload_from_strongswan_5_9_10_exactly() -> None:
    assert _plan(strongswan="5.9.10").hw_offload == "crypto"
    assert _plan(strongswan="5.9.9").hw_offload == "yes"


def test_packet_offload_from_strongswan_5_9_10_and_linux_6_6_exactly() -> None:
    assert _plan(offload="packet", strongswan="5.9.10", kernel="6.6.0").hw_offload == "packet"
    needs = "ipsec_hw_offload: 'packet' is not valid; needs strongSwan >= 5.9.10 and Linux >= 6.6"
    assert _refused(offload="packet", strongswan="5.9.9", kernel="6.8.0") == needs
    assert _refused(offload="packet", strongswan="6.0.2", kernel="6.5.0") == needs


@pytest.mark.parametrize(
    ("model", "esp", "name"),
    [("ConnectX-5", True, "ConnectX-5"), ("ConnectX-7", False, "ConnectX-7"),
     (None, None, "unknown NIC")],
)  # fmt: skip
def test_packet_offload_needs_a_capable_nic_that_the_kernel_agrees_on(
    model: str | None, esp: bool | None, name: str
) -> None:
    line = _refused(offload="packet", model=model, esp_hw_offload=esp)
    assert line == f"ipsec_hw_offload: 'packet' is not valid; {name} cannot do it"


def test_the_notes_a_user_reads() -> None:
    assert _plan(model=None, esp_hw_offload=None).notes == [
        "hw_offload off: unknown NIC has no IPsec crypto offload"
    ]
    auto = _plan(esp_hw_offload=None)
    assert (auto.hw_offload, auto.notes) == (
        "auto",
        ["hw_offload auto: ConnectX-7 is capable but esp-hw-offload is not reported"],
    )
    lab = _plan(datapath="libipsec", strongswan="5.9.8", kernel="6.1.0")
    assert lab.notes == [
        "hw_offload off: userspace libipsec data path (lab only)",
        "per-CPU SAs off: need kernel data path, strongSwan >= 6.0.2, Linux >= 6.13 "
        "(have libipsec, strongSwan 5.9.8, Linux 6.1.0)",
    ]
    assert _plan().notes == []  # everything on: nothing to say
    assert _plan(per_cpu="no", strongswan="5.9.8", kernel="6.1.0").notes == []  # asked off


def test_offload_with_the_lab_data_path_is_one_exact_line() -> None:
    assert _refused(datapath="libipsec", offload="crypto") == (
        "ipsec_hw_offload: 'crypto' is not valid with the libipsec lab path"
    )
