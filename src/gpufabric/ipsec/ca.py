"""Controller-side CLI for the ipsec role (run with the controller's Python):

    python -m gpufabric.ipsec.ca ensure --dir DIR --cn NAME --days N [--dry-run]
        -> {"created": true|false}  (JSON on stdout; the key is never printed)
    python -m gpufabric.ipsec.ca sign --dir DIR --identity h1 --address 10.0.0.1 --days N
        < host public key PEM  -> host certificate PEM on stdout
    python -m gpufabric.ipsec.ca crl --dir DIR --member h1 --member h2 [--revoke h3] --days N
        -> {"changed": true|false, "revoked": ["h3: no longer a member", ...]}; DIR/crl.pem

The CA key is encrypted with the passphrase in the environment variable
GPUFABRIC_IPSEC_CA_PASSPHRASE (never an argument: arguments show in `ps` and in Ansible logs).
Bad input: one line on stderr, exit 2; the passphrase is never printed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from gpufabric.errors import ArgumentError, UserError
from gpufabric.inputs.files import read_text
from gpufabric.ipsec import certs, crl
from gpufabric.ipsec.members import HOST_NAME, ipv4

PASSPHRASE_ENV = "GPUFABRIC_IPSEC_CA_PASSPHRASE"


def _days(value: int, what: str) -> int:
    if not 1 <= value <= 36500:
        raise UserError(f"{what}: {value} is not a number of days between 1 and 36500")
    return value


app = typer.Typer(
    help="The ipsec role's certificate authority (run with the controller's Python).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
DirOpt = Annotated[Path, typer.Option("--dir", help="The CA's folder")]
DaysOpt = Annotated[int, typer.Option("--days", help="Validity in days, 1-36500")]
DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Say what would change; change nothing")]


def _passphrase() -> bytes:
    """The passphrase's bytes as the environment holds them (not necessarily UTF-8)."""
    return os.fsencode(os.environ.get(PASSPHRASE_ENV, ""))


@app.command()
def ensure(
    directory: DirOpt,
    cn: Annotated[str, typer.Option("--cn", help="The CA's common name")],
    days: DaysOpt,
    dry_run: DryRunOpt = False,
) -> None:
    """Create the CA unless it exists: {"created": true|false} on stdout."""
    created = certs.ensure_ca(
        directory, cn, _days(days, "--days"), passphrase=_passphrase(), dry_run=dry_run
    )
    print(json.dumps({"created": created}))


@app.command()
def sign(
    directory: DirOpt,
    identity: Annotated[str, typer.Option("--identity", help="The host's name")],
    address: Annotated[list[str], typer.Option("--address", help="The host's address (repeat)")],
    days: DaysOpt,
) -> None:
    """Sign the host public key (PEM) on standard input: the host certificate PEM on stdout."""
    days = _days(days, "--days")
    if not HOST_NAME.fullmatch(identity):
        raise ArgumentError("identity", f"{identity!r} is not a plain host name")
    addresses = [ipv4(a, f"ipsec: {identity}'s address") for a in address]
    pem = read_text("-", what="the host's public key (PEM)", max_bytes=64 * 1024)
    print(certs.sign_public_key(directory, pem, identity, addresses, days,
                                passphrase=_passphrase()), end="")  # fmt: skip


@app.command("crl")
def revocations(
    directory: DirOpt,
    days: DaysOpt,
    member: Annotated[list[str] | None, typer.Option("--member", help="A member (repeat)")] = None,
    revoke: Annotated[list[str] | None, typer.Option("--revoke", help="Revoke (repeat)")] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Rewrite DIR/crl.pem for the members: {"changed": ..., "revoked": [...]} on stdout."""
    result = crl.update_crl(directory, member or [], passphrase=_passphrase(),
                            days=_days(days, "--days"), revoke=revoke or [],
                            dry_run=dry_run)  # fmt: skip
    print(json.dumps(result))


def main(argv: list[str] | None = None) -> int:
    """Run the CLI the project's way (gpufabric.cli.main.run); the exit code."""
    from gpufabric.cli.main import run

    try:
        run(app, "python -m gpufabric.ipsec.ca", argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
