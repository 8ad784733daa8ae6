"""The IPsec CA store on OCI (python -m gpufabric.clouds.oci.secret, called by the ipsec-ca
action): the OCI SDK's own models from fake clients; values round-trip through base64; errors
are one line; an id that is not a secret OCID is refused before any call."""

from __future__ import annotations

import base64
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from tests.unit.test_workflows import REPO

from gpufabric.errors import UserError

oci = pytest.importorskip("oci")
from gpufabric.clouds.oci.secret import fetch, store  # noqa: E402

SECRET = "ocid1.vaultsecret.oc1.iad.amaaaaaaexample"


class FakeSecrets:
    def __init__(self, content: str) -> None:
        self.content, self.calls = content, []

    def get_secret_bundle(self, secret_id: str, **kw: Any) -> Any:
        self.calls.append((secret_id, kw))
        details = oci.secrets.models.Base64SecretBundleContentDetails(
            content_type="BASE64", content=self.content
        )
        return SimpleNamespace(data=oci.secrets.models.SecretBundle(secret_bundle_content=details))


class FakeVaults:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def update_secret(self, secret_id: str, details: Any) -> Any:
        self.calls.append((secret_id, details))
        return SimpleNamespace(data=None)


def test_store_then_fetch_round_trips_the_ca_value() -> None:
    vaults = FakeVaults()
    store(SECRET, "H4sIAAAAbase64tar==", FakeSecrets(""), vaults)
    ((secret_id, details),) = vaults.calls
    assert secret_id == SECRET
    assert isinstance(details, oci.vault.models.UpdateSecretDetails)
    content = details.secret_content
    assert (content.content_type, content.stage) == ("BASE64", "CURRENT")
    secrets = FakeSecrets(content.content)
    assert fetch(SECRET, secrets, vaults) == "H4sIAAAAbase64tar=="
    assert secrets.calls == [(SECRET, {"stage": "CURRENT"})]


def test_the_new_marker_comes_back_as_new() -> None:
    content = base64.b64encode(b"new").decode()
    assert fetch(SECRET, FakeSecrets(content), FakeVaults()) == "new"


def test_service_errors_are_one_line() -> None:
    class Refusing(FakeSecrets):
        def get_secret_bundle(self, secret_id: str, **kw: Any) -> Any:
            raise oci.exceptions.ServiceError(404, "NotAuthorizedOrNotFound", {}, "no\nmore")

    with pytest.raises(UserError) as err:
        fetch(SECRET, Refusing(""), FakeVaults())
    assert str(err.value) == f"oci GetSecretBundle {SECRET}: 404 no"


def test_a_store_that_is_not_a_secret_ocid_is_refused_before_any_call() -> None:
    vaults = FakeVaults()
    with pytest.raises(UserError, match="GPUFABRIC_IPSEC_CA_STORE"):
        store("vault/name; rm -rf /", "x", FakeSecrets(""), vaults)
    assert vaults.calls == []


def test_content_that_is_not_base64_is_refused() -> None:
    with pytest.raises(UserError, match="not base64"):
        fetch(SECRET, FakeSecrets("***"), FakeVaults())


def test_the_ipsec_ca_action_uses_it_for_oci() -> None:
    action = yaml.safe_load((REPO / ".github/actions/ipsec-ca/action.yml").read_text())
    run = action["runs"]["steps"][0]["run"]
    assert (
        'oci/fetch) value=$(.venv/bin/python -m gpufabric.clouds.oci.secret fetch "$STORE")' in run
    )
    assert (
        """oci/store) printf '%s' "$value" | .venv/bin/python -m gpufabric.clouds.oci.secret """
        'store "$STORE"' in run
    )


def test_the_command_refuses_a_bad_store_in_one_line() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "gpufabric.clouds.oci.secret", "fetch", "not-an-ocid"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE)")
    assert len(result.stderr.splitlines()) == 1


FINGERPRINT = ":".join(["ab"] * 16)


def _sdk_config(tmp_path: Path, profile: str, fingerprint: str = FINGERPRINT) -> Path:
    """An OCI SDK config file for `profile`, with a real RSA API key (no call is made)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = tmp_path / "api.pem"
    pem.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    config = tmp_path / "oci-config"
    config.write_text(
        f"[{profile}]\nuser=ocid1.user.oc1..aaaa\nfingerprint={fingerprint}\n"
        f"tenancy=ocid1.tenancy.oc1..aaaa\nregion=eu-frankfurt-1\nkey_file={pem}\n"
    )
    return config


def _use_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, config: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.oci/config: the SDK falls back to the env
    monkeypatch.setenv("OCI_CONFIG_FILE", str(config))


@pytest.mark.parametrize("profile", [None, "CA"])
def test_clients_are_built_from_the_sdk_config_and_its_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str | None
) -> None:
    from gpufabric.clouds.oci.secret import _clients

    _use_config(monkeypatch, tmp_path, _sdk_config(tmp_path, profile or "DEFAULT"))
    if profile:
        monkeypatch.setenv("OCI_CLI_PROFILE", profile)
    else:
        monkeypatch.delenv("OCI_CLI_PROFILE", raising=False)
    secrets, vaults = _clients(None, None)
    assert isinstance(secrets, oci.secrets.SecretsClient)
    assert isinstance(vaults, oci.vault.VaultsClient)
    assert "eu-frankfurt-1" in secrets.base_client.endpoint
    assert "eu-frankfurt-1" in vaults.base_client.endpoint
    # a client given is kept; only the missing one is built
    given = FakeSecrets("")
    kept, built = _clients(given, None)
    assert kept is given and isinstance(built, oci.vault.VaultsClient)
    assert _clients(given, FakeVaults())[0] is given


def test_a_missing_sdk_config_or_profile_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nowhere"
    _use_config(monkeypatch, tmp_path, missing)
    monkeypatch.delenv("OCI_CLI_PROFILE", raising=False)
    with pytest.raises(UserError) as err:
        fetch(SECRET)
    assert str(err.value).startswith(
        f"the IPsec CA store on OCI: ConfigFileNotFound: Could not find config file at {missing}, "
    )
    assert "\n" not in str(err.value)
    _use_config(monkeypatch, tmp_path, _sdk_config(tmp_path, "DEFAULT"))
    monkeypatch.setenv("OCI_CLI_PROFILE", "CA")
    with pytest.raises(UserError) as err:
        store(SECRET, "value")
    assert str(err.value).startswith(
        "the IPsec CA store on OCI: ProfileNotFound: Profile 'CA' not found in config file "
    )
    assert "\n" not in str(err.value)
    # a value the SDK refuses when it builds the client: one line, not a traceback
    monkeypatch.delenv("OCI_CLI_PROFILE")
    _use_config(monkeypatch, tmp_path, _sdk_config(tmp_path, "DEFAULT", fingerprint="aa:bb"))
    with pytest.raises(UserError) as err:
        fetch(SECRET)
    assert str(err.value) == (
        "the IPsec CA store on OCI: InvalidConfig: {'fingerprint': 'malformed'}"
    )


@pytest.mark.parametrize(
    ("exc", "detail"),
    [
        (oci.exceptions.ServiceError(409, "Conflict", {}, "secret is updating\nretry"), "409 secret is updating"),
        (ConnectionError("connection refused\nafter 3 tries"), "connection refused"),
        (TimeoutError(), "TimeoutError"),
    ],
)  # fmt: skip
def test_store_errors_are_one_line_naming_the_call_and_the_secret(
    exc: Exception, detail: str
) -> None:
    class Refusing(FakeVaults):
        def update_secret(self, secret_id: str, details: Any) -> Any:
            raise exc

    with pytest.raises(UserError) as err:
        store(SECRET, "value", FakeSecrets(""), Refusing())
    assert str(err.value) == f"oci UpdateSecret {SECRET}: {detail}"


def test_a_value_over_ocis_25_kb_is_refused_before_any_call() -> None:
    vaults = FakeVaults()
    at_limit = "x" * (25 * 1024 // 4 * 3)  # base64: exactly 25 KB
    store(SECRET, at_limit, FakeSecrets(""), vaults)
    assert len(vaults.calls[0][1].secret_content.content) == 25 * 1024
    with pytest.raises(UserError) as err:
        store(SECRET, at_limit + "x", FakeSecrets(""), vaults)
    assert str(err.value) == f"oci secret {SECRET}: 25604 bytes, over OCI's 25 KB"
    assert len(vaults.calls) == 1


@pytest.mark.parametrize("call", ["fetch", "store"])
def test_a_store_id_that_is_not_a_secret_ocid_names_the_setting(call: str) -> None:
    with pytest.raises(UserError) as err:
        if call == "fetch":
            fetch("ocid1.vault.oc1.iad.x", FakeSecrets(""), FakeVaults())
        else:
            store("ocid1.vault.oc1.iad.x", "v", FakeSecrets(""), FakeVaults())
    assert str(err.value) == (
        "the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE): 'ocid1.vault.oc1.iad.x' must be an OCI "
        "Vault secret OCID like ocid1.vaultsecret.oc1.iad.amaaaa"
    )
