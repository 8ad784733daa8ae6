"""`gpufabric lab ...`: real Linux test hosts on this machine (netns + systemd-nspawn)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpufabric.errors import UserError
from gpufabric.inputs.files import read_text
from gpufabric.lab import faults, lab, network
from gpufabric.lab import summary as lab_summary
from gpufabric.lab.layout import DEFAULT_NAME

app = typer.Typer(
    help="Real Linux test hosts on this machine, joined by leaf bridges and a spine (needs root).",
    no_args_is_help=True,
)

NameOpt = Annotated[
    str,
    typer.Option(
        "--name",
        envvar="GPUFABRIC_LAB_NAME",
        help="Lab name: separate labs (namespaces, addresses, files) coexist",
    ),
]


def _say(msg: str) -> None:
    typer.echo(msg, err=True)


@app.command("up")
def up(
    nodes: Annotated[int, typer.Option("--nodes", help="Number of hosts (1-64)")] = 4,
    leaves: Annotated[int, typer.Option("--leaves", help="Number of leaf switches (1-8)")] = 2,
    spine_rate: Annotated[
        str | None,
        typer.Option("--spine-rate", help="Shape the spine to this tc rate, e.g. 1gbit"),
    ] = None,
    name: NameOpt = DEFAULT_NAME,
    boot: Annotated[
        bool,
        typer.Option(
            "--boot",
            help="Hosts configure themselves at first boot: cloud-init (NoCloud seed) runs the "
            "node user data, which fetches the lab's bundle, checks its sha256 and runs "
            "tune-fabric with ansible-playbook -c local",
        ),
    ] = False,
) -> None:
    """Start the lab's hosts and write its Ansible inventory."""
    res = lab.up(name, nodes, leaves, spine_rate, progress=_say, boot=boot)
    lay = res.state.layout
    typer.echo(
        f"lab {name!r} up in {res.seconds:.1f} s: {len(lay.hosts)} hosts, "
        f"{len(lay.leaves)} leaves, spine {res.state.spine_rate or 'unshaped'}"
    )
    for h in lay.hosts:
        typer.echo(f"  {h.name:<4} {h.address:<15} {h.leaf:<7} systemd {res.boot[h.name]}")
    if boot:
        for hs in lab.host_status(res.state):
            typer.echo(f"  {hs.name:<4} {hs.configured}: {hs.why}")
    typer.echo(f"inventory: {res.paths.inventory}")
    typer.echo(
        f'next: ansible-playbook -i "$(gpufabric lab inventory --name {name})" '
        "playbooks/tune-fabric.yml"
    )


@app.command("down")
def down(name: NameOpt = DEFAULT_NAME) -> None:
    """Stop the hosts and remove every namespace, mount and file the lab made."""
    removed = lab.down(name)
    if removed:
        typer.echo(f"lab {name!r} down: removed {len(removed)} items")
    else:
        typer.echo(f"lab {name!r} is not up; nothing to remove")


@app.command("status")
def status(name: NameOpt = DEFAULT_NAME) -> None:
    """Hosts, addresses, leaves, systemd state and spine shaping of a lab."""
    lab.check_root()
    st, paths = lab.load_up(name)
    lay = st.layout
    typer.echo(
        f"lab {name!r}: {st.phase}, {lay.subnet}, {len(lay.hosts)} hosts, {len(lay.leaves)} leaves"
    )
    for hs in lab.host_status(st):
        fault = ",".join(st.faults.get(hs.name, []))
        typer.echo(
            f"  {hs.name:<4} {hs.address:<15} {hs.leaf:<7} "
            f"{'running' if hs.running else 'STOPPED':<8} systemd {hs.systemd}"
            + (f"  FAULT {fault}" if fault else "")
            + (f"  {hs.configured.upper()}: {hs.why}" if hs.configured else "")
        )
    qd = network.spine_qdiscs(lay)
    shaped = [dev for dev, line in qd.items() if line.startswith("qdisc tbf")]
    typer.echo(
        f"spine: {st.spine_rate or 'unshaped'} ({len(shaped)}/{len(qd)} uplink ends with tbf)"
    )
    typer.echo(f"inventory: {paths.inventory}")


@app.command("inventory")
def inventory(name: NameOpt = DEFAULT_NAME) -> None:
    """Print the path of the lab's Ansible inventory (for `ansible-playbook -i`)."""
    _st, paths = lab.load_up(name)
    if not paths.inventory.is_file():
        raise UserError(f"lab {name!r} has no inventory yet (still starting?)")
    typer.echo(str(paths.inventory))


@app.command("summary")
def summary(
    recap: Annotated[
        Path | None,
        typer.Option(
            "--recap",
            help="Output of the ansible-playbook run (for its PLAY RECAP); - for standard input",
        ),
    ] = None,
    name: NameOpt = DEFAULT_NAME,
) -> None:
    """Per host: the playbook recap and the files Ansible manages under /etc."""
    lab.check_root()
    st, _paths = lab.load_up(name)
    counts: dict[str, dict[str, int]] = {}
    if recap is not None:
        text = read_text(recap, what="ansible-playbook output")  # `-`: standard input
        counts = lab_summary.parse_recap(text)
    files = {h.name: lab_summary.managed_files(st, h.name) for h in st.layout.hosts}
    typer.echo(lab_summary.render(st, counts, files), nl=False)


@app.command("fault")
def fault(
    host: Annotated[str, typer.Argument(help="Lab host, e.g. h3")],
    kind: Annotated[str, typer.Argument(help="slow-link | mtu | link-down | flap")],
    rate: Annotated[str, typer.Option("--rate", help="slow-link: tc rate both ways")] = (
        faults.DEFAULT_RATE
    ),
    mtu: Annotated[int, typer.Option("--mtu", help="mtu: the host's new eth0 MTU")] = (
        faults.DEFAULT_MTU
    ),
    flaps: Annotated[int, typer.Option("--flaps", help="flap: down/up cycles")] = (
        faults.DEFAULT_FLAPS
    ),
    name: NameOpt = DEFAULT_NAME,
) -> None:
    """Break a host's link on purpose (heal it with `lab restart HOST`)."""
    typer.echo(faults.fault(name, host, kind, rate, mtu, flaps))


@app.command("restart")
def restart(
    host: Annotated[str, typer.Argument(help="Lab host, e.g. h3")],
    name: NameOpt = DEFAULT_NAME,
) -> None:
    """Stop a host (if running), give it a fresh link (heals every fault) and boot it again."""
    _st, boot = faults.restart(name, host)
    typer.echo(f"{host}: restarted with a fresh link, systemd {boot}")
