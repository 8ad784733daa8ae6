"""The cluster CA's certificates as a peer and an operator see them: RFC 5280 profiles (what
strongSwan and OpenSSL check), validity windows, the renewal edge, issued.json, and one-line
errors for a CA folder that is damaged."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID

from gpufabric.errors import UserError
from gpufabric.inputs.files import MiB
from gpufabric.ipsec import certs, keyfile
from gpufabric.ipsec.keyfile import pbkdf2_iterations

pytestmark = pytest.mark.usefixtures("ipsec_fast_kdf")

PW = b"a passphrase for the cert tests"
SKEW = dt.timedelta(minutes=5)  # hosts whose clock is this far behind accept a fresh cert


def _pubkey() -> str:
    key = ec.generate_private_key(ec.SECP384R1())
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def _ext(cert: x509.Certificate) -> dict[str, tuple[bool, object]]:
    return {e.value.__class__.__name__: (e.critical, e.value) for e in cert.extensions}


def _usage(**on: bool) -> x509.KeyUsage:
    names = ["digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
             "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only"]  # fmt: skip
    return x509.KeyUsage(*(on.get(n, False) for n in names))


@pytest.fixture(scope="module")
def ca_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA made in a folder whose parents do not exist yet."""
    directory = tmp_path_factory.mktemp("ca") / "home" / "gpufabric" / "ipsec-ca"
    with pytest.MonkeyPatch.context() as mp:  # the module's fast KDF, for a module-wide CA
        mp.setattr(keyfile, "ITERATIONS", 1_000)
        assert certs.ensure_ca(directory, "gpufabric cluster CA", 30, passphrase=PW) is True
    return directory


def test_the_ca_certificate_follows_the_rfc_5280_ca_profile(ca_dir: Path) -> None:
    """A CA that signs host certificates and CRLs only, with no CA below it."""
    ca = x509.load_pem_x509_certificate(certs.ca_cert_pem(ca_dir).encode())
    ski = x509.SubjectKeyIdentifier.from_public_key(ca.public_key())  # type: ignore[arg-type]
    assert _ext(ca) == {
        "BasicConstraints": (True, x509.BasicConstraints(ca=True, path_length=0)),
        "KeyUsage": (True, _usage(key_cert_sign=True, crl_sign=True)),
        "SubjectKeyIdentifier": (False, ski),
    }
    assert ca.subject == ca.issuer == certs._name("gpufabric cluster CA")
    life = ca.not_valid_after_utc - ca.not_valid_before_utc  # whole seconds
    assert dt.timedelta(days=30) + SKEW <= life <= dt.timedelta(days=30, seconds=1) + SKEW
    assert stat.S_IMODE(ca_dir.stat().st_mode) == 0o700
    assert sorted(p.name for p in ca_dir.iterdir()) == [certs.CA_CERT, certs.CA_KEY]


def test_a_host_certificate_follows_the_end_entity_profile(ca_dir: Path) -> None:
    """Not a CA, signs IKE_AUTH only (digitalSignature), serverAuth, its addresses as IP
    SANs, and an authority key id that names the CA's key (how peers find the issuer)."""
    start = dt.datetime.now(dt.UTC)
    pem = certs.sign_public_key(ca_dir, _pubkey(), "h1", ["10.0.0.1", "10.1.0.1"], 7,
                                passphrase=PW)  # fmt: skip
    host = x509.load_pem_x509_certificate(pem.encode())
    ca = x509.load_pem_x509_certificate(certs.ca_cert_pem(ca_dir).encode())
    aki = x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key())  # type: ignore[arg-type]
    san = x509.SubjectAlternativeName(
        [x509.IPAddress(ipaddress.ip_address(a)) for a in ["10.0.0.1", "10.1.0.1"]]
    )
    assert _ext(host) == {
        "BasicConstraints": (True, x509.BasicConstraints(ca=False, path_length=None)),
        "KeyUsage": (True, _usage(digital_signature=True)),
        "ExtendedKeyUsage": (False, x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH])),
        "SubjectAlternativeName": (False, san),
        "AuthorityKeyIdentifier": (False, aki),
    }
    issued_at = dt.datetime.now(dt.UTC)
    assert start - SKEW - dt.timedelta(seconds=1) <= host.not_valid_before_utc <= issued_at - SKEW
    assert host.not_valid_after_utc - start < dt.timedelta(days=7, seconds=60)


def test_openssl_accepts_the_chain_for_a_tls_server(ca_dir: Path, tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    host = tmp_path / "h2.pem"
    host.write_text(certs.sign_public_key(ca_dir, _pubkey(), "h2", ["10.0.0.2"], 7, passphrase=PW))
    out = subprocess.run(
        ["openssl", "verify", "-x509_strict", "-purpose", "sslserver",
         "-CAfile", str(ca_dir / certs.CA_CERT), str(host)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0 and out.stdout.strip().endswith(": OK"), out.stderr


def test_issued_json_records_each_certificate_privately(ca_dir: Path) -> None:
    before = len(certs.issued(ca_dir))
    pem = certs.sign_public_key(ca_dir, _pubkey(), "h3", ["10.0.0.3"], 7, passphrase=PW)
    cert = x509.load_pem_x509_certificate(pem.encode())
    entries = certs.issued(ca_dir)
    assert len(entries) == before + 1
    assert entries[-1] == {
        "serial": cert.serial_number,
        "identity": "h3",
        "not_before": cert.not_valid_before_utc.isoformat(),
        "not_after": cert.not_valid_after_utc.isoformat(),
    }
    assert stat.S_IMODE((ca_dir / certs.ISSUED).stat().st_mode) == 0o600


def test_a_new_ca_has_issued_nothing(tmp_path: Path) -> None:
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    assert certs.issued(tmp_path) == []


def test_the_passphrase_missing_is_one_line_saying_where_to_set_it(tmp_path: Path) -> None:
    with pytest.raises(UserError) as exc:
        certs.load_ca(tmp_path, b"")
    assert str(exc.value) == (
        "GPUFABRIC_IPSEC_CA_PASSPHRASE is not set: the cluster CA key is kept encrypted with "
        "it; export it in the controller's environment (never as an Ansible variable)"
    )


def test_loading_a_current_key_rewrites_nothing(tmp_path: Path) -> None:
    """A run that changes nothing leaves the key file as it was (no new salt each run)."""
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    before = (tmp_path / certs.CA_KEY).read_bytes()
    assert pbkdf2_iterations(before) == keyfile.ITERATIONS
    certs.load_ca(tmp_path, PW)
    assert (tmp_path / certs.CA_KEY).read_bytes() == before


def _plain(key: object) -> bytes:
    return key.private_bytes(  # type: ignore[attr-defined, no-any-return]
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def test_a_plain_key_is_encrypted_past_a_leftover_of_an_interrupted_write(
    tmp_path: Path,
) -> None:
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    key, _ = certs.load_ca(tmp_path, PW)
    (tmp_path / certs.CA_KEY).write_bytes(_plain(key))
    (tmp_path / (certs.CA_KEY + ".new")).write_bytes(b"half a key")
    again, _ = certs.load_ca(tmp_path, PW)
    assert again.private_numbers() == key.private_numbers()
    assert sorted(p.name for p in tmp_path.iterdir()) == [certs.CA_CERT, certs.CA_KEY]
    assert (tmp_path / certs.CA_KEY).read_bytes().startswith(b"-----BEGIN ENCRYPTED")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"x", "is not a PEM private key"),
        (
            b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "is not a PEM private key",
        ),
        (_plain(rsa.generate_private_key(65537, 2048)), "is not an ECDSA key"),
        (
            rsa.generate_private_key(65537, 2048).private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.BestAvailableEncryption(PW),
            ),
            "is not an ECDSA key",
        ),
    ],
)
def test_a_damaged_or_foreign_ca_key_is_one_line(tmp_path: Path, content: bytes, why: str) -> None:
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    (tmp_path / certs.CA_KEY).write_bytes(content)
    with pytest.raises(UserError) as exc:
        certs.load_ca(tmp_path, PW)
    assert str(exc.value) == f"ipsec_ca_dir: {tmp_path / certs.CA_KEY} {why}"


@pytest.mark.parametrize(
    ("name", "what"),
    [(certs.CA_KEY, "the CA key (PEM)"), (certs.CA_CERT, "the CA certificate (PEM)")],
)
def test_an_oversized_ca_file_is_refused_naming_it(tmp_path: Path, name: str, what: str) -> None:
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    (tmp_path / name).write_bytes(b"-" * (MiB + 1))
    with pytest.raises(UserError) as exc:
        certs.load_ca(tmp_path, PW)
    assert str(exc.value) == f"{tmp_path / name}: 1.0 MiB, too large for {what}"
    if name == certs.CA_CERT:
        with pytest.raises(UserError, match=re.escape(f"too large for {what}") + "$"):
            certs.ca_cert_pem(tmp_path)


def test_a_host_key_that_is_not_ecdsa_is_refused(ca_dir: Path) -> None:
    other = ed25519.Ed25519PrivateKey.generate().public_key()
    pem = other.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()
    with pytest.raises(UserError) as exc:
        certs.sign_public_key(ca_dir, pem, "h9", ["10.0.0.9"], 7, passphrase=PW)
    assert str(exc.value) == "ipsec: the host key of h9 is not ECDSA"


def test_reissue_reasons_for_a_foreign_or_broken_certificate(tmp_path: Path) -> None:
    certs.ensure_ca(tmp_path / "a", "cluster a", 3, passphrase=PW)
    certs.ensure_ca(tmp_path / "b", "cluster b", 3, passphrase=PW)
    pub = _pubkey()
    pem = certs.sign_public_key(tmp_path / "a", pub, "h1", ["10.0.0.1"], 2, passphrase=PW)
    ca_b = certs.ca_cert_pem(tmp_path / "b")
    assert certs.reissue_reason(pem, ca_b, pub, "h1", ["10.0.0.1"], 1) == "issued by another CA"
    broken = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    assert certs.reissue_reason(broken, ca_b, pub, "h1", ["10.0.0.1"], 1) == (
        "certificate unreadable"
    )


def test_renewal_starts_exactly_renew_days_before_expiry(
    ca_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pub = _pubkey()
    pem = certs.sign_public_key(ca_dir, pub, "h4", ["10.0.0.4"], 7, passphrase=PW)
    end = x509.load_pem_x509_certificate(pem.encode()).not_valid_after_utc
    ca_pem = certs.ca_cert_pem(ca_dir)
    for now, want in [(end - dt.timedelta(days=2), None),
                      (end - dt.timedelta(days=2) + dt.timedelta(seconds=1),
                       "expires within 2 days")]:  # fmt: skip
        monkeypatch.setattr(certs, "_now", lambda now=now: now)
        assert certs.reissue_reason(pem, ca_pem, pub, "h4", ["10.0.0.4"], 2) == want


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{", "line 1"),
        ('{"serial": 1}', "expected a list of issued certificates"),
        (
            '[{"serial": "1", "identity": "h1", "not_after": "2030-01-01T00:00:00+00:00"}]',
            "entry 0: serial: Input should be a valid integer (got '1')",
        ),
        (
            '[{"serial": 1, "identity": "h1", "not_after": "2030-01-01T00:00:00"}]',
            "entry 0: not_after: Input should have timezone info",
        ),
        (
            '[{"serial": 1, "not_after": "2030-01-01T00:00:00+00:00"}]',
            "entry 0: identity: Field required",
        ),
    ],
)
def test_a_damaged_issued_json_is_one_line_naming_it(
    tmp_path: Path, content: str, why: str
) -> None:
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    path = tmp_path / certs.ISSUED
    path.write_text(content)
    for call in (
        lambda: certs.issued(tmp_path),
        lambda: certs.sign_public_key(tmp_path, _pubkey(), "h1", ["10.0.0.1"], 2, passphrase=PW),
    ):
        with pytest.raises(UserError) as exc:
            call()
        line = str(exc.value)
        assert line.startswith(f"{path}: ") and why in line and "\n" not in line, line
    assert path.read_text() == content  # nothing half-written


def test_issued_json_that_is_a_folder_is_refused_naming_it(tmp_path: Path) -> None:
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    (tmp_path / certs.ISSUED).mkdir()
    with pytest.raises(UserError) as exc:
        certs.issued(tmp_path)
    assert (
        str(exc.value)
        == f"{tmp_path / certs.ISSUED}: is a directory, expected the CA's issued.json"
    )
