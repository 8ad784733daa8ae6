"""The IPsec CA's store on OCI: one OCI Vault secret, read and given new versions through the
OCI SDK of the job's hash-locked venv (no OCI CLI on the runner).

    python -m gpufabric.clouds.oci.secret fetch SECRET_OCID    # prints the current value
    python -m gpufabric.clouds.oci.secret store SECRET_OCID    # the new value on stdin

[P] oracle/oci-python-sdk: SecretsClient.get_secret_bundle (stage CURRENT; content
Base64SecretBundleContentDetails), VaultsClient.update_secret with
UpdateSecretDetails(secret_content=Base64SecretContentDetails) (a new version, made current).
Credentials: the OCI SDK's config (~/.oci/config or $OCI_CONFIG_FILE: the pipeline's
cloud-login writes it). The value never reaches an argument; errors are one line, exit 2.
"""

from __future__ import annotations

import base64
import binascii
import os
import sys
from typing import Annotated, Any

import typer

from gpufabric.errors import UserError
from gpufabric.extras import require
from gpufabric.inputs import types
from gpufabric.inputs.files import MiB, read_text

SecretId = types.matching(
    r"ocid1\.vaultsecret\.[a-z0-9-]+\.[a-z0-9-]*\.[a-z0-9]+",
    "an OCI Vault secret OCID like ocid1.vaultsecret.oc1.iad.amaaaa",
)
MAX_BYTES = 25 * 1024  # OCI Vault: a secret's content is at most 25 KB (base64)

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def _clients(secrets: Any, vaults: Any) -> tuple[Any, Any]:
    if secrets is None or vaults is None:
        import oci

        what = "the IPsec CA store on OCI"
        require("oci", what)
        try:
            config = oci.config.from_file(profile_name=os.environ.get("OCI_CLI_PROFILE", "DEFAULT"))
            secrets = secrets or oci.secrets.SecretsClient(config)
            vaults = vaults or oci.vault.VaultsClient(config)
        except (
            oci.exceptions.ConfigFileNotFound,
            oci.exceptions.ProfileNotFound,
            oci.exceptions.InvalidConfig,  # a value the SDK refuses, e.g. a malformed fingerprint
            oci.exceptions.InvalidPrivateKey,
            ValueError,  # a key the SDK refuses in a config file
            OSError,  # the key file it names cannot be read
        ) as exc:
            raise UserError(f"{what}: {type(exc).__name__}: {str(exc).splitlines()[0]}") from None
    return secrets, vaults


def _service_error(what: str, secret_id: str, exc: Exception) -> UserError:
    status = getattr(exc, "status", None)  # an oci.exceptions.ServiceError's HTTP status
    message = (str(getattr(exc, "message", None) or exc).splitlines() or [""])[0]
    detail = " ".join(str(part) for part in (status, message) if part)
    return UserError(f"oci {what} {secret_id}: {detail or type(exc).__name__}")


def fetch(secret_id: str, secrets: Any = None, vaults: Any = None) -> str:
    types.check(SecretId, secret_id, "the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE)")
    secrets, _ = _clients(secrets, vaults)
    try:
        bundle = secrets.get_secret_bundle(secret_id, stage="CURRENT").data
    except Exception as exc:  # oci.exceptions.ServiceError, or a transport error
        raise _service_error("GetSecretBundle", secret_id, exc) from None
    content = getattr(bundle.secret_bundle_content, "content", None)
    try:
        return base64.b64decode(str(content or ""), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise UserError(f"oci secret {secret_id}: its content is not base64 text") from None


def store(secret_id: str, value: str, secrets: Any = None, vaults: Any = None) -> None:
    types.check(SecretId, secret_id, "the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE)")
    import oci

    content = base64.b64encode(value.encode()).decode()
    if len(content) > MAX_BYTES:
        raise UserError(f"oci secret {secret_id}: {len(content)} bytes, over OCI's 25 KB")
    _, vaults = _clients(secrets, vaults)
    details = oci.vault.models.UpdateSecretDetails(
        secret_content=oci.vault.models.Base64SecretContentDetails(
            content_type="BASE64", content=content, stage="CURRENT"
        )
    )
    try:
        vaults.update_secret(secret_id, details)
    except Exception as exc:
        raise _service_error("UpdateSecret", secret_id, exc) from None


@app.command("fetch")
def fetch_command(secret_id: Annotated[str, typer.Argument(metavar="SECRET_OCID")]) -> None:
    """Print the secret's current value."""
    sys.stdout.write(fetch(secret_id))


@app.command("store")
def store_command(secret_id: Annotated[str, typer.Argument(metavar="SECRET_OCID")]) -> None:
    """Make the value on standard input the secret's new current version."""
    store(secret_id, read_text("-", what="the CA folder (a base64 tar)", max_bytes=MiB))


if __name__ == "__main__":
    from gpufabric.cli.main import run

    run(app, "python -m gpufabric.clouds.oci.secret")
