"""Typed results of the fabric parsers (frozen dataclasses; `dataclasses.asdict` gives JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpufabric.inputs.types import digits


@dataclass(frozen=True)
class TopoGpu:
    """One GPU row of `nvidia-smi topo -m`."""

    name: str  # GPU0
    index: int
    cpu_affinity: str  # "0-51,104-155" as printed ("" when absent)
    numa_node: int | None  # None when the column says N/A or is missing
    links: dict[str, str] = field(default_factory=dict)  # peer (GPU1, NIC0) -> X, NV18, PIX, SYS...


@dataclass(frozen=True)
class TopoNic:
    """One NIC of `nvidia-smi topo -m` (named by the NIC Legend when printed)."""

    name: str  # NIC0
    index: int
    device: str  # mlx5_0 from the legend, or NIC0 when the legend is missing
    links: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GpuTopology:
    gpus: tuple[TopoGpu, ...]
    nics: tuple[TopoNic, ...]

    def nearest_nic(self, gpu: str) -> str | None:
        """The NIC device closest to `gpu` by PCIe distance (PIX < PXB < PHB < NODE < SYS)."""
        row = next((g for g in self.gpus if g.name == gpu), None)
        if row is None or not self.nics:
            return None
        best = min(self.nics, key=lambda n: (link_rank(row.links.get(n.name, "SYS")), n.index))
        return best.device


_RANK = {"X": 0, "NV": 1, "PIX": 2, "PXB": 3, "PHB": 4, "NODE": 5, "SYS": 6}


def link_rank(kind: str) -> int:
    """Order of topo link kinds from closest to farthest; unknown kinds rank last."""
    if kind.startswith("NV") and digits(kind[2:]):
        return _RANK["NV"]
    return _RANK.get(kind, 7)


@dataclass(frozen=True)
class IbPort:
    """One port of `ibstat` (or `ibstatus`)."""

    number: int
    state: str  # Active, Down, Initializing (ibstatus: ACTIVE...)
    physical_state: str  # LinkUp, Polling, Disabled
    rate_gbps: float | None  # 400.0; None when not printed
    link_layer: str  # InfiniBand | Ethernet
    base_lid: int | None = None
    port_guid: str | None = None


@dataclass(frozen=True)
class IbDevice:
    name: str  # mlx5_0
    ca_type: str  # MT4129 ("" when not printed)
    firmware: str
    ports: tuple[IbPort, ...]


@dataclass(frozen=True)
class VerbsPort:
    """One port of `ibv_devinfo`."""

    number: int
    state: str  # PORT_ACTIVE
    link_layer: str  # InfiniBand | Ethernet
    active_mtu: int | None


@dataclass(frozen=True)
class VerbsDevice:
    hca_id: str
    transport: str  # InfiniBand (0)
    fw_ver: str
    vendor_id: str  # 0x02c9 (Mellanox/NVIDIA), 0x1d0f (Amazon EFA)
    vendor_part_id: str
    ports: tuple[VerbsPort, ...]


@dataclass(frozen=True)
class FiDomain:
    """One entry of `fi_info -p efa` (libfabric)."""

    provider: str
    fabric: str
    domain: str  # rdmap16s27-rdm
    version: str
    ep_type: str  # FI_EP_RDM
    protocol: str

    @property
    def device(self) -> str:
        """The EFA device name (domain without the -rdm / -dgrm suffix)."""
        for suffix in ("-rdm", "-dgrm"):
            if self.domain.endswith(suffix):
                return self.domain[: -len(suffix)]
        return self.domain


@dataclass(frozen=True)
class NetLink:
    """One interface of `ip -j -d link`."""

    name: str
    index: int
    mtu: int
    operstate: str  # UP, DOWN, UNKNOWN, LOWERLAYERDOWN
    link_type: str  # ether, loopback, infiniband, none
    kind: str  # veth, bridge, bond, vlan... ("" for a physical device)
    address: str
    master: str  # bridge/bond this interface is enslaved to ("" if none)
