"""`gpufabric health run`: find the bad host or link, print a verdict per host, act on it.

Runs playbooks/fabric-health.yml with ansible-playbook (from this venv, in the repository) and
reads back the report it writes. Exit 0: every host ok; 1: a host is bad; 2: usage error (or a
run that produced no report).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from gpufabric.errors import UserError

REPO = Path(__file__).resolve().parents[3]
PLAYBOOK = REPO / "playbooks" / "fabric-health.yml"
DRAINS = ("none", "slurm", "k8s")
# Ansible's default ssh_args plus keepalives (OpenSSH ssh_config: ServerAliveInterval/CountMax)
SSH_ARGS = (
    "-C -o ControlMaster=auto -o ControlPersist=30s -o ServerAliveInterval=5 "
    "-o ServerAliveCountMax=3"
)

app = typer.Typer(
    help="Fabric health: find the bad host or link and take it out of service.",
    no_args_is_help=True,
)


def ansible_playbook() -> str:
    candidate = Path(sys.executable).parent / "ansible-playbook"
    return str(candidate) if candidate.exists() else "ansible-playbook"


def check_args(inventory: Path, drain: str, out: Path | None) -> None:
    if drain not in DRAINS:
        raise UserError(f"--drain: {drain!r} is not valid; use one of {', '.join(DRAINS)}")
    if not inventory.exists():
        raise UserError(f"--inventory: {inventory} does not exist")
    if out is not None and out.exists() and not out.is_dir():
        raise UserError(f"--out: {out} exists and is not a directory")
    if not PLAYBOOK.is_file():
        raise UserError(f"{PLAYBOOK} is missing: run gpufabric from its repository checkout")


def run_playbook(
    inventory: Path, drain: str, out: Path, extra: list[str]
) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    """Run the playbook; returns the report it wrote and the process."""
    extra_vars = json.dumps({"fabric_health_drain": drain, "fabric_health_out": str(out)})
    argv = [ansible_playbook(), "-i", str(inventory), str(PLAYBOOK), "-e", extra_vars, *extra]
    control_dir = tempfile.mkdtemp(prefix="gfh-cp-")  # short: ssh sockets are <= 108 chars
    env = {
        **os.environ,
        "ANSIBLE_FORCE_COLOR": "0",
        # this run's own ssh masters (a master left by an earlier run to a host whose link
        # has since gone down would hang), and dead connections noticed within ~15 s
        "ANSIBLE_SSH_CONTROL_PATH_DIR": control_dir,
        "ANSIBLE_SSH_ARGS": SSH_ARGS,
    }
    try:
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, check=False)
    finally:
        shutil.rmtree(control_dir, ignore_errors=True)
    (out / "ansible.log").write_text(proc.stdout + proc.stderr)
    report_file = out / "health.json"
    if not report_file.is_file():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        raise UserError(
            f"ansible-playbook exited {proc.returncode} without a report "
            f"(log: {out / 'ansible.log'}): {' | '.join(tail)}"
        )
    return json.loads(report_file.read_text()), proc


@app.command("run")
def run(
    inventory: Annotated[Path, typer.Option("-i", "--inventory", help="Ansible inventory")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
    drain: Annotated[str, typer.Option("--drain", help="none | slurm | k8s")] = "none",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Directory for health.json, health.html and ansible.log"),
    ] = None,
    extra: Annotated[
        list[str] | None,
        typer.Option("-e", "--extra-vars", help="Passed to ansible-playbook (-e KEY=VALUE)"),
    ] = None,
) -> None:
    """Check every host (no traffic, then traffic over groups); exit 0 ok, 1 bad, 2 usage."""
    check_args(inventory, drain, out)
    extras = [arg for e in extra or [] for arg in ("-e", e)]
    if out is None:
        with tempfile.TemporaryDirectory(prefix="gpufabric-health-") as tmp:
            report, _proc = run_playbook(inventory, drain, Path(tmp), extras)
    else:
        out.mkdir(parents=True, exist_ok=True)
        report, _proc = run_playbook(inventory, drain, out, extras)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        from gpufabric.health.report import text

        typer.echo(text(report), nl=False)
        if out is not None:
            typer.echo(f"report: {out / 'health.json'}, {out / 'health.html'}")
    raise typer.Exit(1 if report["bad"] else 0)
