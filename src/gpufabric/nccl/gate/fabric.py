"""Fabric verdicts from the merged NCCL_DEBUG=INFO lines: transport, NICs, GDR, NCCL WARN."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeVar

from gpufabric.catalog import InstanceType
from gpufabric.catalog.networks import devices_of, ib_links
from gpufabric.nccl.gate.thresholds import Thresholds, expected_net_devices
from gpufabric.nccl.model import Capture, DebugInfo
from gpufabric.nccl.parse.transport import transport

Status = Literal["pass", "warn", "fail"]
T = TypeVar("T")


@dataclass(frozen=True)
class Verdict:
    check: str  # complete | correctness | bandwidth | transport | nics | gdr | nccl-warn | debug
    status: Status
    subject: str  # the file (or "fabric" for what the merged NCCL logs say)
    message: str  # one line

    def line(self) -> str:
        return f"{self.status.upper():4} {self.check:11} {self.subject}: {self.message}"


def _first(values: list[T]) -> T | None:
    return next((v for v in values if v), None)


def _union(groups: list[tuple[T, ...]]) -> tuple[T, ...]:
    seen: dict[T, None] = {}
    for group in groups:
        for item in group:
            seen.setdefault(item, None)
    return tuple(seen)


def merge_debug(captures: list[Capture]) -> DebugInfo:
    """One DebugInfo for the whole run: first non-empty value of each field, unions of lists."""
    infos = [c.debug for c in captures if c.debug.seen]
    if not infos:
        return DebugInfo()
    env: dict[str, str] = {}
    for info in infos:
        env.update(info.env)
    gdrs = [i.gdr for i in infos if i.gdr is not None]
    nics = _union([i.net_nics_used for i in infos])
    return DebugInfo(
        nccl_version=_first([i.nccl_version for i in infos]),
        net_plugin=_first([i.net_plugin for i in infos]),
        network=_first([i.network for i in infos]),
        net_devices_kind=_first([i.net_devices_kind for i in infos]),
        net_devices=_first([i.net_devices for i in infos]) or (),
        ofi_provider=_first([i.ofi_provider for i in infos]),
        ofi_nics_found=_first([i.ofi_nics_found for i in infos]),
        channel_paths=_union([i.channel_paths for i in infos]),
        net_nics_used=tuple(sorted(nics, key=int)),
        gdr=any(gdrs) if gdrs else None,
        coll_channels=_first([i.coll_channels for i in infos]),
        ring_channels=_first([i.ring_channels for i in infos]),
        n_ranks=_first([i.n_ranks for i in infos]),
        n_nodes=_first([i.n_nodes for i in infos]),
        tuner=_first([i.tuner for i in infos]),
        env=env,
        bootstrap=_first([i.bootstrap for i in infos]),
        warnings=_union([i.warnings for i in infos]),
        info_lines=sum(i.info_lines for i in infos),
    )


def fabric_verdicts(
    debug: DebugInfo, facts: InstanceType, nodes: int | None, limits: Thresholds
) -> list[Verdict]:
    subject = "fabric"
    if not debug.seen:
        return [
            Verdict(
                "debug",
                "warn",
                subject,
                "no NCCL_DEBUG=INFO lines: transport and NIC use not checked "
                "(run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET)",
            )
        ]
    out: list[Verdict] = []
    rule = limits.fabrics.get(facts.fabric)
    found = transport(debug)
    devices = ", ".join(d.name for d in debug.net_devices) or None
    where = f" on {devices}" if devices else ""
    if rule is None:
        out.append(
            Verdict(
                "transport",
                "warn",
                subject,
                f"no rule for fabric {facts.fabric!r} in thresholds.yaml",
            )
        )
    elif found in limits.socket_fallbacks:
        name = "libfabric tcp provider" if found == "ofi-tcp" else "NET/Socket"
        out.append(
            Verdict(
                "transport",
                "fail",
                subject,
                f"socket fallback: NCCL used TCP sockets ({name}{where}) on "
                f"{facts.name}, whose fabric is {facts.fabric}; expected {rule.expect}",
            )
        )
    elif found is None:
        if nodes == 1 and not any(p.startswith("NET/") for p in debug.channel_paths):
            out.append(
                Verdict("transport", "pass", subject, "single node: no inter-node transport needed")
            )
        else:
            out.append(
                Verdict(
                    "transport",
                    "warn",
                    subject,
                    "the log does not name the network NCCL used "
                    "(need the 'NET/...' / 'Using network' INFO lines)",
                )
            )
    elif found not in rule.transports:
        out.append(
            Verdict(
                "transport",
                "fail",
                subject,
                f"NCCL used {found}{where} but {facts.name}'s fabric is "
                f"{facts.fabric}; expected {rule.expect}",
            )
        )
    else:
        plugin = f", plugin {debug.net_plugin}" if debug.net_plugin else ""
        out.append(Verdict("transport", "pass", subject, f"NCCL used {found}{plugin}{where}"))
    if rule is not None and found in rule.transports:
        out.extend(_nics(debug, facts, limits))
        if rule.require_gdr and debug.gdr is False:
            out.append(
                Verdict(
                    "gdr",
                    "fail",
                    subject,
                    "NET channels without GDRDMA: GPUDirect RDMA is off "
                    "(check nvidia-peermem / dmabuf and NCCL_NET_GDR_LEVEL)",
                )
            )
        elif rule.require_gdr and debug.gdr:
            out.append(Verdict("gdr", "pass", subject, "GPUDirect RDMA (GDRDMA) on NET channels"))
    out.extend(_warnings(debug, limits))
    return out


def _nics(debug: DebugInfo, facts: InstanceType, limits: Thresholds) -> list[Verdict]:
    subject = "fabric"
    expected = expected_net_devices(facts, limits)
    present = f"{facts.fabric_nics} x {facts.fabric_nic_gbps}G"
    if debug.net_nics_used:
        used = len(debug.net_nics_used)
        what = f"NET channels use NIC {', '.join(debug.net_nics_used)}"
    elif debug.net_devices:
        fabric_devices = [d for d in debug.net_devices if d.link in ib_links() or d.link is None]
        used = len(fabric_devices)
        what = "NCCL lists " + ", ".join(d.name for d in fabric_devices)
    elif debug.ofi_nics_found is not None:
        used = debug.ofi_nics_found
        what = f"aws-ofi-nccl found {used} NICs"
    else:
        return [
            Verdict(
                "nics",
                "warn",
                subject,
                "the log lists no NET devices or NET channels: NIC use not checked",
            )
        ]
    out: list[Verdict] = _plugin_devices(debug, facts)
    if used < expected:
        out.append(
            Verdict(
                "nics",
                "fail",
                subject,
                f"{what}: {used} of the {expected} NCCL net devices expected on "
                f"{facts.name} ({present})",
            )
        )
    else:
        out.append(Verdict("nics", "pass", subject, f"{what} ({used}/{expected} expected)"))
    out.extend(_foreign_links(debug, facts))
    return out


def _foreign_links(debug: DebugInfo, facts: InstanceType) -> list[Verdict]:
    """NET/IB lists the fabric's HCAs under the fabric's link layer (catalog: hca_link); a
    device of another link layer among them is not the fabric's."""
    own = devices_of(facts.fabric).hca_link
    links = {d.link for d in debug.net_devices if d.link}
    if own is None or own not in links or links == {own}:
        return []
    others = [d for d in debug.net_devices if d.link and d.link != own]
    kinds = "/".join(sorted({d.link for d in others if d.link}))
    extra = ", ".join(d.name for d in others)
    return [
        Verdict(
            "nics",
            "warn",
            "fabric",
            f"{kinds} device {extra} listed among the {own} HCAs: exclude it with NCCL_IB_HCA",
        )
    ]


def _plugin_devices(debug: DebugInfo, facts: InstanceType) -> list[Verdict]:
    """aws-ofi-nccl's '(found N nics)' counts the devices of the fabric's libfabric provider
    (catalog: ofi_provider): all of the instance's must be there."""
    found = debug.ofi_nics_found
    shows = devices_of(facts.fabric)
    if found is None or shows.ofi_provider is None:
        return []
    if found < facts.fabric_nics:
        return [
            Verdict(
                "nics",
                "fail",
                "fabric",
                f"aws-ofi-nccl found {found} of the {facts.fabric_nics} {shows.devices} devices "
                f"of {facts.name}: a device is missing or down (fi_info -p {shows.ofi_provider})",
            )
        ]
    return [
        Verdict(
            "nics",
            "pass",
            "fabric",
            f"aws-ofi-nccl found {found}/{facts.fabric_nics} {shows.devices} devices",
        )
    ]


def _warnings(debug: DebugInfo, limits: Thresholds) -> list[Verdict]:
    fatal = [re.compile(p, re.I) for p in limits.fatal_warnings]
    out: list[Verdict] = []
    for msg in debug.warnings:
        status: Status = "fail" if any(p.search(msg) for p in fatal) else "warn"
        out.append(Verdict("nccl-warn", status, "fabric", f"NCCL WARN {msg}"))
        if status == "fail":
            break
    return out
