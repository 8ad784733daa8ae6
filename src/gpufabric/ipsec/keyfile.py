"""The CA key at rest: PKCS#8 PBES2 (PBKDF2-HMAC-SHA256 + AES-256-CBC) with a modern work
factor, and a passphrase that is not trivially guessed.

`cryptography`'s BestAvailableEncryption writes PBES2 with 2,048 PBKDF2 iterations (OpenSSL's
PKCS5_DEFAULT_ITER; seen in the DER it writes) and offers no way to raise it for PKCS#8, so the
EncryptedPrivateKeyInfo (RFC 5958 / RFC 8018) is built here, with OWASP's figure for
PBKDF2-HMAC-SHA256 (600,000 iterations, OWASP Password Storage Cheat Sheet). Any PKCS#8 reader
(OpenSSL, `cryptography`'s load_pem_private_key) reads it.
"""

from __future__ import annotations

import base64
import os

from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from gpufabric.errors import UserError

ITERATIONS = 600_000
MIN_PASSPHRASE = 16
# DER object identifiers (RFC 8018 appendix A / C, NIST CSOR)
_PBES2 = "1.2.840.113549.1.5.13"
_PBKDF2 = "1.2.840.113549.1.5.12"
_HMAC_SHA256 = "1.2.840.113549.2.9"
_AES256_CBC = "2.16.840.1.101.3.4.1.42"


def _len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def _tlv(tag: int, body: bytes) -> bytes:
    return bytes([tag]) + _len(len(body)) + body


def _seq(*items: bytes) -> bytes:
    return _tlv(0x30, b"".join(items))


def _oid(dotted: str) -> bytes:
    parts = [int(p) for p in dotted.split(".")]
    body = bytes([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        while p > 0x7F:
            p >>= 7
            chunk.insert(0, 0x80 | (p & 0x7F))
        body += bytes(chunk)
    return _tlv(0x06, body)


def _int(n: int) -> bytes:
    return _tlv(0x02, n.to_bytes(n.bit_length() // 8 + 1, "big"))


def check_passphrase(passphrase: bytes) -> None:
    """Refuse a passphrase an attacker with the key file would guess: too short, one repeated
    character or chunk."""
    text = passphrase.decode("utf-8", "replace")
    short = len(text) < MIN_PASSPHRASE
    repeated = any(
        len(text) % n == 0 and text == text[:n] * (len(text) // n)
        for n in range(1, len(text) // 2 + 1)
    )
    if short or repeated or len(set(text)) < 6:
        raise UserError(
            f"GPUFABRIC_IPSEC_CA_PASSPHRASE is too weak: use at least {MIN_PASSPHRASE} "
            "characters that are not one repeated character or chunk (e.g. "
            "`python -c 'import secrets; print(secrets.token_urlsafe(24))'`)"
        )


def encrypted_pem(
    key: ec.EllipticCurvePrivateKey, passphrase: bytes, iterations: int | None = None
) -> bytes:
    """`key` as an ENCRYPTED PRIVATE KEY PEM (PBES2, PBKDF2-HMAC-SHA256, AES-256-CBC), with
    ITERATIONS rounds of PBKDF2 unless told otherwise."""
    iterations = ITERATIONS if iterations is None else iterations
    plain = key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    salt, iv = os.urandom(16), os.urandom(16)
    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=iterations)
    padder = padding.PKCS7(128).padder()
    data = padder.update(plain) + padder.finalize()
    enc = Cipher(algorithms.AES(kdf.derive(passphrase)), modes.CBC(iv)).encryptor()
    sealed = enc.update(data) + enc.finalize()
    params = _seq(
        _seq(
            _oid(_PBKDF2),
            _seq(_tlv(0x04, salt), _int(iterations), _seq(_oid(_HMAC_SHA256), b"\x05\x00")),
        ),
        _seq(_oid(_AES256_CBC), _tlv(0x04, iv)),
    )
    der = _seq(_seq(_oid(_PBES2), params), _tlv(0x04, sealed))
    body = base64.encodebytes(der).decode().replace("\n", "")
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + "\n".join(lines)
    return (pem + "\n-----END ENCRYPTED PRIVATE KEY-----\n").encode()


def pbkdf2_iterations(pem: bytes) -> int | None:
    """The PBKDF2 iteration count of an ENCRYPTED PRIVATE KEY PEM (None when not PBES2)."""
    try:
        der = base64.b64decode(b"".join(pem.strip().splitlines()[1:-1]))
    except ValueError:
        return None
    marker = _oid(_PBKDF2)
    at = der.find(marker)
    if at < 0:
        return None
    rest = der[at + len(marker) :]
    # SEQUENCE { OCTET STRING salt, INTEGER iterations, ... }; any element may take a
    # long-form length (a salt over 127 bytes does)
    try:
        _, i = _contents(rest, 0)
        if rest[i] != 0x04:
            return None
        size, salt = _contents(rest, i)
        i = salt + size
        if rest[i] != 0x02:
            return None
        size, start = _contents(rest, i)
    except IndexError:
        return None
    return int.from_bytes(rest[start : start + size], "big")


def _contents(der: bytes, at: int) -> tuple[int, int]:
    """(length, offset) of the contents of the DER element whose tag is at `at`."""
    first = der[at + 1]
    if first < 0x80:
        return first, at + 2
    width = first & 0x7F
    return int.from_bytes(der[at + 2 : at + 2 + width], "big"), at + 2 + width
