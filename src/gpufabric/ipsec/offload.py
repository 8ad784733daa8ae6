"""Which IPsec data-path features one host gets: NIC offload mode and per-CPU SAs.

Facts used (decided from what the host reports, never assumed):
- NIC model from the PCI device id (/sys/class/net/<if>/device/{vendor,device}); IPsec crypto
  offload is on ConnectX-6 Dx, ConnectX-7 and BlueField-2 (not ConnectX-6 / 6 Lx) per NVIDIA's
  MLNX_OFED "IPsec Crypto Offload" page (docs/sources.md E.2); newer crypto-enabled generations
  (ConnectX-8, BlueField-3) are listed as expected to support it.
- the kernel's own verdict: `ethtool -k <if>` feature `esp-hw-offload` ("off [fixed]" means the
  driver/firmware cannot; e.g. a non-crypto OPN of a capable family).
- strongSwan >= 5.9.10 understands `hw_offload = crypto | packet` (packet offload merged
  2023-02, needs Linux >= 6.2; NVIDIA documents >= 6.6 for mlx5); older ones only yes/no/auto.
- per-CPU SAs (RFC 9611): strongSwan >= 6.0.2 and Linux >= 6.13, and they need trap policies,
  so never with the userspace libipsec data path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from gpufabric.errors import UserError

MELLANOX_VENDOR = "0x15b3"
NIC_MODELS = {
    "0x1017": "ConnectX-5",
    "0x1019": "ConnectX-5 Ex",
    "0x101b": "ConnectX-6",
    "0x101d": "ConnectX-6 Dx",
    "0x101f": "ConnectX-6 Lx",
    "0x1021": "ConnectX-7",
    "0x1023": "ConnectX-8",
    "0xa2d6": "BlueField-2",
    "0xa2dc": "BlueField-3",
}
CRYPTO_OFFLOAD_MODELS = frozenset(
    {"ConnectX-6 Dx", "ConnectX-7", "ConnectX-8", "BlueField-2", "BlueField-3"}
)
PACKET_OFFLOAD_MODELS = CRYPTO_OFFLOAD_MODELS | {"ConnectX-6 Lx"}
SWAN_CRYPTO_PACKET = (5, 9, 10)
SWAN_PER_CPU = (6, 0, 2)
KERNEL_PACKET = (6, 6)
KERNEL_PER_CPU = (6, 13)

Datapath = Literal["kernel", "libipsec"]
Offload = Literal["auto", "no", "crypto", "packet"]
Tristate = Literal["auto", "yes", "no"]


def version(text: str) -> tuple[int, ...]:
    """First dotted version in `text` ('strongSwan swanctl 5.9.8' -> (5, 9, 8))."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not match:
        return ()
    return tuple(int(g) for g in match.groups() if g is not None)


def nic_model(vendor: str, device: str) -> str | None:
    if vendor.strip().lower() != MELLANOX_VENDOR:
        return None
    return NIC_MODELS.get(device.strip().lower())


def esp_feature(ethtool_k: str) -> bool | None:
    """From `ethtool -k <if>`: True (can offload), False (off [fixed]), None (not listed)."""
    for line in ethtool_k.splitlines():
        name, _, rest = line.strip().partition(":")
        if name == "esp-hw-offload":
            return "[fixed]" not in rest or rest.strip().startswith("on")
    return None


@dataclass
class DatapathPlan:
    hw_offload: str  # swanctl.conf value: no | auto | yes | crypto | packet
    per_cpu_sas: bool
    notes: list[str] = field(default_factory=list)


def plan_datapath(
    *,
    datapath: Datapath,
    offload: Offload,
    per_cpu: Tristate,
    model: str | None,
    esp_hw_offload: bool | None,
    strongswan: str,
    kernel: str,
) -> DatapathPlan:
    swan, kern = version(strongswan), version(kernel)
    notes: list[str] = []
    hw = _offload(datapath, offload, model, esp_hw_offload, swan, kern, notes)
    per_cpu_ok = datapath == "kernel" and swan >= SWAN_PER_CPU and kern[:2] >= KERNEL_PER_CPU
    if per_cpu == "yes" and not per_cpu_ok:
        raise UserError(
            f"ipsec_per_cpu_sas: 'yes' is not valid here; needs the kernel data path, strongSwan "
            f">= 6.0.2 and Linux >= 6.13 (have {datapath}, strongSwan {strongswan}, Linux {kernel})"
        )
    use_per_cpu = per_cpu != "no" and per_cpu_ok
    if per_cpu == "auto" and not per_cpu_ok:
        notes.append(
            f"per-CPU SAs off: need kernel data path, strongSwan >= 6.0.2, Linux >= 6.13 "
            f"(have {datapath}, strongSwan {strongswan}, Linux {kernel})"
        )
    return DatapathPlan(hw, use_per_cpu, notes)


def _offload(
    datapath: Datapath,
    offload: Offload,
    model: str | None,
    esp_hw: bool | None,
    swan: tuple[int, ...],
    kern: tuple[int, ...],
    notes: list[str],
) -> str:
    if offload == "no":
        return "no"
    if datapath == "libipsec":
        if offload != "auto":
            raise UserError(
                f"ipsec_hw_offload: {offload!r} is not valid with the libipsec lab path"
            )
        notes.append("hw_offload off: userspace libipsec data path (lab only)")
        return "no"
    name = model or "unknown NIC"
    if offload == "packet":
        if model not in PACKET_OFFLOAD_MODELS or esp_hw is False:
            raise UserError(f"ipsec_hw_offload: 'packet' is not valid; {name} cannot do it")
        if swan < SWAN_CRYPTO_PACKET or kern[:2] < KERNEL_PACKET:
            raise UserError(
                "ipsec_hw_offload: 'packet' is not valid; needs strongSwan >= 5.9.10 and Linux >= 6.6"
            )
        return "packet"
    capable = model in CRYPTO_OFFLOAD_MODELS and esp_hw is not False
    if offload == "crypto" and not capable:
        raise UserError(
            f"ipsec_hw_offload: 'crypto' is not valid; {name} has no IPsec crypto offload"
        )
    if not capable:
        notes.append(f"hw_offload off: {name} has no IPsec crypto offload")
        return "no"
    if esp_hw is None:
        notes.append(f"hw_offload auto: {name} is capable but esp-hw-offload is not reported")
        return "auto"
    return "crypto" if swan >= SWAN_CRYPTO_PACKET else "yes"
