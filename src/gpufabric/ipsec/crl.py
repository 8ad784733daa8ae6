"""The cluster CA's revocation list: every certificate that must no longer be trusted.

Revoked: each unexpired certificate issued to a host that is no longer a member of the mesh
(a removed node), each certificate superseded by a newer one for the same host (rotation with
a new key), and each certificate of a host named in `revoke`. The CRL is rewritten only when
that set changes or when it is past half of its validity, so repeated runs change nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization

from gpufabric.errors import UserError
from gpufabric.inputs.files import MiB, read_bytes
from gpufabric.ipsec import certs

CRL = "crl.pem"


def revoked_serials(
    issued: list[dict[str, object]], members: Iterable[str], revoke: Iterable[str], now: dt.datetime
) -> dict[int, str]:
    """{serial: reason} of the unexpired certificates to revoke."""
    members, revoke = set(members), set(revoke)
    newest: dict[str, int] = {}
    for entry in issued:  # issued.json is in issue order: the last one per host is current
        newest[str(entry["identity"])] = int(str(entry["serial"]))
    out: dict[int, str] = {}
    for entry in issued:
        identity, serial = str(entry["identity"]), int(str(entry["serial"]))
        if dt.datetime.fromisoformat(str(entry["not_after"])) <= now:
            continue  # expired: refused anyway, no need to list it
        if identity in revoke:
            out[serial] = f"{identity}: revoked by name"
        elif identity not in members:
            out[serial] = f"{identity}: no longer a member"
        elif newest[identity] != serial:
            out[serial] = f"{identity}: superseded"
    return out


def current(directory: Path) -> x509.CertificateRevocationList | None:
    path = directory / CRL
    if not path.exists():
        return None
    data = read_bytes(path, what="the CRL (PEM)", max_bytes=16 * MiB)
    try:
        return x509.load_pem_x509_crl(data)
    except ValueError:
        raise UserError(
            f"{path}: not a PEM certificate revocation list; remove it to have it written again"
        ) from None


def update_crl(
    directory: Path,
    members: Iterable[str],
    *,
    passphrase: bytes,
    days: int,
    revoke: Iterable[str] = (),
    dry_run: bool = False,
) -> dict[str, object]:
    """Write directory/crl.pem when needed; {"changed": bool, "revoked": [reasons]}."""
    now = dt.datetime.now(dt.UTC)
    want = revoked_serials(certs.issued(directory), members, revoke, now)
    crl = current(directory)
    have = {r.serial_number for r in crl} if crl is not None else None
    fresh = (
        crl is not None
        and crl.next_update_utc is not None
        and crl.next_update_utc - now > (crl.next_update_utc - crl.last_update_utc) / 2
    )
    reasons = sorted(want.values())
    if have == set(want) and fresh:
        return {"changed": False, "revoked": reasons}
    if dry_run:
        return {"changed": True, "revoked": reasons}
    ca_key, ca = certs.load_ca(directory, passphrase)
    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(ca.subject)
        .last_update(now - dt.timedelta(minutes=5))
        .next_update(now + dt.timedelta(days=days))
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .add_extension(x509.CRLNumber(int(now.timestamp())), critical=False)
    )
    for serial in sorted(want):
        builder = builder.add_revoked_certificate(
            x509.RevokedCertificateBuilder().serial_number(serial).revocation_date(now).build()
        )
    pem = builder.sign(ca_key, hashes.SHA384()).public_bytes(serialization.Encoding.PEM)
    tmp = directory / (CRL + ".new")
    tmp.write_bytes(pem)
    tmp.replace(directory / CRL)
    return {"changed": True, "revoked": reasons}
