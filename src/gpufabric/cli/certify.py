"""`gpufabric certify`: staged acceptance of a cluster's nodes, a scorecard, and a comparison.

    gpufabric certify -i INVENTORY | -s STACK [--out DIR] [--hold slurm|k8s|none] [--json]
    gpufabric certify compare OLD NEW

Exit 0: every node certified; 1: a node or a stage failed; 2: usage error or bad input.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from gpufabric.errors import UserError

EXIT_CODES = "0 every node certified; 1 a node or stage failed; 2 usage error or bad input"
app = typer.Typer(help="Certify a cluster's nodes stage by stage; hold the ones that fail.")


class RichProgress:
    """Stage by stage on stderr while certify runs."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)

    def stage(self, number: int, name: str, hosts: int) -> None:
        self.console.print(f"[bold]stage {number} {name}[/bold]: {hosts} node(s)")

    def done(self, number: int, failed: int) -> None:
        colour = "red" if failed else "green"
        self.console.print(f"  [{colour}]{failed} node(s) held[/{colour}]")

    def released(self, host: str) -> None:
        self.console.print(f"  released {host}")


def stack_inventory(stack: str, where: Path) -> Path:
    """An inventory file for the gpufabric_pulumi plugin reading `stack`'s outputs."""
    if not stack or any(c in stack for c in "\n\r\0"):
        raise UserError(f"--stack: {stack!r} is not a stack name")
    path = where / "certify.gpufabric_pulumi.yml"
    path.write_text(yaml.safe_dump({"plugin": "gpufabric_pulumi", "stack": stack}))
    return path


def doctor(inventory: Path, out: Path) -> Any:
    """The fabric doctor (playbooks/fabric-health.yml) over some hosts, nothing drained."""
    from gpufabric.cli.health import PLAYBOOK, run_playbook

    if not PLAYBOOK.is_file():
        raise UserError(f"{PLAYBOOK} is missing: run gpufabric from its repository checkout")

    def run(hosts: list[str], label: str) -> dict[str, Any]:
        where = out / label
        where.mkdir(parents=True, exist_ok=True)
        report, _proc = run_playbook(inventory, "none", where, ["--limit", ",".join(hosts)])
        return report

    return run


def storage_bench(inventory: Path, out: Path) -> Any:
    """The storage bench (playbooks/storage-benchmark.yml) on some hosts at once; the fio reports
    land in OUT/storage (emptied first: only this run's reports), the log beside it. The
    playbook's own gate is off: certify gates the reports (gpufabric.certify.storage)."""
    import os
    import shutil
    import subprocess

    from gpufabric.cli.health import REPO, SSH_ARGS, ansible_playbook

    playbook = REPO / "playbooks" / "storage-benchmark.yml"
    if not playbook.is_file():
        raise UserError(f"{playbook} is missing: run gpufabric from its repository checkout")

    def run(hosts: list[str], path: str) -> Path:
        where = (out / "storage").resolve()
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        extra = {"storage_bench_path": path, "storage_bench_results_dir": str(where)}
        argv = [ansible_playbook(), "-i", str(inventory.resolve()), str(playbook)]
        argv += ["-e", json.dumps({**extra, "storage_bench_gate": False})]
        argv += ["--limit", ",".join(hosts)]
        env = {**os.environ, "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_SSH_ARGS": SSH_ARGS}
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, check=False)
        (out / "storage-bench.log").write_text(proc.stdout + proc.stderr)
        return where

    return run


def stack_storage(stack: str) -> tuple[dict[str, Any] | None, str]:
    """The stack file's checkpoint goal and mount point (stacks/Pulumi.<stack>.yaml), where this
    checkout has it; (None, "") where it does not."""
    from gpufabric.config import parse
    from gpufabric.plan.project import project_root, read_stack

    if not re.fullmatch(r"[A-Za-z0-9_.-]+", stack):
        return None, ""  # org/project/stack: not a stack file of this checkout
    try:
        root = project_root()
    except UserError:
        return None, ""
    if not (root / "stacks" / f"Pulumi.{stack}.yaml").is_file():
        return None, ""
    storage = parse(read_stack(root, stack), stack).storage
    goal = getattr(storage, "checkpoint", None)
    path = getattr(storage, "mount_point", "")
    return (goal.model_dump(by_alias=True, exclude_none=True) if goal else None), str(path or "")


def nccl_launcher(runner: Any, gpus: int, mpirun: str, binaries: str, out: Path) -> Any:
    """nccl-tests over some hosts with mpirun from the first, NCCL_DEBUG=INFO for the transport."""
    from gpufabric.certify.limits import table

    sizes = table()["sizes"]

    def run(hosts: list[str], collective: str) -> str:
        argv = [mpirun, "-np", str(len(hosts) * gpus), "-H"]
        argv += [",".join(f"{h}:{gpus}" for h in hosts), "--map-by", f"ppr:{gpus}:node"]
        argv += ["-x", "NCCL_DEBUG=INFO", "-x", "NCCL_DEBUG_SUBSYS=INIT,NET"]
        argv += [f"{binaries}/{collective}_perf", "-b", sizes["min_bytes"], "-e"]
        argv += [sizes["max_bytes"], "-f", "2", "-g", "1"]
        res = runner.run([hosts[0]], argv).get(hosts[0], {})
        text = str(res.get("stdout", "")) + "\n" + str(res.get("stderr", ""))
        (out / f"{collective}-{len(hosts)}-{hosts[0]}.log").write_text(text)
        return text

    return run


@app.callback(invoke_without_command=True, epilog=f"Exit codes: {EXIT_CODES}")
def certify(
    ctx: typer.Context,
    inventory: Annotated[
        Path | None, typer.Option("-i", "--inventory", help="Ansible inventory")
    ] = None,
    stack: Annotated[
        str | None, typer.Option("-s", "--stack", help="Find the nodes from this stack's outputs")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Directory for certify.json (CTRF), certify.html")
    ] = None,
    hold: Annotated[str, typer.Option("--hold", help="none | slurm | k8s")] = "none",
    as_json: Annotated[bool, typer.Option("--json", help="Print the CTRF scorecard")] = False,
    soak: Annotated[
        int | None, typer.Option("--soak", help="Repeats of the fabric stage (default 1)")
    ] = None,
    kubectl: Annotated[str, typer.Option("--kubectl", help="kubectl for --hold k8s")] = "kubectl",
) -> None:
    """Hold every node, run the stages, release the nodes that pass, write the scorecard."""
    if ctx.invoked_subcommand is not None:
        return
    if (inventory is None) == (stack is None):
        raise UserError("give exactly one of -i/--inventory and -s/--stack")
    if inventory is not None and not inventory.exists():
        raise UserError(f"--inventory: {inventory} does not exist")
    if out is not None and out.exists() and not out.is_dir():
        raise UserError(f"--out: {out} exists and is not a directory")
    from gpufabric.certify.hosts import HOLDS

    if hold not in HOLDS:
        raise UserError(f"--hold: {hold!r} is not valid; use one of {', '.join(HOLDS)}")
    if soak is not None and not 0 <= soak <= 100:
        raise UserError(f"--soak: {soak} is not valid; use 0 to 100")
    with tempfile.TemporaryDirectory(prefix="gpufabric-certify-") as tmp:
        work = out or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        inv_path = inventory if inventory is not None else stack_inventory(str(stack), Path(tmp))
        report = _run(inv_path, work, hold, soak, kubectl, stack)
        from gpufabric.certify.run import write
        from gpufabric.certify.scorecard import ctrf

        files = write(report, work) if out is not None else []
        if as_json:
            typer.echo(json.dumps(ctrf(report), indent=2))
        else:
            for h, v in report["hosts"].items():
                why = f"stage {v['stage']}: {v['reason']} -> {v['todo']}" if v["stage"] else ""
                typer.echo(f"{h:<16} {v['status'].upper():<9} {why}".rstrip())
            typer.echo(f"verdict: {report['verdict']}")
            if files:
                typer.echo(f"scorecard: {files[0]}, {files[1]}")
    raise typer.Exit(0 if report["verdict"] == "certified" else 1)


def _run(
    inventory: Path, work: Path, hold: str, soak: int | None, kubectl: str, stack: str | None
) -> dict[str, Any]:
    from gpufabric.certify.hosts import AnsibleRunner, Holder
    from gpufabric.certify.run import Options, certify

    runner = AnsibleRunner(inventory)
    inv = runner.list_inventory()
    holder = Holder(hold, runner, inv.controller, kubectl)
    opts = Options(command=" ".join(["gpufabric certify", *_argv()]))
    if soak is not None:
        opts.soak_repeats = soak
    opts.fabric_tiers = int(inv.var("nccl_fabric_tiers", 0) or 0)
    if stack is not None:
        opts.storage_goal, opts.storage_path = stack_storage(stack)
    gpus = int(inv.var("fabric_health_gpus_per_host", 8) or 8)
    launcher = nccl_launcher(
        runner,
        gpus,
        str(inv.var("fabric_health_mpirun", "mpirun")),
        str(inv.var("certify_nccl_tests_dir", "/opt/gpufabric/nccl-tests/build")),
        work,
    )
    bench = storage_bench(inventory, work)
    return certify(
        inv, runner, holder, doctor(inventory, work), launcher, opts, RichProgress(), bench
    )


def _argv() -> list[str]:
    import sys

    return sys.argv[2:] if len(sys.argv) > 2 else []


@app.command("compare")
def compare(
    old: Annotated[Path, typer.Argument(help="An earlier certify.json")],
    new: Annotated[Path, typer.Argument(help="A later certify.json (or another cloud's)")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the lines as a JSON list")] = False,
) -> None:
    """The difference between two scorecards: verdict, efficiencies, nodes that changed."""
    from gpufabric.certify.scorecard import compare as diff
    from gpufabric.certify.scorecard import from_ctrf
    from gpufabric.inputs.formats import load_json

    docs = [
        from_ctrf(load_json(p, what=label), str(p)) for label, p in (("OLD", old), ("NEW", new))
    ]
    lines = diff(docs[0], docs[1])
    typer.echo(json.dumps(lines, indent=2) if as_json else "\n".join(lines))
