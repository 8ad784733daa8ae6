"""`gpufabric health run`: find the bad host or link, print a verdict per host, act on it.

Runs playbooks/fabric-health.yml with ansible-playbook (from this venv, in the repository) and
reads back the report it writes. Exit 0: every host ok; 1: a host is bad; 2: usage error (or a
run that produced no report).

A verdict comes only from this run: the playbook writes into a fresh folder, an earlier
report in --out is removed before the run starts, the report must judge exactly the hosts the
run was on (its PLAY RECAP), and it is stamped with this run's id and times before it replaces
anything in --out (os.replace: never half written).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from gpufabric.errors import UserError
from gpufabric.inputs.formats import load_json

REPO = Path(__file__).resolve().parents[3]
PLAYBOOK = REPO / "playbooks" / "fabric-health.yml"
DRAINS = ("none", "slurm", "k8s")
REPORT_FILES = ("health.json", "health.html")
# ansible-playbook's recap line: "h1   : ok=3 changed=0 unreachable=1 failed=0 ..."
RECAP_LINE = re.compile(r"^(\S+)\s*:\s*ok=(\d+).*?\bunreachable=(\d+)", re.MULTILINE)
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


def play_recap(stdout: str) -> dict[str, bool]:
    """Host -> whether it was unreachable, from the PLAY RECAP ansible-playbook prints last."""
    _, sep, tail = stdout.rpartition("PLAY RECAP")
    if not sep:
        return {}
    return {m[1]: int(m[3]) > 0 for m in RECAP_LINE.finditer(tail)}


def _no_report(proc: subprocess.CompletedProcess[str], inventory: Path, log: Path) -> UserError:
    """Why a run left no report, in one line."""
    text = proc.stdout + proc.stderr
    recap = play_recap(proc.stdout)
    if not recap and "no hosts matched" in text.lower():
        return UserError(
            f"--inventory: {inventory} has no host in the play's group: nothing measured "
            f"(log: {log})"
        )
    if recap and all(recap.values()):
        return UserError(
            f"no host answered over ssh ({', '.join(sorted(recap))} unreachable): "
            f"nothing measured (log: {log})"
        )
    first = next(
        (
            line.strip()
            for line in text.splitlines()
            if line.lstrip().startswith(("[ERROR]", "ERROR!", "fatal:"))
        ),
        None,
    )
    why = first or " | ".join(text.strip().splitlines()[-3:])
    return UserError(
        f"ansible-playbook exited {proc.returncode} without a report (log: {log}): {why}"
    )


def run_playbook(
    inventory: Path, drain: str, out: Path, extra: list[str], log: Path | None = None
) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    """Run the playbook writing into the fresh folder `out`; returns the report it wrote (it
    must judge exactly the hosts the run was on) and the process. The log goes to `log`."""
    log = log or out / "ansible.log"
    extra_vars = json.dumps({"fabric_health_drain": drain, "fabric_health_out": str(out.resolve())})
    # the playbook runs in the repository: a relative path is the caller's, so resolve it here
    argv = [ansible_playbook(), "-i", str(inventory.resolve()), str(PLAYBOOK), "-e", extra_vars]
    argv += extra
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
    log.write_text(proc.stdout + proc.stderr)
    report_file = out / "health.json"
    if not report_file.is_file():
        raise _no_report(proc, inventory, log)
    try:
        report = load_json(report_file, what="the health report the playbook writes")
        judged = set(report["hosts"])
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{report_file}: not a health report ({exc})") from None
    if not judged:
        raise UserError(f"the run judged no host: nothing measured (log: {log})")
    ran_on = set(play_recap(proc.stdout))
    if ran_on and judged != ran_on:
        raise UserError(
            f"the report judges {', '.join(sorted(judged))} but the run was on "
            f"{', '.join(sorted(ran_on))}: not this run's report (log: {log})"
        )
    return report, proc


def _stamp(report: dict[str, Any], run_id: str, started: datetime) -> dict[str, Any]:
    meta = dict(report.get("meta") or {})
    meta["run"] = {
        "id": run_id,
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return {**report, "meta": meta}


def _publish(work: Path, out: Path, report: dict[str, Any]) -> None:
    """Write the stamped report beside the page, then move both into `out` (each os.replace
    is atomic: a reader sees the old file or the new one, never half of one)."""
    (work / "health.json").write_text(json.dumps(report, indent=2) + "\n")
    for name in REPORT_FILES:
        if (work / name).is_file():
            os.replace(work / name, out / name)


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
    run_id = uuid.uuid4().hex
    started = datetime.now(UTC)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="gpufabric-health-") as tmp:
            report, _proc = run_playbook(inventory, drain, Path(tmp), extras)
        report = _stamp(report, run_id, started)
    else:
        out.mkdir(parents=True, exist_ok=True)
        for name in REPORT_FILES:  # an earlier run's report must never be read as this one's
            (out / name).unlink(missing_ok=True)
        with tempfile.TemporaryDirectory(prefix=".health-run-", dir=out) as tmp:
            report, _proc = run_playbook(
                inventory, drain, Path(tmp), extras, log=out / "ansible.log"
            )
            report = _stamp(report, run_id, started)
            _publish(Path(tmp), out, report)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        from gpufabric.health.report import text

        typer.echo(text(report), nl=False)
        if out is not None:
            typer.echo(f"report: {out / 'health.json'}, {out / 'health.html'}")
    raise typer.Exit(1 if report["bad"] else 0)
