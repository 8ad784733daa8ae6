"""Parse `fi_info -p efa [-t FI_EP_RDM]` (libfabric): one entry per provider/domain/endpoint.

Entries start with `provider: efa` and continue with indented `fabric:`, `domain:`,
`version:`, `type:`, `protocol:` (real capture fi_info/fi_info_p_efa_rdm_p4de_4nic.txt).
fi_info names the domain of every entry; an entry without one is refused, so that it is never
counted as an EFA device.
"""

from __future__ import annotations

from gpufabric.errors import UserError
from gpufabric.facts.models import FiDomain


def parse(text: str) -> tuple[FiDomain, ...]:
    """Parse the listing; `fi_info` finding nothing (text empty or an error line) gives ()."""
    entries: list[dict[str, str]] = []
    for line in text.splitlines():
        key, sep, value = line.strip().partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "provider" and not line.startswith((" ", "\t")):
            entries.append({"provider": value})
        elif entries:
            entries[-1].setdefault(key, value)
    for n, e in enumerate(entries, 1):
        if not e.get("domain"):
            raise UserError(f"fi_info: entry {n} (provider {e['provider']}) names no domain")
    return tuple(
        FiDomain(
            provider=e["provider"],
            fabric=e.get("fabric", ""),
            domain=e["domain"],
            version=e.get("version", ""),
            ep_type=e.get("type", ""),
            protocol=e.get("protocol", ""),
        )
        for e in entries
    )


def efa_devices(domains: tuple[FiDomain, ...]) -> tuple[str, ...]:
    """The distinct EFA devices, in listed order (an RDM and a DGRAM entry share a device)."""
    seen: dict[str, None] = {}
    for d in domains:
        if d.provider == "efa":
            seen.setdefault(d.device, None)
    return tuple(seen)
