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

import argparse
import json
import os
import sys
from pathlib import Path

from gpufabric.errors import UserError
from gpufabric.inputs.files import read_text, reset_stdin
from gpufabric.ipsec import certs, crl
from gpufabric.ipsec.members import HOST_NAME, ipv4

PASSPHRASE_ENV = "GPUFABRIC_IPSEC_CA_PASSPHRASE"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gpufabric.ipsec.ca")
    sub = parser.add_subparsers(dest="cmd", required=True)
    ensure = sub.add_parser("ensure")
    ensure.add_argument("--dir", type=Path, required=True)
    ensure.add_argument("--cn", required=True)
    ensure.add_argument("--days", type=int, required=True)
    ensure.add_argument("--dry-run", action="store_true")
    sign = sub.add_parser("sign")
    sign.add_argument("--dir", type=Path, required=True)
    sign.add_argument("--identity", required=True)
    sign.add_argument("--address", action="append", required=True)
    sign.add_argument("--days", type=int, required=True)
    revoke = sub.add_parser("crl")
    revoke.add_argument("--dir", type=Path, required=True)
    revoke.add_argument("--member", action="append", default=[])
    revoke.add_argument("--revoke", action="append", default=[])
    revoke.add_argument("--days", type=int, required=True)
    revoke.add_argument("--dry-run", action="store_true")
    return parser


def _days(value: int, what: str) -> int:
    if not 1 <= value <= 36500:
        raise UserError(f"{what}: {value} is not a number of days between 1 and 36500")
    return value


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    reset_stdin()  # one command: standard input readable once
    passphrase = os.environ.get(PASSPHRASE_ENV, "").encode()
    try:
        days = _days(args.days, "--days")
        if args.cmd == "ensure":
            created = certs.ensure_ca(
                args.dir, args.cn, days, passphrase=passphrase, dry_run=args.dry_run
            )
            print(json.dumps({"created": created}))
        elif args.cmd == "sign":
            if not HOST_NAME.fullmatch(args.identity):
                raise UserError(f"--identity: {args.identity!r} is not a plain host name")
            addresses = [ipv4(a, f"ipsec: {args.identity}'s address") for a in args.address]
            pem = read_text("-", what="the host's public key (PEM)", max_bytes=64 * 1024)
            print(certs.sign_public_key(args.dir, pem, args.identity, addresses,
                                        days, passphrase=passphrase), end="")  # fmt: skip
        else:
            result = crl.update_crl(args.dir, args.member, passphrase=passphrase, days=days,
                                    revoke=args.revoke, dry_run=args.dry_run)  # fmt: skip
            print(json.dumps(result))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return UserError.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
