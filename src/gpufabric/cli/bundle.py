"""`gpufabric bundle`: the configuration bundle, the node user data, the day-2 fan-out."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

import typer

from gpufabric.bundle import fanout, render, userdata
from gpufabric.errors import UserError

app = typer.Typer(
    help="Nodes configure themselves: render the stack's bundle, its node user data, and run "
    "a new bundle on every node through clush or srun.",
    no_args_is_help=True,
)
REPO = Path(__file__).resolve().parents[3]


@app.command("render")
def render_cmd(
    outputs: Annotated[
        Path, typer.Option("--outputs", help="`pulumi stack output --json --show-secrets` saved")
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the bundle into")] = Path(
        "bundles"
    ),
    playbook: Annotated[
        list[str] | None, typer.Option("--playbook", help="Playbook(s) to run (tune-fabric.yml)")
    ] = None,
    skip_tag: Annotated[
        list[str] | None, typer.Option("--skip-tag", help="Tags not run at boot (topology)")
    ] = None,
    wheels: Annotated[
        Path | None, typer.Option("--wheels", help="Folder of wheels for nodes without an index")
    ] = None,
) -> None:
    """Render the versioned, content-hashed bundle of a stack (one per stack outputs)."""
    from gpufabric.inventory import outputs as read_outputs

    spec = render.spec_from_outputs(
        read_outputs.load_file(outputs),
        tuple(playbook or render.DEFAULT_PLAYBOOKS),
        tuple(render.DEFAULT_SKIP_TAGS if skip_tag is None else skip_tag),
    )
    bundle = render.render(spec, REPO, out, wheels)
    typer.echo(f"{bundle.path}\nsha256 {bundle.sha256}\nversion {bundle.version}")


@app.command("user-data")
def user_data(
    bundle: Annotated[Path, typer.Option("--bundle", help="The rendered bundle file")],
    url: Annotated[str, typer.Option("--url", help="Where the nodes fetch it (https or file)")],
    group: Annotated[str, typer.Option("--group", help="The node group this user data is for")],
    runtime: Annotated[
        str, typer.Option("--runtime", help="wheels | index | python:/PATH (node's Ansible)")
    ] = "index",
) -> None:
    """Print the node user data (#cloud-config) that fetches, checks and runs the bundle."""
    cfg = userdata.boot_config(render.load(bundle), url, group, runtime)
    typer.echo(userdata.render(cfg), nl=False)


@app.command("fanout")
def fanout_cmd(
    engine: Annotated[str, typer.Option("--engine", help="clush | srun")],
    nodes: Annotated[str, typer.Option("--nodes", help="Comma-separated node names")],
    url: Annotated[str, typer.Option("--bundle", help="URL of the new bundle")],
    sha256: Annotated[str, typer.Option("--sha256", help="Its sha256")],
    topology: Annotated[
        Path | None, typer.Option("--topology", help="clush tree mode: ClusterShell topology.conf")
    ] = None,
    width: Annotated[
        int | None, typer.Option("--fanout", min=1, help="clush: connections at once")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the command only")] = False,
) -> None:
    """Day 2: every node runs the new bundle locally, launched by clush or srun."""
    hosts = [h for h in nodes.split(",") if h]
    argv = fanout.command(engine, hosts, url, sha256, str(topology) if topology else None, width)
    if dry_run:
        typer.echo(" ".join(argv))
        return
    try:
        code = subprocess.run(argv, check=False).returncode
    except FileNotFoundError:
        raise UserError(f"{argv[0]} is not installed (docs/scale.md)") from None
    raise typer.Exit(code)
