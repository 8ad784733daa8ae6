"""Reading a stack's outputs (gpufabric.stack_outputs) from a file or the Pulumi CLI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from gpufabric import stack_outputs
from gpufabric.errors import UserError
from gpufabric.inputs.formats import load_json, load_yaml, parse_json
from gpufabric.stack_outputs import StackOutputs


def load_file(path: str | Path) -> StackOutputs:
    data = load_json(path, what="a stack outputs file (pulumi stack output --json)")
    return stack_outputs.parse(data, f"outputs file {path}")


def load_leaf_map(path: str | Path) -> dict[str, str]:
    """A leaf map file: YAML/JSON mapping host name or address -> leaf switch name."""
    p = Path(path)
    data = load_yaml(p, what="a leaf map (YAML/JSON: host or address -> leaf name)")
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise UserError(f"leaf map {p}: expected a mapping of host or address to leaf name")
    return {str(k): v for k, v in data.items()}


def load_stack(stack: str, cwd: str | Path | None = None) -> StackOutputs:
    """Run `pulumi stack output --json --show-secrets -s STACK` (needs the Pulumi CLI and a
    logged-in backend)."""
    pulumi = shutil.which("pulumi")
    if pulumi is None:
        raise UserError(
            "stack: the pulumi CLI is not installed; pass an outputs file instead "
            "(pulumi stack output --json --show-secrets > outputs.json)"
        )
    proc = subprocess.run(
        [pulumi, "stack", "output", "--json", "--show-secrets", "--stack", stack],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        timeout=120,
    )
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no output"])[0]
        raise UserError(f"stack {stack}: pulumi stack output failed: {first}")
    data = parse_json(proc.stdout, where=f"stack {stack}: `pulumi stack output --json`")
    return stack_outputs.parse(data, f"stack {stack}")
