"""IPsec library: proposal policy, data-path decisions, cluster CA and host certificates."""

from __future__ import annotations

import io
import json
import re
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gpufabric.errors import UserError
from gpufabric.ipsec import ca as ca_cli
from gpufabric.ipsec import certs
from gpufabric.ipsec.offload import esp_feature, nic_model, plan_datapath, version
from gpufabric.ipsec.proposals import check_proposal, proposal_problems

pytestmark = pytest.mark.usefixtures("ipsec_fast_kdf")


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("aes256gcm16-prfsha384-ecp384", "ike"),
        ("aes256gcm16-ecp384", "esp"),
        ("aes128gcm16-prfsha256-curve25519,aes256gcm16-prfsha384-ecp384", "ike"),
        ("chacha20poly1305-x25519-esn", "esp"),
    ],
)
def test_strong_proposals_pass(value: str, kind: str) -> None:
    assert proposal_problems(value, kind) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "kind", "why"),
    [
        ("aes128-sha1-modp1024", "ike", "not allowed: aes128, sha1, modp1024"),
        ("3des-md5-modp1024", "ike", "3des"),
        ("aes256gcm16", "esp", "needs a key exchange for PFS"),
        ("aes256gcm16-ecp384", "ike", "needs a SHA-2 PRF"),
        ("aes256gcm8-prfsha256-ecp256", "ike", "aes256gcm8"),
        ("null-ecp384", "esp", "needs an AEAD cipher"),
        ("default", "ike", "not allowed: default"),
        ("aes256gcm16-ecp384,aes128-sha1", "esp", "aes128-sha1"),
    ],
)
def test_weak_proposals_are_refused(value: str, kind: str, why: str) -> None:
    problems = proposal_problems(value, kind)  # type: ignore[arg-type]
    assert any(why in p for p in problems), problems
    with pytest.raises(UserError, match=r"^ipsec_x: .* is not valid;"):
        check_proposal(value, kind, "ipsec_x")  # type: ignore[arg-type]


def test_versions_and_models() -> None:
    assert version("strongSwan swanctl 5.9.8") == (5, 9, 8)
    assert version("6.1.0-18-amd64") == (6, 1, 0)
    assert nic_model("0x15b3\n", "0x101d\n") == "ConnectX-6 Dx"
    assert nic_model("0x15b3", "0x1017") == "ConnectX-5"
    assert nic_model("0x1af4", "0x1041") is None
    assert esp_feature("esp-hw-offload: off [fixed]\nesp-tx-csum-hw-offload: off [fixed]") is False
    assert esp_feature("esp-hw-offload: on\n") is True
    assert esp_feature("rx-checksumming: on\n") is None


def _plan(**kw: object):
    args: dict[str, object] = {
        "datapath": "kernel", "offload": "auto", "per_cpu": "auto", "model": "ConnectX-7",
        "esp_hw_offload": True, "strongswan": "5.9.8", "kernel": "6.1.0-18-amd64",
    }  # fmt: skip
    args.update(kw)
    return plan_datapath(**args)  # type: ignore[arg-type]


def test_offload_follows_the_nic() -> None:
    assert _plan().hw_offload == "yes"  # 5.9.8 has no 'crypto' keyword
    assert _plan(strongswan="6.0.1").hw_offload == "crypto"
    assert _plan(model="ConnectX-6 Dx", strongswan="6.0.1").hw_offload == "crypto"
    plan = _plan(model="ConnectX-6")
    assert plan.hw_offload == "no" and "ConnectX-6 has no IPsec crypto offload" in plan.notes[0]
    assert _plan(esp_hw_offload=False).hw_offload == "no"  # non-crypto OPN
    assert _plan(esp_hw_offload=None).hw_offload == "auto"
    assert _plan(offload="no").hw_offload == "no"
    assert _plan(datapath="libipsec").hw_offload == "no"
    assert _plan(offload="packet", strongswan="6.0.2", kernel="6.8.0").hw_offload == "packet"
    with pytest.raises(UserError, match=re.escape("needs strongSwan >= 5.9.10 and Linux >= 6.6")):
        _plan(offload="packet", strongswan="5.9.8")
    with pytest.raises(UserError, match="'crypto' is not valid; ConnectX-5"):
        _plan(offload="crypto", model="ConnectX-5")


def test_per_cpu_sas_need_new_strongswan_kernel_and_kernel_datapath() -> None:
    assert _plan(strongswan="6.0.2", kernel="6.13.0").per_cpu_sas is True
    assert _plan(strongswan="6.0.1", kernel="6.13.0").per_cpu_sas is False
    assert _plan(strongswan="6.0.2", kernel="6.12.9").per_cpu_sas is False
    plan = _plan(datapath="libipsec", strongswan="6.0.2", kernel="6.18.0")
    assert plan.per_cpu_sas is False and any("per-CPU SAs off" in n for n in plan.notes)
    assert _plan(per_cpu="no", strongswan="6.0.2", kernel="6.13.0").per_cpu_sas is False
    with pytest.raises(UserError, match="ipsec_per_cpu_sas"):
        _plan(per_cpu="yes")


PW = b"a test passphrase, long enough"


def _pubkey() -> str:
    key = ec.generate_private_key(ec.SECP384R1())
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()


def test_ca_once_and_host_certs(tmp_path: Path) -> None:
    ca_dir = tmp_path / "ca"
    assert certs.ensure_ca(ca_dir, "gpufabric test CA", 3650, passphrase=PW, dry_run=True) is True
    assert not ca_dir.exists()  # check mode writes nothing
    assert certs.ensure_ca(ca_dir, "gpufabric test CA", 3650, passphrase=PW) is True
    assert (
        certs.ensure_ca(ca_dir, "gpufabric test CA", 3650, passphrase=PW) is False
    )  # created once
    assert stat.S_IMODE((ca_dir / certs.CA_KEY).stat().st_mode) == 0o600
    assert stat.S_IMODE(ca_dir.stat().st_mode) == 0o700
    ca_pem = certs.ca_cert_pem(ca_dir)

    pub = _pubkey()
    cert_pem = certs.sign_public_key(ca_dir, pub, "h1", ["10.77.0.11"], 365, passphrase=PW)
    cert = x509.load_pem_x509_certificate(cert_pem.encode())
    assert cert.subject.rfc4514_string() == "CN=h1"
    cert.verify_directly_issued_by(x509.load_pem_x509_certificate(ca_pem.encode()))
    assert certs.reissue_reason(cert_pem, ca_pem, pub, "h1", ["10.77.0.11"], 30) is None
    assert certs.reissue_reason("", ca_pem, pub, "h1", ["10.77.0.11"], 30) == "no certificate yet"
    assert certs.reissue_reason(cert_pem, ca_pem, pub, "h2", ["10.77.0.11"], 30) == (
        "subject changed"
    )
    assert certs.reissue_reason(cert_pem, ca_pem, pub, "h1", ["10.77.0.12"], 30) == (
        "addresses changed"
    )
    assert certs.reissue_reason(cert_pem, ca_pem, pub, "h1", ["10.77.0.11"], 400) == (
        "expires within 400 days"
    )
    assert certs.reissue_reason(cert_pem, ca_pem, _pubkey(), "h1", ["10.77.0.11"], 30) == (
        "does not match the host key"
    )
    other_dir = tmp_path / "other"
    certs.ensure_ca(other_dir, "gpufabric test CA", 3650, passphrase=PW)  # same name, other key
    reason = certs.reissue_reason(
        cert_pem, certs.ca_cert_pem(other_dir), pub, "h1", ["10.77.0.11"], 30
    )
    assert reason == "not signed by the current CA"


def test_ca_cli_never_prints_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUFABRIC_IPSEC_CA_PASSPHRASE", PW.decode())
    ca_dir = tmp_path / "ca"
    assert ca_cli.main(["ensure", "--dir", str(ca_dir), "--cn", "t", "--days", "30"]) == 0
    assert json.loads(capsys.readouterr().out) == {"created": True}
    key_body = (ca_dir / certs.CA_KEY).read_text().splitlines()[1]
    sys_stdin = io.StringIO(_pubkey())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdin", sys_stdin)
        argv = ["sign", "--dir", str(ca_dir), "--identity", "h1", "--address", "10.0.0.1"]
        assert ca_cli.main([*argv, "--days", "30"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("-----BEGIN CERTIFICATE-----") and key_body not in out
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdin", io.StringIO("not a key"))
        assert ca_cli.main([*argv, "--days", "30"]) == 2
    assert "is not PEM" in capsys.readouterr().err


def test_half_a_ca_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / certs.CA_CERT).write_text("x")
    with pytest.raises(UserError, match="holds only one of"):
        certs.ensure_ca(tmp_path, "x", 10, passphrase=PW)


def test_ca_cli_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """The CA's CLI runs the project's way: a bad or missing option is one line, exit 2."""
    assert ca_cli.main(["ensure", "--dir", "/tmp/x", "--cn", "t", "--days", "many"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "--days" in err, err
    assert ca_cli.main(["crl", "--days", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dir" in err, err
