"""Read `tcpdump -nn -l` text captured on a fabric interface: is anything between members clear?

Allowed between cluster members: ESP, ESP in UDP ("UDP-encap: ESP"), and IKE (isakmp on
UDP 500 / 4500, including "NONESP-encap"). Any other IP packet between two members is plaintext.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_IP_RE = re.compile(
    r"\bIP (?P<src>\d+\.\d+\.\d+\.\d+)(?:\.\d+)? > (?P<dst>\d+\.\d+\.\d+\.\d+)(?:\.\d+)?: (?P<rest>.*)"
)
ENCRYPTED = ("ESP(", "UDP-encap: ESP")
KEYING = ("isakmp", "NONESP-encap")


@dataclass
class CaptureVerdict:
    esp: int = 0
    ike: int = 0
    plaintext: list[str] = field(default_factory=list)


def classify(text: str, members: Iterable[str]) -> CaptureVerdict:
    hosts = set(members)
    verdict = CaptureVerdict()
    for line in text.splitlines():
        match = _IP_RE.search(line)
        if not match or match["src"] not in hosts or match["dst"] not in hosts:
            continue
        rest = match["rest"]
        if any(tag in rest for tag in ENCRYPTED):
            verdict.esp += 1
        elif any(tag in rest for tag in KEYING):
            verdict.ike += 1
        else:
            verdict.plaintext.append(line.strip())
    return verdict
