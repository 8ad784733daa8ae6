"""The CA key at rest: PBKDF2 with a modern work factor (not cryptography's 2,048), readable
by OpenSSL itself; a weak passphrase is refused for a new CA; an old key is upgraded."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from gpufabric.errors import UserError
from gpufabric.ipsec import certs
from gpufabric.ipsec.keyfile import ITERATIONS, check_passphrase, encrypted_pem, pbkdf2_iterations

PW = b"correct horse battery staple 42"


def test_a_new_ca_key_uses_600000_pbkdf2_iterations(tmp_path: Path) -> None:
    certs.ensure_ca(tmp_path / "ca", "t", 30, passphrase=PW)
    pem = (tmp_path / "ca" / certs.CA_KEY).read_bytes()
    assert pem.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert pbkdf2_iterations(pem) == ITERATIONS >= 600_000
    key, _ = certs.load_ca(tmp_path / "ca", PW)
    assert isinstance(key, ec.EllipticCurvePrivateKey)


def test_openssl_reads_the_key_and_reports_its_kdf(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    certs.ensure_ca(tmp_path / "ca", "t", 30, passphrase=PW)
    key = tmp_path / "ca" / certs.CA_KEY
    out = subprocess.run(
        ["openssl", "asn1parse", "-in", str(key)], capture_output=True, text=True, check=True
    ).stdout
    assert "PBES2" in out and "PBKDF2" in out and "hmacWithSHA256" in out
    assert "aes-256-cbc" in out and "927C0" in out.upper()  # 600000 = 0x927C0
    opened = subprocess.run(
        ["openssl", "pkey", "-in", str(key), "-passin", "env:PW", "-noout"],
        env={"PW": PW.decode(), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert opened.returncode == 0, opened.stderr


def test_a_key_from_an_earlier_version_is_upgraded_on_load(tmp_path: Path) -> None:
    certs.ensure_ca(tmp_path / "ca", "t", 30, passphrase=PW)
    key_path = tmp_path / "ca" / certs.CA_KEY
    key, _ = certs.load_ca(tmp_path / "ca", PW)
    old = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(PW),
    )
    assert pbkdf2_iterations(old) == 2048  # what cryptography writes by itself
    key_path.write_bytes(old)
    certs.load_ca(tmp_path / "ca", PW)
    assert pbkdf2_iterations(key_path.read_bytes()) == ITERATIONS


@pytest.mark.parametrize(
    "weak", [b"short", b"aaaaaaaaaaaaaaaaaaaa", b"abcabcabcabcabcabc", b"0101010101010101"]
)
def test_a_weak_passphrase_is_refused_for_a_new_ca(weak: bytes, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="too weak"):
        certs.ensure_ca(tmp_path / "ca", "t", 30, passphrase=weak)
    assert not (tmp_path / "ca").exists()  # nothing half-written
    check_passphrase(PW)


@pytest.mark.parametrize("iterations", [1, 200, 255, 256, 65_536, ITERATIONS])
def test_any_work_factor_round_trips_through_a_pkcs8_reader(iterations: int) -> None:
    """The iteration count is a DER INTEGER: one whose top bit is set (200) needs a leading
    zero byte, or readers see a negative count."""
    key = ec.generate_private_key(ec.SECP384R1())
    pem = encrypted_pem(key, PW, iterations)
    assert pbkdf2_iterations(pem) == iterations
    opened = serialization.load_pem_private_key(pem, password=PW)
    assert opened.private_numbers() == key.private_numbers()  # type: ignore[union-attr]


def test_the_prf_is_hmac_sha256_with_null_parameters(tmp_path: Path) -> None:
    """RFC 8018 appendix B.1.2: the PRF's AlgorithmIdentifier carries NULL parameters."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    key = tmp_path / "k.pem"
    key.write_bytes(encrypted_pem(ec.generate_private_key(ec.SECP384R1()), PW, 1_000))
    out = subprocess.run(
        ["openssl", "asn1parse", "-in", str(key)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    at = next(i for i, line in enumerate(out) if "hmacWithSHA256" in line)
    assert out[at + 1].rstrip().endswith("NULL"), out[at : at + 2]
    assert "INTEGER           :03E8" in out[at - 2]  # 1,000 rounds, then the PRF


@pytest.mark.parametrize(
    "weak",
    [
        "abcdefghijklmno",  # 15 characters
        "abcdefghabcdefgh",  # one 8-character chunk twice
        "Tr0ub4dor&3Tr0ub4dor&3",  # one 11-character chunk twice
        "aaaaaaaaaaaaaaab",  # 2 different characters
        "abcdeabcdeabcdeab",  # 5 different characters
    ],
)
def test_weak_passphrases_each_rule(weak: str) -> None:
    with pytest.raises(UserError) as exc:
        check_passphrase(weak.encode())
    assert str(exc.value) == (
        "GPUFABRIC_IPSEC_CA_PASSPHRASE is too weak: use at least 16 characters that are not "
        "one repeated character or chunk (e.g. `python -c 'import secrets; "
        "print(secrets.token_urlsafe(24))'`)"
    )


@pytest.mark.parametrize(
    "strong",
    [
        b"abcdefghijklmnop",  # exactly 16, all different
        b"aabbccddeeffaabbc",  # 6 different characters, no repeated chunk
        b"\xff\xfe not UTF-8 but long and varied",  # bytes from the environment as they are
    ],
)
def test_passphrases_at_the_edges_are_accepted(strong: bytes) -> None:
    check_passphrase(strong)


def test_the_work_factor_is_read_whatever_the_pem_line_length() -> None:
    """A key re-wrapped by another tool (one long base64 line) is read the same."""
    pem = encrypted_pem(ec.generate_private_key(ec.SECP384R1()), PW, 1_000)
    head, *body, tail = pem.strip().splitlines()
    one_line = b"\n".join([head, b"".join(body), tail]) + b"\n"
    assert pbkdf2_iterations(one_line) == pbkdf2_iterations(pem) == 1_000
    assert (
        pbkdf2_iterations(b"-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n") is None
    )


def test_the_work_factor_is_read_past_a_long_salt(monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC 8018 puts no bound on the salt: with 200 bytes the PBKDF2 parameters take a
    long-form DER length, and the count behind them is still read right."""
    from gpufabric.ipsec import keyfile

    chunks = iter([b"\x01" * 200, b"\x02" * 16])  # the salt, then the IV
    monkeypatch.setattr(keyfile.os, "urandom", lambda n: next(chunks))
    key = ec.generate_private_key(ec.SECP384R1())
    pem = encrypted_pem(key, PW, 1_000)
    assert pbkdf2_iterations(pem) == 1_000
    opened = serialization.load_pem_private_key(pem, password=PW)
    assert opened.private_numbers() == key.private_numbers()  # type: ignore[union-attr]
    cut = base64.b64encode(keyfile._oid(keyfile._PBKDF2) + b"\x30\x81")
    assert pbkdf2_iterations(b"-----BEGIN X-----\n" + cut + b"\n-----END X-----\n") is None


def test_der_lengths_and_object_identifiers_follow_x690() -> None:
    """Short-form lengths up to 127 only (0x80 alone means "indefinite"); OID arcs in base
    128 with the high bit on every byte but the last."""
    from gpufabric.ipsec import keyfile

    for size, head in [(127, b"\x04\x7f"), (128, b"\x04\x81\x80"), (255, b"\x04\x81\xff"),
                       (256, b"\x04\x82\x01\x00")]:  # fmt: skip
        assert keyfile._tlv(0x04, b"x" * size) == head + b"x" * size
    assert keyfile._oid("1.2.840.113549.1.5.12").hex() == "06092a864886f70d01050c"
    assert keyfile._oid("1.2.127").hex() == "06022a7f"
    assert keyfile._oid("1.2.128").hex() == "06032a8100"
