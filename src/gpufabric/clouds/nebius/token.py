"""A short-lived Nebius IAM token for a service account, from its authorized key file.

    python -m gpufabric.clouds.nebius.token CREDENTIALS_FILE

Prints the token on stdout, nothing else (the pipeline's cloud-login masks it, then hands it to
the Pulumi provider and the SDK as NEBIUS_IAM_TOKEN). The file is the JSON that
`nebius iam auth-public-key generate` writes ({"subject-credentials": {alg, private-key, kid,
iss, sub}}); the exchange is the nebius SDK's own ([P] nebius.sdk.SDK(credentials_file_name=),
SDK.get_token_sync). No Nebius CLI needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gpufabric.errors import UserError
from gpufabric.extras import require

TIMEOUT_S = 60.0

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def fetch(credentials: Path, sdk_class: Any = None) -> str:
    """The token; a missing file or a refused exchange is one line."""
    if not credentials.is_file():
        raise UserError(f"{credentials}: not a regular file (the service account's key file)")
    if sdk_class is None:
        require("nebius", "the Nebius login")
        from nebius.sdk import SDK as sdk_class
    try:  # the SDK reads the file when it is made: a malformed one fails there
        sdk = sdk_class(credentials_file_name=str(credentials), user_agent_prefix="gpufabric")
        token = sdk.get_token_sync(timeout=TIMEOUT_S).token
    except Exception as exc:  # the SDK's errors carry no stable base class
        first = (str(exc).splitlines() or [""])[0] or type(exc).__name__
        if isinstance(exc, KeyError):
            first = f"the file has no {first} (not a service account key file)"
        raise UserError(f"nebius token exchange for {credentials}: {first}") from None
    if not token:
        raise UserError(f"nebius token exchange for {credentials}: an empty token")
    return str(token)


@app.command()
def main(
    credentials: Annotated[Path, typer.Argument(metavar="CREDENTIALS_FILE", show_default=False)],
) -> None:
    """Print a short-lived IAM token for the service account whose key file this is."""
    print(fetch(credentials))


if __name__ == "__main__":
    from gpufabric.cli.main import run

    run(app, "python -m gpufabric.clouds.nebius.token")
