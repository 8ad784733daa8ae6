"""The cluster CA for the IPsec mesh: create it once, sign host CSRs, decide re-issue.

Keys: ECDSA P-384. The CA key stays on the controller (files mode 0600 in a 0700 directory),
encrypted with a passphrase (PKCS#8 PBES2, PBKDF2-HMAC-SHA256 at 600,000 iterations:
gpufabric.ipsec.keyfile) that the caller passes in and that is never written anywhere; host keys are made on each host and never
leave it: hosts send their public key; the name and addresses come from the inventory.
Every certificate issued is recorded in `issued.json` (serial, identity, expiry) for the CRL.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import ipaddress
import json
import os
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pydantic import AwareDatetime, BaseModel, StrictInt, StrictStr, ValidationError

from gpufabric.errors import UserError
from gpufabric.inputs.files import MiB, read_bytes, read_text
from gpufabric.inputs.formats import load_json, parse_json
from gpufabric.inputs.models import render
from gpufabric.ipsec import keyfile
from gpufabric.ipsec.keyfile import check_passphrase, encrypted_pem, pbkdf2_iterations

CA_KEY = "ca.key.pem"
CA_CERT = "ca.cert.pem"
ISSUED = "issued.json"
_HASH = hashes.SHA384()


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _require(passphrase: bytes) -> bytes:
    if not passphrase:
        raise UserError(
            "GPUFABRIC_IPSEC_CA_PASSPHRASE is not set: the cluster CA key is kept encrypted "
            "with it; export it in the controller's environment (never as an Ansible variable)"
        )
    return passphrase


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey, passphrase: bytes) -> bytes:
    """Write the key encrypted, atomically, mode 0600; the PEM written."""
    tmp = path.with_name(path.name + ".new")
    tmp.unlink(missing_ok=True)  # left by an interrupted write
    pem = encrypted_pem(key, passphrase)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    os.replace(tmp, path)
    return pem


def ensure_ca(
    directory: Path, common_name: str, days: int, *, passphrase: bytes, dry_run: bool = False
) -> bool:
    """Create the CA in `directory` unless it exists; True when it was (or would be) created.

    An existing CA whose key is still unencrypted gets its key encrypted with `passphrase`.
    """
    key_path, cert_path = directory / CA_KEY, directory / CA_CERT
    if key_path.exists() and cert_path.exists():
        if not dry_run:
            load_ca(directory, passphrase)  # refuses a wrong passphrase; encrypts a plain key
        return False
    if key_path.exists() or cert_path.exists():
        raise UserError(f"ipsec_ca_dir: {directory} holds only one of {CA_KEY} / {CA_CERT}")
    check_passphrase(_require(passphrase))
    if dry_run:
        return True
    key = ec.generate_private_key(ec.SECP384R1())
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(_name(common_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now() - dt.timedelta(minutes=5))
        .not_valid_after(_now() + dt.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(ski, critical=False)
        .sign(key, _HASH)
    )
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    _write_key(key_path, key, passphrase)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return True


def ca_cert_pem(directory: Path) -> str:
    return read_text(directory / CA_CERT, what="the CA certificate (PEM)", max_bytes=MiB)


def _ec_key(
    data: bytes, password: bytes | None, path: Path, unreadable: str
) -> ec.EllipticCurvePrivateKey:
    """The ECDSA key in `data`; one line naming `path` when it does not load (`unreadable`) or
    is another kind of key."""
    try:
        key = serialization.load_pem_private_key(data, password=password)
    except (ValueError, TypeError):
        raise UserError(f"ipsec_ca_dir: {path} {unreadable}") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise UserError(f"ipsec_ca_dir: {path} is not an ECDSA key")
    return key


def load_ca(
    directory: Path, passphrase: bytes
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """The CA key and certificate; a key found unencrypted is encrypted in place first, and a
    key encrypted with a weaker work factor (earlier versions: 2,048 PBKDF2 iterations) is
    encrypted again with the current one."""
    _require(passphrase)
    path = directory / CA_KEY
    data = read_bytes(path, what="the CA key (PEM)", max_bytes=MiB)
    if b"ENCRYPTED" not in data.split(b"\n", 1)[0]:
        check_passphrase(passphrase)
        plain = _ec_key(data, None, path, "is not a PEM private key")
        data = _write_key(path, plain, passphrase)
    key = _ec_key(data, passphrase, path, "does not open with GPUFABRIC_IPSEC_CA_PASSPHRASE")
    if (pbkdf2_iterations(data) or 0) < keyfile.ITERATIONS:
        _write_key(path, key, passphrase)
    return key, x509.load_pem_x509_certificate(
        read_bytes(directory / CA_CERT, what="the CA certificate (PEM)", max_bytes=MiB)
    )


def _public_key(pem: str) -> bytes:
    key = serialization.load_pem_public_key(pem.encode())
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def reissue_reason(
    cert_pem: str,
    ca_pem: str,
    pubkey_pem: str,
    identity: str,
    addresses: list[str],
    renew_days: int,
) -> str | None:
    """Why the host certificate must be (re)issued, or None when it is still right."""
    if not cert_pem.strip():
        return "no certificate yet"
    try:
        cert = x509.load_pem_x509_certificate(cert_pem.encode())
    except ValueError:
        return "certificate unreadable"
    ca = x509.load_pem_x509_certificate(ca_pem.encode())
    pub = serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    if cert.issuer != ca.subject:
        return "issued by another CA"
    try:
        cert.verify_directly_issued_by(ca)
    except (ValueError, TypeError, InvalidSignature):
        return "not signed by the current CA"
    if cert.public_key().public_bytes(*pub) != _public_key(pubkey_pem):
        return "does not match the host key"
    if cert.subject != _name(identity):
        return "subject changed"
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    have = sorted(str(ip) for ip in san.get_values_for_type(x509.IPAddress))
    if have != sorted(addresses):
        return "addresses changed"
    if cert.not_valid_after_utc - _now() < dt.timedelta(days=renew_days):
        return f"expires within {renew_days} days"
    return None


def sign_public_key(
    directory: Path,
    pubkey_pem: str,
    identity: str,
    addresses: list[str],
    days: int,
    *,
    passphrase: bytes,
) -> str:
    """A host certificate for `pubkey_pem`, subject CN=`identity`, valid for `addresses`."""
    ca_key, ca = load_ca(directory, passphrase)
    try:
        public_key = serialization.load_pem_public_key(pubkey_pem.encode())
    except ValueError as exc:
        raise UserError(f"ipsec: the public key of {identity} is not PEM: {exc}") from exc
    if not isinstance(public_key, ec.EllipticCurvePublicKey):
        raise UserError(f"ipsec: the host key of {identity} is not ECDSA")
    san = [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(identity))
        .issuer_name(ca.subject)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now() - dt.timedelta(minutes=5))
        .not_valid_after(min(_now() + dt.timedelta(days=days), ca.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, False, False, False, False),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(san), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, _HASH)
    )
    record_issued(directory, cert, identity)
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def record_issued(directory: Path, cert: x509.Certificate, identity: str) -> None:
    """Append the certificate to issued.json (locked: hosts are signed in parallel)."""
    path = directory / ISSUED
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "r+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        text = handle.read()
        issued = _checked(parse_json(text, where=str(path)), path) if text.strip() else []
        issued.append({"serial": cert.serial_number, "identity": identity,
                       "not_before": cert.not_valid_before_utc.isoformat(),
                       "not_after": cert.not_valid_after_utc.isoformat()})  # fmt: skip
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(issued, indent=1) + "\n")


class _Issued(BaseModel):
    """One entry of issued.json (the CRL reads serial, identity and not_after)."""

    serial: StrictInt
    identity: StrictStr
    not_after: AwareDatetime


def _checked(data: object, path: Path) -> list[dict[str, object]]:
    """issued.json as written by record_issued, or one line naming the file and entry."""
    if not isinstance(data, list):
        raise UserError(f"{path}: expected a list of issued certificates")
    for i, entry in enumerate(data):
        try:
            _Issued.model_validate(entry)
        except ValidationError as exc:
            raise UserError(f"{path}: entry {i}: {render(exc)}") from None
    return data


def issued(directory: Path) -> list[dict[str, object]]:
    """The certificates issued so far, in issue order ([] before the first)."""
    path = directory / ISSUED
    if not path.exists():
        return []
    return _checked(load_json(path, what="the CA's issued.json"), path)
