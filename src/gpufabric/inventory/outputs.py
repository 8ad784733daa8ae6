"""Reading a stack's outputs (gpufabric.stack_outputs) from a file or the Pulumi CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from gpufabric import stack_outputs
from gpufabric.errors import UserError
from gpufabric.stack_outputs import StackOutputs


def load_file(path: str | Path) -> StackOutputs:
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UserError(f"outputs file {p}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"outputs file {p}: not UTF-8 text (binary?)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"outputs file {p}: not JSON ({exc.msg} at line {exc.lineno}); truncated?"
        ) from None
    return stack_outputs.parse(data, f"outputs file {p}")


def load_leaf_map(path: str | Path) -> dict[str, str]:
    """A leaf map file: YAML/JSON mapping host name or address -> leaf switch name."""
    import yaml

    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text())
    except OSError as exc:
        raise UserError(f"leaf map {p}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise UserError(f"leaf map {p}: not YAML/JSON ({str(exc).splitlines()[0]})") from None
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
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise UserError(f"stack {stack}: pulumi printed no JSON ({exc.msg})") from None
    return stack_outputs.parse(data, f"stack {stack}")
