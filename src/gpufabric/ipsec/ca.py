"""Controller-side CLI for the ipsec role (run with the controller's Python):

    python -m gpufabric.ipsec.ca ensure --dir DIR --cn NAME --days N [--dry-run]
        -> {"created": true|false}  (JSON on stdout; the key is never printed)
    python -m gpufabric.ipsec.ca sign --dir DIR --identity h1 --address 10.0.0.1 --days N
        < host public key PEM  -> host certificate PEM on stdout

Bad input: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpufabric.errors import UserError
from gpufabric.ipsec import certs


def main(argv: list[str] | None = None) -> int:
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
    args = parser.parse_args(argv)
    try:
        if args.cmd == "ensure":
            created = certs.ensure_ca(args.dir, args.cn, args.days, dry_run=args.dry_run)
            print(json.dumps({"created": created}))
        else:
            print(certs.sign_public_key(args.dir, sys.stdin.read(), args.identity,
                                        args.address, args.days), end="")  # fmt: skip
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return UserError.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
