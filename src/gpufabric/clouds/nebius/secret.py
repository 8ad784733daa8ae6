"""The IPsec CA's store on Nebius: one MysteryBox secret, its payload key `ca`, read and given
new primary versions through the nebius SDK of the job's hash-locked venv.

    python -m gpufabric.clouds.nebius.secret fetch SECRET_ID    # prints the current value
    python -m gpufabric.clouds.nebius.secret store SECRET_ID    # the new value on stdin

[P] the nebius SDK: nebius.api.nebius.mysterybox.v1 PayloadServiceClient.get_by_key
(GetPayloadByKeyRequest(secret_id, key) -> SecretPayloadEntry.data: Payload.string_value),
SecretVersionServiceClient.create (CreateSecretVersionRequest(metadata.parent_id = the secret,
spec = SecretVersionSpec(payload=[Payload(key, string_value)], set_primary=True)) -> an
operation, waited for). Credentials: $NEBIUS_IAM_TOKEN (the pipeline's cloud-login), else the
CLI profile. The value never reaches an argument; errors are one line, exit 2.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from gpufabric.clouds.nebius import ids
from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.inputs.files import MiB, read_text

SecretId = ids.resource_id("mbsec")
KEY = "ca"
WHAT = "the IPsec CA store (GPUFABRIC_IPSEC_CA_STORE)"

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def _one_line(call: str, secret_id: str, exc: Exception) -> UserError:
    first = (str(exc).splitlines() or [""])[0] or type(exc).__name__
    return UserError(f"nebius {call} {secret_id}: {first}")


def fetch(secret_id: str, payloads: Any = None) -> str:
    types.check(SecretId, secret_id, WHAT)
    from nebius.api.nebius.mysterybox.v1 import GetPayloadByKeyRequest, PayloadServiceClient

    from gpufabric.clouds.nebius.live import sdk

    payloads = payloads or PayloadServiceClient(sdk(WHAT))
    try:
        entry = payloads.get_by_key(GetPayloadByKeyRequest(secret_id=secret_id, key=KEY)).wait()
    except Exception as exc:  # the SDK's request and transport errors
        raise _one_line("PayloadService.GetByKey", secret_id, exc) from None
    value = entry.data.string_value
    if not value:
        raise UserError(f"nebius secret {secret_id}: no text under key {KEY!r}")
    return str(value)


def store(secret_id: str, value: str, versions: Any = None) -> None:
    types.check(SecretId, secret_id, WHAT)
    from nebius.api.nebius.common.v1 import ResourceMetadata
    from nebius.api.nebius.mysterybox.v1 import (
        CreateSecretVersionRequest,
        Payload,
        SecretVersionServiceClient,
        SecretVersionSpec,
    )

    from gpufabric.clouds.nebius.live import sdk

    versions = versions or SecretVersionServiceClient(sdk(WHAT))
    request = CreateSecretVersionRequest(
        metadata=ResourceMetadata(parent_id=secret_id),
        spec=SecretVersionSpec(payload=[Payload(key=KEY, string_value=value)], set_primary=True),
    )
    try:
        operation = versions.create(request).wait()
        operation.sync_wait()
    except Exception as exc:
        raise _one_line("SecretVersionService.Create", secret_id, exc) from None
    if not operation.successful():
        raise UserError(f"nebius SecretVersionService.Create {secret_id}: the operation failed")


@app.command("fetch")
def fetch_command(secret_id: Annotated[str, typer.Argument(metavar="SECRET_ID")]) -> None:
    """Print the secret's current value (payload key `ca`)."""
    sys.stdout.write(fetch(secret_id))


@app.command("store")
def store_command(secret_id: Annotated[str, typer.Argument(metavar="SECRET_ID")]) -> None:
    """Make the value on standard input the secret's new primary version."""
    store(secret_id, read_text("-", what="the CA folder (a base64 tar)", max_bytes=MiB))


if __name__ == "__main__":
    from gpufabric.cli.main import run

    run(app, "python -m gpufabric.clouds.nebius.secret")
