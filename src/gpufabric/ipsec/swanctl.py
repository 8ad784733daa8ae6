"""Parser for `swanctl --list-sas` (strongSwan 5.9 / 6.x text output) and the mesh check.

Shape (indentation is significant; IKE SAs start in column 0, CHILD_SAs are indented 2):

    gf-h2: #3, ESTABLISHED, IKEv2, 1b0a...i* 9c3e...r
      local  'CN=h1' @ 10.77.0.11[4500]
      remote 'CN=h2' @ 10.77.0.12[4500]
      AES_GCM_16-256/PRF_HMAC_SHA2_384/ECP_384
      ...
      gf-h2: #2, reqid 1, INSTALLED, TUNNEL-in-UDP, ESP:AES_GCM_16-256/ECP_384
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_IKE_RE = re.compile(r"^(?P<name>[^\s:]+): #(?P<id>\d+), (?P<state>[A-Z_]+), (?P<version>IKEv\d)")
_CHILD_RE = re.compile(
    r"^\s+(?P<name>[^\s:]+): #(?P<id>\d+), reqid (?P<reqid>\d+), (?P<state>[A-Z_]+), "
    r"(?P<mode>[A-Za-z_-]+), (?P<proto>ESP|AH):(?P<algs>\S+)"
)
_PEER_RE = re.compile(r"^\s+(?P<side>local|remote)\s+'(?P<id>[^']*)' @ (?P<addr>[^\[\s]+)\[")


@dataclass
class ChildSa:
    name: str
    state: str
    mode: str
    algorithms: str


@dataclass
class IkeSa:
    name: str
    state: str
    version: str
    local_id: str = ""
    local_addr: str = ""
    remote_id: str = ""
    remote_addr: str = ""
    algorithms: str = ""
    children: list[ChildSa] = field(default_factory=list)

    @property
    def up(self) -> bool:
        return self.state == "ESTABLISHED" and any(c.state == "INSTALLED" for c in self.children)


def parse_list_sas(text: str) -> list[IkeSa]:
    sas: list[IkeSa] = []
    for line in text.splitlines():
        if match := _IKE_RE.match(line):
            sas.append(IkeSa(match["name"], match["state"], match["version"]))
        elif not sas:
            continue
        elif match := _CHILD_RE.match(line):
            sas[-1].children.append(
                ChildSa(match["name"], match["state"], match["mode"], match["algs"])
            )
        elif match := _PEER_RE.match(line):
            side = match["side"]
            setattr(sas[-1], f"{side}_id", match["id"])
            setattr(sas[-1], f"{side}_addr", match["addr"])
        elif re.match(r"^  [A-Z0-9_]+(-\d+)?/", line) and not sas[-1].algorithms:
            sas[-1].algorithms = line.strip()
    return sas


def missing_peers(sas: Iterable[IkeSa], peers: Iterable[str]) -> list[str]:
    """Peer addresses without an ESTABLISHED IKE SA that has an INSTALLED CHILD_SA."""
    up = {sa.remote_addr for sa in sas if sa.up}
    return [peer for peer in peers if peer not in up]
