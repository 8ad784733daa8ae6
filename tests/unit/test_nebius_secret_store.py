"""The IPsec CA store on Nebius (python -m gpufabric.clouds.nebius.secret, called by the
ipsec-ca action): the SDK's own MysteryBox messages from fake services; the value under key
`ca`, a new primary version on store; errors are one line; an id that is not a MysteryBox
secret id is refused before any call."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from tests.unit.test_workflows import REPO

from gpufabric.errors import UserError

pytest.importorskip("nebius")
from nebius.api.nebius.mysterybox.v1 import Payload, SecretPayloadEntry

from gpufabric.clouds.nebius.secret import fetch, store

SECRET = "mbsec-e00example"


class FakePayloads:
    def __init__(self, value: str) -> None:
        self.value, self.requests = value, []

    def get_by_key(self, request: Any) -> Any:
        self.requests.append(request)
        entry = SecretPayloadEntry(data=Payload(key="ca", string_value=self.value))
        return SimpleNamespace(wait=lambda: entry)


class FakeOperation:
    def __init__(self, ok: bool) -> None:
        self.ok, self.waited = ok, False

    def sync_wait(self) -> None:
        self.waited = True

    def successful(self) -> bool:
        return self.ok


class FakeVersions:
    def __init__(self, ok: bool = True) -> None:
        self.requests: list[Any] = []
        self.operation = FakeOperation(ok)

    def create(self, request: Any) -> Any:
        self.requests.append(request)
        return SimpleNamespace(wait=lambda: self.operation)


def test_fetch_reads_the_ca_key_of_the_secret() -> None:
    payloads = FakePayloads("H4sIAAAAbase64tar==")
    assert fetch(SECRET, payloads) == "H4sIAAAAbase64tar=="
    ((request,),) = [payloads.requests]
    assert (request.secret_id, request.key) == (SECRET, "ca")


def test_store_makes_a_new_primary_version_and_waits_for_it() -> None:
    versions = FakeVersions()
    store(SECRET, "H4sIAAAAbase64tar==", versions)
    ((request,),) = [versions.requests]
    assert request.metadata.parent_id == SECRET
    assert request.spec.set_primary is True
    assert [(p.key, p.string_value) for p in request.spec.payload] == [
        ("ca", "H4sIAAAAbase64tar==")
    ]
    assert versions.operation.waited


def test_a_failed_operation_is_one_line() -> None:
    with pytest.raises(UserError, match="the operation failed"):
        store(SECRET, "x", FakeVersions(ok=False))


def test_an_empty_payload_is_refused() -> None:
    with pytest.raises(UserError, match="no text under key 'ca'"):
        fetch(SECRET, FakePayloads(""))


def test_request_errors_are_one_line() -> None:
    class Refusing(FakePayloads):
        def get_by_key(self, request: Any) -> Any:
            def fail() -> Any:
                raise RuntimeError("PERMISSION_DENIED: no\nmore")

            return SimpleNamespace(wait=fail)

    with pytest.raises(UserError) as err:
        fetch(SECRET, Refusing(""))
    assert str(err.value) == f"nebius PayloadService.GetByKey {SECRET}: PERMISSION_DENIED: no"


def test_a_store_that_is_not_a_secret_id_is_refused_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gpufabric.clouds.nebius.secret", "store", "vault/x"],
        input="value", capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE)")
    assert len(result.stderr.splitlines()) == 1


def test_the_ipsec_ca_action_uses_it_for_nebius() -> None:
    action = yaml.safe_load((REPO / ".github/actions/ipsec-ca/action.yml").read_text())
    run = action["runs"]["steps"][0]["run"]
    module = ".venv/bin/python -m gpufabric.clouds.nebius.secret"
    assert f'nebius/fetch) value=$({module} fetch "$STORE")' in run
    assert f"""nebius/store) printf '%s' "$value" | {module} store "$STORE\"""" in run


@pytest.mark.parametrize(
    ("exc", "detail"),
    [(RuntimeError("RESOURCE_EXHAUSTED: quota\nmore"), "RESOURCE_EXHAUSTED: quota"),
     (TimeoutError(), "TimeoutError")],
)  # fmt: skip
def test_store_request_errors_are_one_line_naming_the_call(exc: Exception, detail: str) -> None:
    class Refusing(FakeVersions):
        def create(self, request: Any) -> Any:
            raise exc

    with pytest.raises(UserError) as err:
        store(SECRET, "x", Refusing())
    assert str(err.value) == f"nebius SecretVersionService.Create {SECRET}: {detail}"


@pytest.mark.parametrize("call", ["fetch", "store"])
def test_a_store_id_that_is_not_a_secret_id_names_the_setting(call: str) -> None:
    with pytest.raises(UserError) as err:
        if call == "fetch":
            fetch("computeinstance-e00x", FakePayloads("v"))
        else:
            store("computeinstance-e00x", "v", FakeVersions())
    assert str(err.value).startswith(
        "the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE): 'computeinstance-e00x' "
    )


@pytest.mark.parametrize("call", ["fetch", "store"])
def test_without_credentials_or_a_cli_config_it_is_one_line(
    call: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No NEBIUS_IAM_TOKEN and no ~/.nebius/config.yaml: the SDK's FileNotFoundError was a
    traceback; it is one line naming what needed the SDK."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("NEBIUS_IAM_TOKEN", raising=False)
    with pytest.raises(UserError) as err:
        fetch(SECRET) if call == "fetch" else store(SECRET, "v")
    assert str(err.value) == (
        "the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE): the Nebius CLI config: Config file "
        f"{tmp_path}/.nebius/config.yaml not found."
    )
    (tmp_path / ".nebius").mkdir()
    (tmp_path / ".nebius" / "config.yaml").write_text("profiles: {}\n")
    with pytest.raises(UserError) as err:
        fetch(SECRET) if call == "fetch" else store(SECRET, "v")
    assert str(err.value).startswith(
        "the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE): the Nebius CLI config: No profiles"
    )
