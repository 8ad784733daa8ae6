"""Allow-list check of strongSwan IKE / ESP proposals (`swanctl.conf` proposals, esp_proposals).

Policy: AEAD ciphers only (AES-GCM with a 16-byte ICV, ChaCha20-Poly1305; NIC offload on
ConnectX is AES-GCM only), a SHA-2 PRF for IKE, and a key exchange on every proposal so rekeyed
CHILD_SAs have perfect forward secrecy. Everything else is refused by name, including
`default` (its lists contain legacy algorithms).
"""

from __future__ import annotations

from typing import Literal

from gpufabric.errors import UserError

Kind = Literal["ike", "esp"]

AEAD = frozenset(
    {"aes128gcm16", "aes192gcm16", "aes256gcm16", "aes128gcm128", "aes192gcm128", "aes256gcm128",
     "chacha20poly1305"}
)  # fmt: skip
PRF = frozenset({"prfsha256", "prfsha384", "prfsha512"})
KE = frozenset(
    {"ecp256", "ecp384", "ecp521", "ecp256bp", "ecp384bp", "ecp512bp", "curve25519", "x25519",
     "curve448", "x448", "modp3072", "modp4096", "modp6144", "modp8192", "mlkem768", "mlkem1024"}
)  # fmt: skip
ESN = frozenset({"esn", "noesn"})


def proposal_problems(value: str, kind: Kind) -> list[str]:
    """Every reason `value` (comma-separated proposals) is not acceptable; [] when it is."""
    problems: list[str] = []
    proposals = [p.strip().lower() for p in value.split(",") if p.strip()]
    if not proposals:
        return [f"{kind} proposal is empty"]
    for proposal in proposals:
        tokens = proposal.split("-")
        enc = [t for t in tokens if t in AEAD]
        prf = [t for t in tokens if t in PRF]
        ke = [t for t in tokens if t in KE]
        allowed = AEAD | KE | (PRF if kind == "ike" else ESN)
        weak = [t for t in tokens if t not in allowed]
        if weak:
            problems.append(f"{proposal}: not allowed: {', '.join(weak)}")
        if not enc:
            problems.append(f"{proposal}: needs an AEAD cipher (e.g. aes256gcm16)")
        if kind == "ike" and not prf:
            problems.append(f"{proposal}: needs a SHA-2 PRF (e.g. prfsha384)")
        if not ke:
            problems.append(f"{proposal}: needs a key exchange for PFS (e.g. ecp384)")
    return problems


def check_proposal(value: str, kind: Kind, key: str) -> str:
    """`value` unchanged when acceptable, else UserError naming `key` and the first problem."""
    problems = proposal_problems(value, kind)
    if problems:
        raise UserError(f"{key}: {value!r} is not valid; {problems[0]}")
    return value
