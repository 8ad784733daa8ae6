"""`gpufabric topology`: discover the network, order the ranks, emit scheduler topology."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gpufabric import jsonout
from gpufabric.errors import UserError
from gpufabric.topology.emit import hostfile, kubernetes, slurm, topology_file
from gpufabric.topology.files import read_text
from gpufabric.topology.load import describe, load
from gpufabric.topology.model import Host, Topology
from gpufabric.topology.order import address_order, topology_order
from gpufabric.topology.parallel import Parallelism
from gpufabric.topology.score import Score, score_order

app = typer.Typer(
    help="Discover the network topology, order ranks by it, and emit Slurm / hostfile / "
    "Kubernetes topology.",
    no_args_is_help=True,
)

RENDER_FORMATS = (
    "slurm-tree",
    "slurm-block",
    "slurm-yaml",
    "hostfile",
    "k8s-labels",
    "kueue-topology",
    "json",
)
ORDER_FORMATS = ("hostfile", "json")

SourceOpt = Annotated[
    str,
    typer.Option(
        "--source",
        help="A cloud with a topology source (recorded, or live where it can), ib or file; "
        "`gpufabric topology sources` lists them",
    ),
]
InputOpt = Annotated[
    Path | None,
    typer.Option(
        "--input",
        "-i",
        help="Recorded input of the source (`gpufabric topology sources` says what each "
        "reads); - for standard input",
    ),
]
NamesOpt = Annotated[
    Path | None,
    typer.Option("--names", help="Map of instance id (or host) -> node name; others left out"),
]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write here instead of stdout")
]
TpOpt = Annotated[int, typer.Option("--tp", help="Tensor-parallel size (inside a node)")]
CpOpt = Annotated[int, typer.Option("--cp", help="Context-parallel size")]
EpOpt = Annotated[int, typer.Option("--ep", help="Expert-parallel size")]
PpOpt = Annotated[int, typer.Option("--pp", help="Pipeline-parallel size")]
DpOpt = Annotated[
    int | None, typer.Option("--dp", help="Data-parallel size (default: fills the nodes)")
]
GpnOpt = Annotated[int, typer.Option("--gpus-per-node", min=1, help="GPUs (ranks) per node")]
LayoutOpt = Annotated[
    bool,
    typer.Option(
        "--layout/--ring",
        help="Order for the Megatron layout given by --tp/--cp/--ep/--dp/--pp "
        "(default: one ring over all nodes)",
    ),
]


def _write(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{output}: cannot write ({exc.strerror})") from None


def _parallelism(
    layout: bool, tp: int, cp: int, ep: int, dp: int | None, pp: int, gpn: int
) -> Parallelism | None:
    if not layout:
        if (tp, cp, ep, dp, pp) != (1, 1, 1, None, 1):
            raise UserError("--tp/--cp/--ep/--dp/--pp need --layout")
        return None
    return Parallelism(tp=tp, cp=cp, ep=ep, dp=dp, pp=pp, gpus_per_node=gpn)


def _block_sizes(text: str | None) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise UserError(f"--block-sizes {text!r}: expected comma-separated integers") from None


def _report_skipped(topology: Topology) -> None:
    if topology.unplaced:
        shown = ", ".join(topology.unplaced[:10]) + (" ..." if len(topology.unplaced) > 10 else "")
        typer.echo(
            f"note: {len(topology.unplaced)} nodes have no topology information "
            f"(kept under switch no-topology in Slurm output): {shown}",
            err=True,
        )
    if topology.skipped:
        first = topology.skipped[0]
        typer.echo(
            f"note: left out {len(topology.skipped)} entries without usable topology "
            f"(first: {first[0]}: {first[1]})",
            err=True,
        )


@app.command()
def sources(
    as_json: Annotated[bool, typer.Option("--json", help="Print them as JSON")] = False,
) -> None:
    """List the topology sources (what --input reads, how the topology role gathers each) and
    the Kubernetes label schemes."""
    described = describe()
    schemes = list(kubernetes.label_schemes())
    if as_json:
        typer.echo(jsonout.dumps({"sources": described, "label_schemes": schemes}, indent=2))
        return
    table = Table(title="topology sources")
    for column in ("source", "topology role gathers", "--input reads"):
        table.add_column(column)
    for item in described:
        table.add_row(str(item["name"]), str(item["gather"]), str(item["input"]))
    Console(width=160).print(table)
    typer.echo(f"label schemes (--label-scheme): {', '.join(schemes)}")


@app.command()
def discover(
    source: SourceOpt,
    input_path: InputOpt = None,
    names: NamesOpt = None,
    region: Annotated[
        str | None, typer.Option(help="Region, for live discovery through the cloud's API")
    ] = None,
    instance_id: Annotated[
        list[str] | None,
        typer.Option("--instance-id", help="Limit live discovery to these instance ids"),
    ] = None,
    name_by: Annotated[
        str, typer.Option(help="Node names of live discovery: instance-id or private-dns")
    ] = "instance-id",
    output: OutputOpt = None,
) -> None:
    """Read the topology (live, or from --input) and write it as gpufabric JSON."""
    topology = load(source, input_path, names, region, instance_id, name_by)
    _report_skipped(topology)
    _write(topology_file.topology_json(topology), output)


@app.command()
def render(
    source: SourceOpt,
    input_path: InputOpt = None,
    names: NamesOpt = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help=f"One of: {', '.join(RENDER_FORMATS)}")
    ] = "slurm-tree",
    block_sizes: Annotated[
        str | None, typer.Option(help="Slurm BlockSizes, e.g. 18,36 (default: inferred)")
    ] = None,
    hostfile_style: Annotated[
        str, typer.Option(help=f"One of: {', '.join(hostfile.HOSTFILE_STYLES)}")
    ] = "plain",
    slots: Annotated[int, typer.Option(min=1, help="Slots (ranks) per node in hostfiles")] = 8,
    label_scheme: Annotated[
        str,
        typer.Option(
            help="Label keys for k8s-labels / kueue-topology: gpufabric, topograph "
            "(NVIDIA/topograph), or a cloud's own (`gpufabric topology sources` lists them)"
        ),
    ] = "gpufabric",
    kueue_api: Annotated[
        str, typer.Option(help="Kueue Topology API: v1beta2, or v1beta1 for Kueue 0.14-0.15")
    ] = "v1beta2",
    output: OutputOpt = None,
) -> None:
    """Emit the topology for a scheduler or launcher."""
    if label_scheme not in kubernetes.label_schemes():
        raise UserError(
            f"--label-scheme {label_scheme!r}: choose one of {', '.join(kubernetes.label_schemes())}"
        )
    if kueue_api not in kubernetes.KUEUE_APIS:
        raise UserError(
            f"--kueue-api {kueue_api!r}: choose one of {', '.join(kubernetes.KUEUE_APIS)}"
        )
    if fmt not in RENDER_FORMATS:
        raise UserError(f"--format {fmt!r}: choose one of {', '.join(RENDER_FORMATS)}")
    sizes = _block_sizes(block_sizes)
    topology = load(source, input_path, names)
    _report_skipped(topology)
    text = {
        "slurm-tree": lambda: slurm.tree_conf(topology),
        "slurm-block": lambda: slurm.block_conf(topology, sizes),
        "slurm-yaml": lambda: slurm.topology_yaml(topology, sizes),
        "hostfile": lambda: hostfile.hostfile(topology_order(topology), hostfile_style, slots),
        "k8s-labels": lambda: kubernetes.k8s_labels(topology, label_scheme),
        "kueue-topology": lambda: kubernetes.kueue_topology(
            topology, api=kueue_api, scheme=label_scheme
        ),
        "json": lambda: topology_file.topology_json(topology),
    }[fmt]()
    _write(text, output)


@app.command()
def order(
    source: SourceOpt,
    input_path: InputOpt = None,
    names: NamesOpt = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help=f"One of: {', '.join(ORDER_FORMATS)}")
    ] = "hostfile",
    hostfile_style: Annotated[
        str, typer.Option(help=f"One of: {', '.join(hostfile.HOSTFILE_STYLES)}")
    ] = "plain",
    layout: LayoutOpt = False,
    tp: TpOpt = 1,
    cp: CpOpt = 1,
    ep: EpOpt = 1,
    dp: DpOpt = None,
    pp: PpOpt = 1,
    gpus_per_node: GpnOpt = 8,
    output: OutputOpt = None,
) -> None:
    """Print the nodes in rank order (topology-aware)."""
    if fmt not in ORDER_FORMATS:
        raise UserError(f"--format {fmt!r}: choose one of {', '.join(ORDER_FORMATS)}")
    topology = load(source, input_path, names)
    _report_skipped(topology)
    parallelism = _parallelism(layout, tp, cp, ep, dp, pp, gpus_per_node)
    ranked = topology_order(topology, parallelism)
    if fmt == "hostfile":
        _write(hostfile.hostfile(ranked, hostfile_style, gpus_per_node), output)
    else:
        _write(topology_file.topology_json(topology, ranked), output)


def _read_order(path: Path, topology: Topology) -> list[Host]:
    """Hosts of a hostfile in order (first word per line; repeated lines collapse)."""
    index = topology.by_name()
    names: list[str] = []
    for line in read_text(path, "a hostfile").splitlines():
        word = line.split("#", 1)[0].split()
        if word and (not names or names[-1] != word[0]):
            names.append(word[0])
    unknown = [n for n in names if n not in index]
    if unknown:
        raise UserError(f"{path}: host {unknown[0]!r} is not in the topology")
    if len(set(names)) != len(names) or set(names) != set(index):
        raise UserError(f"{path}: must list every host of the topology exactly once")
    return [index[n] for n in names]


@app.command()
def score(
    source: SourceOpt,
    input_path: InputOpt = None,
    names: NamesOpt = None,
    order_file: Annotated[Path | None, typer.Option(help="Score this hostfile's order too")] = None,
    message_bytes: Annotated[
        float, typer.Option(help="All-reduce message size per rank, bytes")
    ] = float(1 << 30),
    layout: LayoutOpt = False,
    tp: TpOpt = 1,
    cp: CpOpt = 1,
    ep: EpOpt = 1,
    dp: DpOpt = None,
    pp: PpOpt = 1,
    gpus_per_node: GpnOpt = 8,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scores as JSON")] = False,
    output: OutputOpt = None,
) -> None:
    """Score rank orders: leaves touched, cross-leaf ring edges, spine bytes vs lower bounds."""
    topology = load(source, input_path, names)
    _report_skipped(topology)
    parallelism = _parallelism(layout, tp, cp, ep, dp, pp, gpus_per_node)
    orders = {
        "topology": topology_order(topology, parallelism),
        "address-sorted": address_order(topology),
    }
    if order_file is not None:
        orders[str(order_file)] = _read_order(order_file, topology)
    scored = {k: score_order(topology, v, parallelism, message_bytes) for k, v in orders.items()}
    if as_json:
        doc = {
            "nodes": len(topology.hosts),
            "leaves": len(topology.leaves()),
            "scores": [asdict(s) for s in scored["topology"]],
            "orders": {k: [asdict(s) for s in v] for k, v in scored.items()},
        }
        _write(jsonout.dumps(doc, indent=2) + "\n", output)
        return
    table = Table(title=f"{len(topology.hosts)} nodes, {len(topology.leaves())} leaves")
    for column in (
        "order",
        "group",
        "leaves",
        "bound",
        "cross-leaf edges",
        "bound",
        "spine GiB",
        "bound",
    ):
        table.add_column(column, justify="left" if column in ("order", "group") else "right")
    for label, scores in scored.items():
        for s in scores:
            table.add_row(label, *_cells(s))
    if output is not None:
        raise UserError("--output needs --json for score")
    Console(width=160).print(table)


def _cells(s: Score) -> list[str]:
    gib = float(1 << 30)
    return [
        f"{s.group} x{s.groups}",
        str(s.leaves_touched),
        str(s.leaves_bound),
        str(s.cross_leaf_edges),
        str(s.cross_leaf_bound),
        f"{s.spine_bytes / gib:.1f}",
        f"{s.spine_bytes_bound / gib:.1f}",
    ]
