"""Parsed shapes: nccl-tests results and what an NCCL_DEBUG=INFO log says about the fabric."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Measurement:
    """One half of a result row (out-of-place or in-place)."""

    time_us: float
    algbw: float  # GB/s (1e9 B/s)
    busbw: float  # GB/s
    wrong: int | None  # "#wrong"; None when printed as N/A (-c 0) or in the legacy format
    error: float | None = None  # legacy "error" column (max relative error), old nccl-tests only


@dataclass(frozen=True)
class Row:
    """One message size of an nccl-tests sweep."""

    size: int  # bytes
    count: int  # elements
    dtype: str
    redop: str
    root: int | None  # None in the legacy format (no root column)
    out_of_place: Measurement | None
    in_place: Measurement | None

    def best_busbw(self) -> float:
        """The higher of the out-of-place and in-place bus bandwidths."""
        values = [m.busbw for m in (self.out_of_place, self.in_place) if m is not None]
        return max(values) if values else 0.0


@dataclass(frozen=True)
class RankInfo:
    """A '#  Rank N Group G Pid P on HOST device D [BUS] NAME' header line."""

    rank: int
    group: int | None
    pid: int
    host: str
    device: int
    bus_id: str
    device_name: str


@dataclass(frozen=True)
class TestsResult:
    """One nccl-tests run (one binary, one size sweep)."""

    collective: str | None  # e.g. "all_reduce"; None when nothing names it
    rows: tuple[Row, ...]
    ranks: tuple[RankInfo, ...] = ()
    params: dict[str, str] = field(default_factory=dict)  # '# nThread 1 nGpus 1 minBytes ...'
    nccl_version: str | None = None
    tests_version: str | None = None
    avg_busbw: float | None = None
    avg_busbw_status: str | None = None  # OK / FAILED when NCCL_TESTS_MIN_BW was set
    out_of_bounds: int | None = None
    out_of_bounds_ok: bool | None = None
    legacy_format: bool = False  # no root column, 'error' instead of '#wrong'
    elided: bool = False  # '...' lines: rows were cut out by whoever published it
    complete: bool = False  # the footer ('Avg bus bandwidth') was seen
    errors: tuple[str, ...] = ()  # '# error: ...' lines
    unparsed_rows: tuple[str, ...] = ()  # lines that looked like rows but did not fit the header
    source: str = "text"  # "text" | "json"
    problems: tuple[str, ...] = ()  # why the table cannot be judged (parse/strict.py)

    @property
    def hosts(self) -> tuple[str, ...]:
        """Distinct hosts of the rank lines, in rank order."""
        seen: dict[str, None] = {}
        for info in self.ranks:
            seen.setdefault(info.host, None)
        return tuple(seen)

    @property
    def n_ranks(self) -> int | None:
        return len(self.ranks) or None

    @property
    def max_size(self) -> int | None:
        return max((row.size for row in self.rows), default=None)


@dataclass(frozen=True)
class NetDevice:
    """One device of an 'NET/<name> : Using [i]dev:port/LINK ...' line."""

    index: int
    name: str
    port: int | None = None
    link: str | None = None  # IB | RoCE for NET/IB; None for sockets
    address: str | None = None  # for socket-style devices: 'eth0:10.0.0.23<0>'


@dataclass(frozen=True)
class DebugInfo:
    """What NCCL_DEBUG=INFO lines say about the run. Empty fields mean 'not in the log'."""

    nccl_version: str | None = None
    net_plugin: str | None = None  # "internal" | plugin name (e.g. "aws-ofi-nccl")
    network: str | None = None  # the 'Using network X' name: IB, Socket, Libfabric, gIB, ...
    net_devices_kind: str | None = None  # the X of 'NET/X : Using [0]...': IB, Socket, FastSocket
    net_devices: tuple[NetDevice, ...] = ()
    ofi_provider: str | None = None  # NET/OFI 'Selected Provider is efa'
    ofi_nics_found: int | None = None  # '(found N nics)'
    channel_paths: tuple[str, ...] = ()  # distinct 'via X' transports, e.g. 'NET/IB', 'P2P/IPC'
    net_nics_used: tuple[str, ...] = ()  # distinct NIC indices in 'via NET/<name>/<nic>' lines
    gdr: bool | None = None  # True when 'via NET/.../GDRDMA' was seen, False when NET without it
    coll_channels: int | None = None  # 'N coll channels'
    ring_channels: int | None = None  # 'Channel 00/08 :' ring lines: the /NN
    n_ranks: int | None = None
    n_nodes: int | None = None
    tuner: str | None = None  # "internal" | plugin name
    env: dict[str, str] = field(default_factory=dict)  # 'NCCL_X set by environment to Y'
    bootstrap: str | None = None  # 'Bootstrap : Using eth0:10.0.92.140<0>'
    warnings: tuple[str, ...] = ()  # NCCL WARN lines
    info_lines: int = 0  # how many NCCL INFO/WARN lines were read

    @property
    def seen(self) -> bool:
        return self.info_lines > 0 or self.nccl_version is not None

    @property
    def channels(self) -> int | None:
        return self.coll_channels or self.ring_channels


@dataclass(frozen=True)
class Capture:
    """One file: an nccl-tests result, NCCL debug lines, or both interleaved."""

    path: str
    results: tuple[TestsResult, ...]
    debug: DebugInfo
