"""Reading a stack's outputs (gpufabric.stack_outputs) from a file or the Pulumi CLI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from gpufabric import stack_outputs
from gpufabric.errors import UserError
from gpufabric.inputs import types
from gpufabric.inputs.errors import one_line
from gpufabric.inputs.files import decode_text
from gpufabric.inputs.formats import load_json, load_yaml, parse_json
from gpufabric.stack_outputs import StackOutputs

PULUMI_TIMEOUT_S = 120
"""How long `pulumi stack output` may take (it waits on the backend) before it is given up."""


def load_file(path: str | Path) -> StackOutputs:
    data = load_json(path, what="a stack outputs file (pulumi stack output --json)")
    return stack_outputs.parse(data, f"outputs file {path}")


def load_leaf_map(path: str | Path) -> dict[str, str]:
    """A leaf map file: YAML/JSON mapping host name or address -> leaf switch name (an id a
    writer may still have to escape: printable, no line break)."""
    p = Path(path)
    data = load_yaml(p, what="a leaf map (YAML/JSON: host or address -> leaf name)")
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise UserError(f"leaf map {p}: expected a mapping of host or address to leaf name")
    return {
        str(k): types.check(types.NodeId, v, f"leaf map {p}: {types.show(k)}")
        for k, v in data.items()
    }


def load_stack(stack: str, cwd: str | Path | None = None) -> StackOutputs:
    """Run `pulumi stack output --json --show-secrets -s STACK` (needs the Pulumi CLI and a
    logged-in backend)."""
    pulumi = shutil.which("pulumi")
    if pulumi is None:
        raise UserError(
            "stack: the pulumi CLI is not installed; pass an outputs file instead "
            "(pulumi stack output --json --show-secrets > outputs.json)"
        )
    try:
        proc = subprocess.run(
            [pulumi, "stack", "output", "--json", "--show-secrets", "--stack", stack],
            capture_output=True,
            cwd=cwd,
            check=False,
            timeout=PULUMI_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise UserError(
            f"stack {stack}: pulumi stack output did not finish in {PULUMI_TIMEOUT_S} s "
            "(is the backend reachable and logged in?)"
        ) from None
    except OSError as exc:
        raise UserError(f"stack {stack}: cannot run {pulumi}: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UserError(
            f"stack {stack}: pulumi stack output failed: {one_line(err[0] if err else 'no output')}"
        )
    where = f"stack {stack}: `pulumi stack output --json`"
    text = decode_text(proc.stdout, where, "the JSON of stack outputs")
    return stack_outputs.parse(parse_json(text, where=where), f"stack {stack}")
