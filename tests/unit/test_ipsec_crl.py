"""The CA's revocation list as peers read it: OpenSSL refuses a revoked host certificate with
it, its fields (issuer, key id, number, validity, revocation dates), when it is rewritten, the
expiry edge of a revoked certificate, check mode, and one-line errors for a damaged file."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gpufabric.errors import UserError
from gpufabric.ipsec import certs, crl

pytestmark = pytest.mark.usefixtures("ipsec_fast_kdf")

PW = b"a passphrase for the crl tests"


def _pubkey() -> str:
    key = ec.generate_private_key(ec.SECP384R1())
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()


def _sign(ca: Path, name: str) -> str:
    return certs.sign_public_key(ca, _pubkey(), name, ["10.0.0.1"], 7, passphrase=PW)


def _serial(pem: str) -> int:
    return x509.load_pem_x509_certificate(pem.encode()).serial_number


@pytest.fixture
def ca(tmp_path: Path) -> Path:
    certs.ensure_ca(tmp_path, "gpufabric cluster CA", 30, passphrase=PW)
    return tmp_path


def _openssl_verify(ca: Path, cert: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    (tmp / "host.pem").write_text(cert)
    return subprocess.run(
        ["openssl", "verify", "-crl_check", "-CAfile", str(ca / certs.CA_CERT),
         "-CRLfile", str(ca / crl.CRL), str(tmp / "host.pem")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_openssl_refuses_a_removed_host_with_the_crl_and_accepts_a_member(
    ca: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    kept, gone = _sign(ca, "h1"), _sign(ca, "h2")
    assert crl.update_crl(ca, ["h1"], passphrase=PW, days=7) == {
        "changed": True,
        "revoked": ["h2: no longer a member"],
    }
    tmp = tmp_path_factory.mktemp("verify")
    assert _openssl_verify(ca, kept, tmp).returncode == 0
    refused = _openssl_verify(ca, gone, tmp)
    assert refused.returncode != 0 and "certificate revoked" in refused.stdout + refused.stderr


def test_the_crl_fields_peers_check(ca: Path) -> None:
    old = _sign(ca, "h1")
    _sign(ca, "h1")  # rotated: the first one is superseded
    start = dt.datetime.now(dt.UTC)
    crl.update_crl(ca, ["h1"], passphrase=PW, days=9)
    end = dt.datetime.now(dt.UTC)
    listed = crl.current(ca)
    assert listed is not None and listed.next_update_utc is not None
    ca_cert = x509.load_pem_x509_certificate(certs.ca_cert_pem(ca).encode())
    assert listed.issuer == ca_cert.subject
    assert listed.is_signature_valid(ca_cert.public_key())  # type: ignore[arg-type]
    aki = listed.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier)
    assert not aki.critical and aki.value == x509.AuthorityKeyIdentifier.from_issuer_public_key(
        ca_cert.public_key()  # type: ignore[arg-type]
    )
    number = listed.extensions.get_extension_for_class(x509.CRLNumber)
    assert not number.critical
    assert int(start.timestamp()) <= number.value.crl_number <= int(end.timestamp())
    second = dt.timedelta(seconds=1)
    skew = dt.timedelta(minutes=5)
    assert start - skew - second <= listed.last_update_utc <= end - skew
    assert start + dt.timedelta(days=9) - second <= listed.next_update_utc
    assert listed.next_update_utc <= end + dt.timedelta(days=9)
    (entry,) = list(listed)
    assert entry.serial_number == _serial(old)
    assert start - second <= entry.revocation_date_utc <= end


def test_a_change_of_members_rewrites_a_fresh_crl_with_a_higher_number(ca: Path) -> None:
    _sign(ca, "h1")
    _sign(ca, "h2")
    crl.update_crl(ca, ["h1", "h2"], passphrase=PW, days=7)
    first = crl.current(ca)
    assert first is not None and list(first) == []
    result = crl.update_crl(ca, ["h1"], passphrase=PW, days=7)
    assert result == {"changed": True, "revoked": ["h2: no longer a member"]}
    second = crl.current(ca)
    assert second is not None and len(list(second)) == 1
    number = x509.CRLNumber
    assert (
        second.extensions.get_extension_for_class(number).value.crl_number
        >= first.extensions.get_extension_for_class(number).value.crl_number
    )


def test_check_mode_says_what_would_change_and_writes_nothing(ca: Path) -> None:
    _sign(ca, "h1")
    _sign(ca, "h2")
    want = {"changed": True, "revoked": ["h2: no longer a member"]}
    assert crl.update_crl(ca, ["h1"], passphrase=PW, days=7, dry_run=True) == want
    assert not (ca / crl.CRL).exists()
    crl.update_crl(ca, ["h1", "h2"], passphrase=PW, days=7)
    before = (ca / crl.CRL).read_bytes()
    assert crl.update_crl(ca, ["h1"], passphrase=PW, days=7, dry_run=True) == want
    assert (ca / crl.CRL).read_bytes() == before
    assert crl.update_crl(ca, ["h1", "h2"], passphrase=PW, days=7, dry_run=True) == {
        "changed": False,
        "revoked": [],
    }


def test_a_certificate_leaves_the_crl_the_moment_it_expires() -> None:
    now = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    at = now.isoformat()
    later = (now + dt.timedelta(microseconds=1)).isoformat()
    issued: list[dict[str, object]] = [
        {"serial": 1, "identity": "gone", "not_after": at},
        {"serial": 2, "identity": "gone", "not_after": later},
    ]
    assert crl.revoked_serials(issued, [], [], now) == {2: "gone: no longer a member"}


def test_revoking_by_name_wins_and_every_certificate_of_the_host_is_listed() -> None:
    now = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    until = "2030-02-01T00:00:00+00:00"
    issued: list[dict[str, object]] = [
        {"serial": 10, "identity": "h1", "not_after": until},
        {"serial": 11, "identity": "h2", "not_after": until},
        {"serial": 12, "identity": "h1", "not_after": until},
        {"serial": 13, "identity": "h3", "not_after": until},
    ]
    assert crl.revoked_serials(issued, ["h1", "h3"], ["h1", "h2"], now) == {
        10: "h1: revoked by name",
        11: "h2: revoked by name",
        12: "h1: revoked by name",
    }
    assert crl.revoked_serials(issued, ["h1", "h2", "h3"], [], now) == {10: "h1: superseded"}


def test_a_damaged_crl_is_one_line_naming_it(ca: Path) -> None:
    (ca / crl.CRL).write_text("-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n")
    with pytest.raises(UserError) as exc:
        crl.update_crl(ca, [], passphrase=PW, days=7)
    assert str(exc.value) == (
        f"{ca / crl.CRL}: not a PEM certificate revocation list; remove it to have it written again"
    )


def test_an_oversized_crl_is_refused_naming_it(ca: Path) -> None:
    with (ca / crl.CRL).open("wb") as fh:
        fh.truncate(16 * 1024 * 1024 + 1)
    with pytest.raises(UserError) as exc:
        crl.current(ca)
    assert str(exc.value) == f"{ca / crl.CRL}: 16.0 MiB, too large for the CRL (PEM)"


def test_the_crl_is_rewritten_from_exactly_half_its_life(
    ca: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The edge of the renewal rule: one second before half of the CRL's life is gone it is
    kept; at half it is written again (still valid for as long again)."""
    _sign(ca, "h1")
    crl.update_crl(ca, ["h1"], passphrase=PW, days=8)
    listed = crl.current(ca)
    assert listed is not None and listed.next_update_utc is not None
    half = listed.next_update_utc - (listed.next_update_utc - listed.last_update_utc) / 2

    def at(moment: dt.datetime) -> None:
        class Then(dt.datetime):
            @classmethod
            def now(cls, tz: dt.tzinfo | None = None) -> Then:  # type: ignore[override]
                return moment  # type: ignore[return-value]

        monkeypatch.setattr(crl, "dt", type("Dt", (), {"datetime": Then,
                            "timedelta": dt.timedelta, "UTC": dt.UTC}))  # fmt: skip

    at(half - dt.timedelta(seconds=1))
    assert crl.update_crl(ca, ["h1"], passphrase=PW, days=8)["changed"] is False
    at(half)
    assert crl.update_crl(ca, ["h1"], passphrase=PW, days=8)["changed"] is True
