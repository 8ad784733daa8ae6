"""IPsec against a rogue node and over time: member addresses checked with ipaddress, the
guard's values quoted, the CA key encrypted at rest, short-lived certificates, and a CRL that
revokes removed and superseded certificates."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gpufabric.errors import UserError
from gpufabric.ipsec import ca as ca_cli
from gpufabric.ipsec import certs, crl
from gpufabric.ipsec.members import fabric_network, ipv4, member_problems

pytestmark = pytest.mark.usefixtures("ipsec_fast_kdf")

REPO = Path(__file__).resolve().parents[2]
ROLE = REPO / "roles" / "ipsec"
PW = b"a passphrase for tests"
ROGUE = '10.0.0.9"; id > x; : "'


def member(name: str, address: str, *reported: str) -> dict[str, object]:
    return {"name": name, "address": address, "reported": list(reported) or [address]}


def test_a_rogue_address_is_refused_naming_the_host() -> None:
    ok = member("h1", "10.0.0.1", "127.0.0.1", "10.0.0.1")
    problems = member_problems([ok, member("h4", "10.0.0.4", "10.0.0.4", ROGUE)])
    assert problems == [
        f"ipsec: h4 reports addresses that are not IPv4 addresses: {ROGUE!r} "
        "(its facts are not trusted; fix or remove it)"
    ]
    assert member_problems([ok, member("h4", ROGUE)])[0].startswith("ipsec: h4 reports")


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        ([member("h1", "10.0.0.1"), member("h2", "10.0.0.1")], "h2 and h1 both claim 10.0.0.1"),
        ([member("h1", "10.0.0.1", "10.0.0.7")], "h1 does not hold its cluster address 10.0.0.1"),
        ([member("h1", "127.0.0.1")], "127.0.0.1 cannot be a cluster address"),
        ([member("h1", "169.254.10.1")], "169.254.10.1 cannot be a cluster address"),
        ([member("h1", "010.0.0.1", "10.0.0.1")], "is not an IPv4 address"),
        ([member("h1", "10.0.0.1\n", "10.0.0.1")], "is not an IPv4 address"),
        ([member('h1"; id', "10.0.0.1")], "is not a plain host name"),
    ],
)
def test_member_problems(members: list[dict[str, object]], expected: str) -> None:
    (problem,) = member_problems(members)
    assert expected in problem


def test_fabric_network_is_checked() -> None:
    assert fabric_network("10.200.17.0/255.255.255.0", "10.200.17.11", "k") == "10.200.17.0/24"
    for bad, why in [("0.0.0.0/4", "wider than a /8"), ("10.1.0.0/16", "does not hold"),
                     ("10.200.17.5/24", "not an IPv4 network"), ("x; id", "not an IPv4")]:  # fmt: skip
        with pytest.raises(UserError, match=why):
            fabric_network(bad, "10.200.17.11", "k")
    with pytest.raises(UserError, match="not an IPv4 address"):
        ipv4(ROGUE, "k")


def test_every_value_in_the_guard_script_is_quoted() -> None:
    text = (ROLE / "templates" / "gpufabric-ipsec-guard.sh.j2").read_text()
    body = text[text.index("set -eu") :]
    for expr in re.findall(r"\{\{(.*?)\}\}", body):
        assert expr.strip().endswith("| quote"), f"unquoted in the guard: {{{{{expr}}}}}"
    assert "__ipsec_peers" not in body  # the guard covers the subnet, not a list of peers
    assert "__ipsec_fabric_cidr" in body


def _pubkey() -> str:
    key = ec.generate_private_key(ec.SECP384R1())
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()


def test_ca_key_is_encrypted_at_rest_and_needs_the_passphrase(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="GPUFABRIC_IPSEC_CA_PASSPHRASE is not set"):
        certs.ensure_ca(tmp_path / "ca", "t", 30, passphrase=b"")
    certs.ensure_ca(tmp_path / "ca", "t", 30, passphrase=PW)
    assert (
        (tmp_path / "ca" / certs.CA_KEY)
        .read_text()
        .startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    )
    with pytest.raises(UserError, match="does not open") as exc:
        certs.sign_public_key(tmp_path / "ca", _pubkey(), "h1", ["10.0.0.1"], 7,
                              passphrase=b"wrong one")  # fmt: skip
    assert "wrong one" not in str(exc.value)


def test_a_plain_ca_key_of_an_earlier_version_gets_encrypted(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW)
    key, _ = certs.load_ca(tmp_path, PW)
    plain = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption())  # fmt: skip
    (tmp_path / certs.CA_KEY).write_bytes(plain)
    assert certs.ensure_ca(tmp_path, "t", 30, passphrase=PW) is False
    assert b"ENCRYPTED" in (tmp_path / certs.CA_KEY).read_bytes()


def test_ca_cli_refuses_a_rogue_address_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUFABRIC_IPSEC_CA_PASSPHRASE", PW.decode())
    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW)
    argv = ["sign", "--dir", str(tmp_path), "--identity", "h4", "--address", ROGUE, "--days", "7"]
    assert ca_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not an IPv4 address" in err


def test_crl_revokes_removed_superseded_and_named_hosts_and_is_stable(tmp_path: Path) -> None:
    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW)
    serials = {}
    for name in ["h1", "h2", "h3", "h1"]:
        pem = certs.sign_public_key(tmp_path, _pubkey(), name, ["10.0.0.1"], 7, passphrase=PW)
        serials.setdefault(name, []).append(x509.load_pem_x509_certificate(pem.encode()))
    result = crl.update_crl(tmp_path, ["h1", "h3"], passphrase=PW, days=7, revoke=["h3"])
    assert result == {"changed": True, "revoked": ["h1: superseded", "h2: no longer a member",
                                                   "h3: revoked by name"]}  # fmt: skip
    listed = crl.current(tmp_path)
    assert listed is not None
    ca = x509.load_pem_x509_certificate(certs.ca_cert_pem(tmp_path).encode())
    assert listed.is_signature_valid(ca.public_key())  # type: ignore[arg-type]
    assert listed.issuer == ca.subject
    revoked = {r.serial_number for r in listed}
    assert revoked == {serials["h1"][0].serial_number, serials["h2"][0].serial_number,
                       serials["h3"][0].serial_number}  # fmt: skip
    assert serials["h1"][1].serial_number not in revoked  # the current h1 stays valid
    before = (tmp_path / crl.CRL).read_bytes()
    assert (
        crl.update_crl(tmp_path, ["h1", "h3"], passphrase=PW, days=7, revoke=["h3"])["changed"]
        is False
    )
    assert (tmp_path / crl.CRL).read_bytes() == before


def test_expired_certificates_drop_off_the_crl() -> None:
    now = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    issued: list[dict[str, object]] = [
        {"serial": 1, "identity": "gone", "not_after": "2029-12-31T00:00:00+00:00"},
        {"serial": 2, "identity": "gone", "not_after": "2030-01-05T00:00:00+00:00"},
    ]
    assert crl.revoked_serials(issued, ["h1"], [], now) == {2: "gone: no longer a member"}


def test_host_certificates_are_short_lived_and_renewed_with_a_new_key() -> None:
    defaults = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
    assert defaults["ipsec_cert_days"] <= 14
    assert 0 < defaults["ipsec_cert_renew_days"] < defaults["ipsec_cert_days"]
    certs_yml = (ROLE / "tasks" / "certs.yml").read_text()
    assert "Make a new host key for the renewed certificate" in certs_yml
    assert "x509crl/gpufabric.crl.pem" in certs_yml


def test_guard_exemptions_are_checked_and_never_a_member() -> None:
    from gpufabric.ipsec.members import guard_exempt

    net, peers = "10.9.0.0/24", ["10.9.0.12"]
    assert guard_exempt(["10.9.0.2"], ["10.9.0.1", "8.8.8.8", "10.9.0.12", ROGUE], net, peers) == [
        "10.9.0.1",
        "10.9.0.2",
    ]
    with pytest.raises(UserError, match=r"ipsec_guard_exempt: 10\.9\.0\.12 is a mesh member"):
        guard_exempt(["10.9.0.12"], [], net, peers)
    with pytest.raises(UserError, match=r"ipsec_guard_exempt: .* is not an IPv4 address"):
        guard_exempt([ROGUE], [], net, peers)


def test_guard_ipv6_destinations_come_from_checked_facts() -> None:
    """The fabric interface's own prefixes whole, the peers' global addresses one each;
    link-local and multicast are left to the interface rule; a fact that does not parse (a
    rogue host's string) is refused, never written into the guard."""
    from gpufabric.ipsec.members import guard_ipv6_networks

    own = [
        {"address": "fd00:9::11", "prefix": "64", "scope": "global"},
        {"address": "fe80::1", "prefix": "64", "scope": "link"},
    ]
    peers = [
        {"address": "2001:db8:5::12", "prefix": "64", "scope": "global"},
        {"address": "fe80::2", "prefix": "64", "scope": "link"},
    ]
    assert guard_ipv6_networks(own, peers) == ["2001:db8:5::12/128", "fd00:9::/64"]
    assert guard_ipv6_networks([], []) == []
    with pytest.raises(UserError, match=r"is not an IPv6 address/prefix"):
        guard_ipv6_networks([], [{"address": ROGUE, "prefix": "64"}])
    with pytest.raises(UserError, match=r"is not a mapping"):
        guard_ipv6_networks(["fd00::1/64"], [])


def test_a_host_certificate_never_outlives_its_ca(tmp_path: Path) -> None:
    """A host certificate valid after its CA expired would be refused by every peer then; it
    ends with the CA."""
    certs.ensure_ca(tmp_path, "t", 3, passphrase=PW)
    ca = x509.load_pem_x509_certificate(certs.ca_cert_pem(tmp_path).encode())
    pem = certs.sign_public_key(tmp_path, _pubkey(), "h1", ["10.0.0.1"], 30, passphrase=PW)
    host = x509.load_pem_x509_certificate(pem.encode())
    assert host.not_valid_after_utc == ca.not_valid_after_utc
    short = certs.sign_public_key(tmp_path, _pubkey(), "h2", ["10.0.0.2"], 1, passphrase=PW)
    assert x509.load_pem_x509_certificate(short.encode()).not_valid_after_utc < (
        ca.not_valid_after_utc
    )


def test_the_crl_is_rewritten_once_half_its_life_is_gone_not_after_it_expired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Peers refuse every certificate once the CRL is past its next update: it is renewed
    while still valid, from half its lifetime on."""
    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW)
    certs.sign_public_key(tmp_path, _pubkey(), "h1", ["10.0.0.1"], 7, passphrase=PW)
    start = dt.datetime.now(dt.UTC)

    def at(days: float) -> None:
        class Later(dt.datetime):
            @classmethod
            def now(cls, tz: dt.tzinfo | None = None) -> Later:  # type: ignore[override]
                return start + dt.timedelta(days=days)  # type: ignore[return-value]

        monkeypatch.setattr(crl, "dt", type("Dt", (), {"datetime": Later,
                            "timedelta": dt.timedelta, "UTC": dt.UTC}))  # fmt: skip

    at(0)
    assert crl.update_crl(tmp_path, ["h1"], passphrase=PW, days=8)["changed"] is True
    at(3.9)  # under half of 8 days: still fresh
    assert crl.update_crl(tmp_path, ["h1"], passphrase=PW, days=8)["changed"] is False
    at(4.1)  # past half, 3.9 days before it expires: rewritten now
    assert crl.update_crl(tmp_path, ["h1"], passphrase=PW, days=8)["changed"] is True
    listed = crl.current(tmp_path)
    assert listed is not None and listed.next_update_utc is not None
    assert listed.next_update_utc > start + dt.timedelta(days=12)
