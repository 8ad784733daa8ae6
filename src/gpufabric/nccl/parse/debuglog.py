"""NCCL_DEBUG=INFO lines: version, net plugin, transport actually used, NICs, channels, ranks.

Message shapes (all seen in the fixtures unless marked):
- 'NCCL version 2.22.3+cuda12.2'
- 'NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.'
- 'NET/OFI Selected Provider is efa (found 4 nics)' / 'NET/OFI Selected provider is efa, fabric
  is efa-direct (found 32 nics)' (aws-ofi-nccl source, old / current)
- 'NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_bond_0:1/RoCE [RO]; OOB eth0:10.2.0.4<0>'
- 'NET/Socket : Using [0]eth0:10.0.0.23<0>' / 'NET/FastSocket : Using [0]ibs108:10.0.19.12<0> ...'
- 'Using network IB' / 'Using network <a net plugin's name>' (catalog/nccl_networks.yaml)
- 'Channel 00 : 1[101d0] -> 8[101c0] [send] via NET/<name>/1/GDRDMA' / 'via P2P/IPC/read'
- 'comm 0x.. rank 0 nRanks 2 nNodes 1 localRanks 2 ...' and old 'comm 0x.. rank 2 nranks 16 ...'
- '8 coll channels, 8 p2p channels, 1 p2p channels per peer', 'Channel 00/08 :    0   7 ...'
- 'TUNER/Plugin: Could not find: libnccl-tuner.so libnccl-net.so. Using internal tuner plugin.'
- 'NCCL_BUFFSIZE set by environment to 4194304.'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from gpufabric.inputs.types import digits
from gpufabric.nccl.model import DebugInfo, NetDevice
from gpufabric.nccl.parse.lines import nccl_line, strip_prefixes

_VERSION = re.compile(r"^NCCL version (\S+)")
_NET_USING = re.compile(r"^NET/(\w+)\s*: Using (.*)$")
_NET_NO_DEVICE = re.compile(r"^NET/(\w+)\s*: No device found")
_DEVICE = re.compile(r"\[(\d+)\]([^\s\[;]+)")
# the OFI net plugin (aws-ofi-nccl, NCCL_OFI_INFO in nccl_ofi_net.c):
#   older releases  'Selected Provider is %s (found %d nics)'
#   current         'Selected provider is %s, fabric is %s (found %d nics)'  (fabric: efa, efa-direct)
#                   (nccl_net_ofi_query_provider_capabilities)
# 'found N' counts the selected provider's fi_info entries: one per EFA device.
_OFI_PROVIDER = re.compile(
    r"^NET/OFI Selected [Pp]rovider is ([^\s,]+)(?:, fabric is ([^\s,(]+))?"
    r"(?: \(found (\d+) nics\))?"
)
_USING_NETWORK = re.compile(r"^Using network (.+)$")
_VIA = re.compile(r"\bvia (\S+(?: \S+)*)$")
_COMM_NEW = re.compile(r"\bnRanks (\d+) nNodes (\d+)")
_COMM_OLD = re.compile(r"\brank \d+ nranks (\d+)\b")
_COLL_CHANNELS = re.compile(r"^(\d+) coll channels")
_RING = re.compile(r"^Channel (\d+)/(\d+) :")
_ENV = re.compile(r"^(\w+) set by environment to (.*?)\.?$")
_BOOTSTRAP = re.compile(r"^Bootstrap\s*: Using (\S+)")
# Frequent messages that say nothing the parser keeps.
_NOISE = (
    "Trees ",
    "Setting affinity",
    "Connected all",
    "threadThresholds",
    "Launch mode",
    "P2P Chunksize",
    "Init timings",
    "CC Off",
    "cudaDriverVersion",
)
_TUNER_LOADED = re.compile(r"(?:Using|Loaded)\s+(?:tuner\s+)?(?:plugin\s+)?(\S+)")


@dataclass
class _State:
    version: str | None = None
    net_plugin: str | None = None
    network: str | None = None
    net_kind: str | None = None
    devices: list[NetDevice] = field(default_factory=list)
    ofi_provider: str | None = None
    ofi_nics: int | None = None
    paths: dict[str, None] = field(default_factory=dict)
    nics: dict[str, None] = field(default_factory=dict)
    gdr_seen: bool = False
    net_seen: bool = False
    coll_channels: int | None = None
    ring_channels: int | None = None
    n_ranks: int | None = None
    n_nodes: int | None = None
    tuner: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    bootstrap: str | None = None
    warnings: list[str] = field(default_factory=list)
    count: int = 0


def parse_device(token: str, index: int) -> NetDevice:
    """'mlx5_0:1/IB' -> name, port, link; 'eth0:10.0.0.23<0>' -> name, address."""
    name, _, rest = token.partition(":")
    port_text, _, link = rest.partition("/")
    if digits(port_text):
        return NetDevice(index, name, int(port_text), link or None)
    return NetDevice(index, name, address=rest or None)


def _channel(state: _State, path: str) -> None:
    """'NET/<plugin name>/1/GDRDMA', 'NET/IB/0(1)/GDRDMA', 'P2P/IPC/read', 'SHM/direct/direct'."""
    parts = path.split("/")
    kind = "/".join(parts[:2])
    state.paths.setdefault(kind, None)
    if parts[0] == "NET":
        state.net_seen = True
        if len(parts) > 2:
            nic = re.match(r"\d+", parts[2])
            if nic:
                state.nics.setdefault(nic[0], None)
        if "GDRDMA" in parts[3:]:
            state.gdr_seen = True


def _message(state: _State, level: str, msg: str) -> None:
    state.count += 1
    if level in ("WARN", "ABORT"):
        state.warnings.append(msg)
        return
    if msg.startswith(_NOISE):
        return
    if msg.startswith("Channel "):  # the most frequent lines: ring layout or a connection
        if (m := _VIA.search(msg)) is not None:
            _channel(state, m[1])
        elif (m := _RING.match(msg)) is not None:
            state.ring_channels = max(state.ring_channels or 0, int(m[2]))
        return
    if (m := _VERSION.match(msg)) is not None:
        state.version = m[1]
    elif msg.startswith("NET/Plugin"):
        if "internal" in msg.lower():
            state.net_plugin = state.net_plugin or "internal"
        elif (m := re.search(r"Loaded (?:net )?plugin (.+?)(?: \(v\d+\))?$", msg)) is not None:
            state.net_plugin = m[1]
    elif (m := _OFI_PROVIDER.match(msg)) is not None:
        state.net_plugin = "aws-ofi-nccl"
        state.ofi_provider = m[1]
        state.ofi_nics = int(m[3]) if m[3] else state.ofi_nics
    elif msg.startswith("NET/OFI"):
        state.net_plugin = "aws-ofi-nccl"
    elif (m := _NET_USING.match(msg)) is not None:
        state.net_kind = m[1]
        state.devices = [parse_device(tok, int(idx)) for idx, tok in _DEVICE.findall(m[2])]
    elif (m := _NET_NO_DEVICE.match(msg)) is not None:
        state.warnings.append(msg)
    elif (m := _USING_NETWORK.match(msg)) is not None:
        state.network = m[1].strip()
    elif (m := _COMM_NEW.search(msg)) is not None:
        state.n_ranks, state.n_nodes = int(m[1]), int(m[2])
    elif msg.startswith(("comm ", "ncclCommInitRank")) and (m := _COMM_OLD.search(msg)):
        state.n_ranks = state.n_ranks or int(m[1])
    elif (m := _COLL_CHANNELS.match(msg)) is not None:
        state.coll_channels = max(state.coll_channels or 0, int(m[1]))
    elif msg.startswith("TUNER/Plugin"):
        if "internal" in msg.lower():
            state.tuner = state.tuner or "internal"
        elif (m := _TUNER_LOADED.search(msg)) is not None:
            state.tuner = m[1]
    elif (m := _ENV.match(msg)) is not None:
        state.env[m[1]] = m[2]
        if m[1] == "NCCL_TUNER_PLUGIN" and state.tuner is None:
            state.tuner = m[2]
    elif (m := _BOOTSTRAP.match(msg)) is not None:
        state.bootstrap = m[1]


def parse_debug_lines(lines: Iterable[str]) -> DebugInfo:
    """Everything NCCL_DEBUG=INFO says about the fabric, from any mix of lines."""
    state = _State()
    for raw in lines:
        line = strip_prefixes(raw)
        parsed = nccl_line(line)
        if parsed is not None:
            _message(state, parsed.level, parsed.msg)
        elif (m := _VERSION.match(line.strip())) is not None:  # printed by nccl-tests itself
            state.version = state.version or m[1]
    return DebugInfo(
        nccl_version=state.version,
        net_plugin=state.net_plugin,
        network=state.network,
        net_devices_kind=state.net_kind,
        net_devices=tuple(state.devices),
        ofi_provider=state.ofi_provider,
        ofi_nics_found=state.ofi_nics,
        channel_paths=tuple(state.paths),
        net_nics_used=tuple(sorted(state.nics, key=int)),
        gdr=state.gdr_seen if state.net_seen else None,
        coll_channels=state.coll_channels,
        ring_channels=state.ring_channels,
        n_ranks=state.n_ranks,
        n_nodes=state.n_nodes,
        tuner=state.tuner,
        env=state.env,
        bootstrap=state.bootstrap,
        warnings=tuple(state.warnings),
        info_lines=state.count,
    )
