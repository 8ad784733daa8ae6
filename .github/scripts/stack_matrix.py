"""Which stacks a workflow job runs on, as a GitHub Actions matrix.

    python .github/scripts/stack_matrix.py --clouds "aws gcp" [--only "aws-h100 gcp-a3-mega"]
        [--without-secrets]

Reads every stacks/Pulumi.<stack>.yaml, finds its cloud from `gpufabric:instanceType` in the
catalog, and keeps the stacks whose cloud has credentials configured (--clouds) and, if
--only is given and not "all", that are listed there. Prints `matrix=<json>`,
`any=true|false` (for $GITHUB_OUTPUT) and, on stderr, one line per skipped stack and why.
--without-secrets (pull-request previews, which hold no right to decrypt) also skips every
stack that holds secrets (a `secure:` config value or a Pulumi ESC environment): those get the
offline plan only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from gpufabric.catalog import catalog

ROOT = Path(__file__).resolve().parents[2]


def stack_clouds(root: Path = ROOT) -> dict[str, str]:
    """{stack: cloud} for every stack file; a type missing from the catalog is 'unknown'."""
    found = {}
    for path in sorted((root / "stacks").glob("Pulumi.*.yaml")):
        stack = path.name[len("Pulumi.") : -len(".yaml")]
        config = (yaml.safe_load(path.read_text()) or {}).get("config") or {}
        entry = catalog().get(str(config.get("gpufabric:instanceType", "")))
        found[stack] = entry.cloud if entry else "unknown"
    return found


def _secure(value: object) -> bool:
    if isinstance(value, dict):
        return "secure" in value or any(_secure(v) for v in value.values())
    if isinstance(value, list):
        return any(_secure(v) for v in value)
    return False


def stacks_with_secrets(root: Path = ROOT) -> set[str]:
    """Stacks whose file holds a secret: a `secure:` config value or an ESC environment."""
    found = set()
    for path in sorted((root / "stacks").glob("Pulumi.*.yaml")):
        doc = yaml.safe_load(path.read_text()) or {}
        if _secure(doc.get("config") or {}) or doc.get("environment"):
            found.add(path.name[len("Pulumi.") : -len(".yaml")])
    return found


def select(
    clouds: dict[str, str],
    configured: set[str],
    only: set[str] | None,
    secret: set[str] | None = None,
) -> tuple[list[dict[str, str]], list[str]]:
    """`secret`: stacks to leave out because they hold secrets (None: keep them)."""
    chosen, skipped = [], []
    for stack, cloud in clouds.items():
        if only is not None and stack not in only:
            skipped.append(f"{stack}: not listed in GPUFABRIC_DEPLOY_STACKS")
        elif secret is not None and stack in secret:
            skipped.append(
                f"{stack}: holds secrets, and an unreviewed preview may not decrypt them "
                "(the offline plan above covers it)"
            )
        elif cloud not in configured:
            skipped.append(
                f"{stack}: no {cloud} credentials configured (repository variables unset)"
            )
        else:
            chosen.append({"stack": stack, "cloud": cloud})
    return chosen, skipped


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clouds", default="", help="clouds with credentials, space separated")
    parser.add_argument("--only", default=None, help='stacks to keep, space separated, or "all"')
    parser.add_argument(
        "--without-secrets", action="store_true", help="leave out stacks that hold secrets"
    )
    args = parser.parse_args(argv)
    only = None if args.only in (None, "all") else set(args.only.split())
    secret = stacks_with_secrets() if args.without_secrets else None
    chosen, skipped = select(stack_clouds(), set(args.clouds.split()), only, secret)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    print(f"matrix={json.dumps({'include': chosen}, separators=(',', ':'))}")
    print(f"any={'true' if chosen else 'false'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
