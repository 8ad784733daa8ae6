"""`python -m gpufabric.ipsec.ca` as the ipsec role runs it (in-process): the JSON it prints,
check mode, the --days edges, repeated options, exact one-line errors, and --help naming every
option."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gpufabric.ipsec import ca as ca_cli
from gpufabric.ipsec import certs, crl

pytestmark = pytest.mark.usefixtures("ipsec_fast_kdf")

PW = "a passphrase for the cli tests"


@pytest.fixture(autouse=True)
def _passphrase(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ca_cli.PASSPHRASE_ENV, PW)


def _pubkey() -> str:
    key = ec.generate_private_key(ec.SECP384R1())
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], stdin: str = ""
) -> tuple[int, str, str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdin", io.StringIO(stdin))
        code = ca_cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_passphrase_comes_from_its_environment_variable() -> None:
    assert ca_cli.PASSPHRASE_ENV == "GPUFABRIC_IPSEC_CA_PASSPHRASE"


def test_ensure_in_check_mode_then_for_real_then_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ca = tmp_path / "ca"
    argv = ["ensure", "--dir", str(ca), "--cn", "cluster CA", "--days", "36500"]
    assert _run([*argv, "--dry-run"], capsys) == (0, '{"created": true}\n', "")
    assert not ca.exists()
    assert _run(argv, capsys) == (0, '{"created": true}\n', "")
    cert = x509.load_pem_x509_certificate(certs.ca_cert_pem(ca).encode())
    assert cert.subject.rfc4514_string() == "CN=cluster CA"
    assert _run(argv, capsys) == (0, '{"created": false}\n', "")


@pytest.mark.parametrize("days", ["0", "36501", "-1"])
@pytest.mark.parametrize("command", ["ensure", "sign", "crl"])
def test_days_outside_1_to_36500_are_one_line(
    command: str, days: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = {"ensure": ["--cn", "t"], "sign": ["--identity", "h1", "--address", "10.0.0.1"],
             "crl": []}[command]  # fmt: skip
    code, out, err = _run([command, "--dir", str(tmp_path), *extra, "--days", days], capsys)
    assert (code, out) == (2, "")
    assert err == f"error: --days: {days} is not a number of days between 1 and 36500\n"


def test_sign_prints_a_certificate_for_every_address_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW.encode())
    argv = ["sign", "--dir", str(tmp_path), "--identity", "gpu-node-1.cluster",
            "--address", "10.0.0.1", "--address", "10.1.0.1", "--days", "1"]  # fmt: skip
    code, out, err = _run(argv, capsys, stdin=_pubkey())
    assert (code, err) == (0, "")
    cert = x509.load_pem_x509_certificate(out.encode())
    assert cert.subject.rfc4514_string() == "CN=gpu-node-1.cluster"
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert [str(a) for a in san.get_values_for_type(x509.IPAddress)] == ["10.0.0.1", "10.1.0.1"]
    assert out.endswith("-----END CERTIFICATE-----\n")


@pytest.mark.parametrize(
    ("identity", "address", "line"),
    [
        ("h1;x", "10.0.0.1", "error: --identity: 'h1;x' is not a plain host name"),
        ("-h1", "10.0.0.1", "error: --identity: '-h1' is not a plain host name"),
        ("h1", "10.0.0.1/8", "error: ipsec: h1's address: '10.0.0.1/8' is not an IPv4 address"),
        ("h1", "127.0.0.1", "error: ipsec: h1's address: 127.0.0.1 cannot be a cluster address"),
    ],
)
def test_sign_refuses_a_bad_identity_or_address_in_one_line(
    identity: str, address: str, line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW.encode())
    argv = ["sign", "--dir", str(tmp_path), "--identity", identity, "--address", address,
            "--days", "1"]  # fmt: skip
    assert _run(argv, capsys, stdin=_pubkey()) == (2, "", line + "\n")
    assert certs.issued(tmp_path) == []


def test_sign_refuses_an_oversized_public_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW.encode())
    argv = ["sign", "--dir", str(tmp_path), "--identity", "h1", "--address", "10.0.0.1",
            "--days", "1"]  # fmt: skip
    code, out, err = _run(argv, capsys, stdin="x" * (64 * 1024 + 1))
    assert (code, out) == (2, "")
    assert err.startswith("error: - (standard input): ") and err.count("\n") == 1, err
    assert "too large for the host's public key (PEM)" in err


def test_crl_prints_what_it_revoked_and_check_mode_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    certs.ensure_ca(tmp_path, "t", 30, passphrase=PW.encode())
    for name in ["h1", "h2", "h3"]:
        certs.sign_public_key(tmp_path, _pubkey(), name, ["10.0.0.1"], 3, passphrase=PW.encode())
    argv = ["crl", "--dir", str(tmp_path), "--days", "7", "--member", "h1", "--member", "h2",
            "--revoke", "h2"]  # fmt: skip
    want = {"changed": True, "revoked": ["h2: revoked by name", "h3: no longer a member"]}
    code, out, err = _run([*argv, "--dry-run"], capsys)
    assert (code, json.loads(out), err) == (0, want, "")
    assert not (tmp_path / crl.CRL).exists()
    code, out, err = _run(argv, capsys)
    assert (code, json.loads(out), err) == (0, want, "")
    assert (tmp_path / crl.CRL).exists()
    code, out, _ = _run(["crl", "--dir", str(tmp_path), "--days", "7"], capsys)
    assert json.loads(out)["revoked"] == [
        "h1: no longer a member", "h2: no longer a member", "h3: no longer a member"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("command", "helps"),
    [
        ("ensure", ["The CA's folder", "The CA's common name", "Validity in days, 1-36500",
                    "Say what would change; change nothing"]),
        ("sign", ["The CA's folder", "The host's name", "The host's address (repeat)",
                  "Validity in days, 1-36500"]),
        ("crl", ["The CA's folder", "Validity in days, 1-36500", "A member (repeat)",
                 "Revoke (repeat)", "Say what would change; change nothing"]),
    ],
)  # fmt: skip
def test_each_command_says_what_its_options_are(
    command: str, helps: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run([command, "--help"], capsys)
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", out).split())
    assert code == 0
    for help_text in helps:
        assert help_text in text, help_text


def test_without_the_passphrase_the_cli_says_where_to_set_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ca_cli.PASSPHRASE_ENV)
    argv = ["ensure", "--dir", str(tmp_path / "ca"), "--cn", "t", "--days", "3"]
    assert _run(argv, capsys) == (
        2,
        "",
        "error: GPUFABRIC_IPSEC_CA_PASSPHRASE is not set: the cluster CA key is kept encrypted "
        "with it; export it in the controller's environment (never as an Ansible variable)\n",
    )
    assert not (tmp_path / "ca").exists()


def test_usage_names_the_command_as_the_role_runs_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["sign", "--help"], capsys)
    assert code == 0 and "Usage: python -m gpufabric.ipsec.ca sign [OPTIONS]" in out


def test_a_passphrase_that_is_not_utf8_is_used_as_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = b"\xff\xfe latin-1 bytes: caf\xe9 au lait"
    monkeypatch.setenv(ca_cli.PASSPHRASE_ENV, os.fsdecode(raw))
    argv = ["ensure", "--dir", str(tmp_path / "ca"), "--cn", "t", "--days", "3"]
    assert _run(argv, capsys) == (0, '{"created": true}\n', "")
    certs.load_ca(tmp_path / "ca", raw)  # opens with exactly those bytes


def test_the_troubleshooting_page_quotes_these_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "troubleshooting.md").read_text()
    ca = tmp_path / "ipsec-ca"
    certs.ensure_ca(ca, "t", 3, passphrase=PW.encode())
    (ca / crl.CRL).write_text("garbage\n")
    seen = [_run(["crl", "--dir", str(ca), "--days", "7"], capsys)[2]]
    (ca / crl.CRL).unlink()
    (ca / certs.CA_KEY).write_text("garbage\n")
    seen.append(_run(["crl", "--dir", str(ca), "--days", "7", "--member", "x"], capsys)[2])
    seen.append(_run(["ensure", "--dir", str(ca), "--cn", "t", "--days", "0"], capsys)[2])
    monkeypatch.delenv(ca_cli.PASSPHRASE_ENV)
    seen.append(
        _run(["ensure", "--dir", str(tmp_path / "new"), "--cn", "t", "--days", "3"], capsys)[2]
    )
    assert len(set(seen)) == 4
    for line in seen:
        shown = line.strip().replace(str(ca), "~/.local/share/gpufabric/ipsec-ca")
        assert f"`{shown}`" in doc, shown
