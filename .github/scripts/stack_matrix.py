"""Which stacks a workflow job runs on, as a GitHub Actions matrix.

    python .github/scripts/stack_matrix.py --clouds "aws gcp" [--only "aws-h100 gcp-a3-mega"]

Reads every stacks/Pulumi.<stack>.yaml, finds its cloud from `gpufabric:instanceType` in the
catalog, and keeps the stacks whose cloud has credentials configured (--clouds) and, if
--only is given and not "all", that are listed there. Prints `matrix=<json>`,
`any=true|false` (for $GITHUB_OUTPUT) and, on stderr, one line per skipped stack and why.
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


def select(
    clouds: dict[str, str], configured: set[str], only: set[str] | None
) -> tuple[list[dict[str, str]], list[str]]:
    chosen, skipped = [], []
    for stack, cloud in clouds.items():
        if only is not None and stack not in only:
            skipped.append(f"{stack}: not listed in GPUFABRIC_DEPLOY_STACKS")
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
    args = parser.parse_args(argv)
    only = None if args.only in (None, "all") else set(args.only.split())
    chosen, skipped = select(stack_clouds(), set(args.clouds.split()), only)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    print(f"matrix={json.dumps({'include': chosen}, separators=(',', ':'))}")
    print(f"any={'true' if chosen else 'false'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
