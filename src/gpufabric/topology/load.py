"""One entry point from (source, recorded input) to a Topology."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from gpufabric.clouds import registry
from gpufabric.errors import Arg, ArgumentError, UserError
from gpufabric.inputs.formats import parse_json
from gpufabric.topology.files import read_data, read_names, read_text
from gpufabric.topology.model import Topology, apply_names
from gpufabric.topology.sources import file, ib

FABRIC_SOURCES = ("ib", "file")
"""Sources that belong to no cloud: the InfiniBand fabric itself and a plain file."""


def sources() -> tuple[str, ...]:
    """Every source: each cloud that has a topology module, then the fabric's own."""
    return (*(n for n in registry.names() if registry.has_module(n, "topology")), *FABRIC_SOURCES)


FABRIC_INPUTS = {"ib": "ibnetdiscover output", "file": "JSON/YAML topology"}


def input_of(source: str) -> str:
    """What --input holds for this source (a cloud's is what its spec declares)."""
    return FABRIC_INPUTS.get(source) or registry.get(source).topology_input


def gather_of(source: str) -> str:
    """How the topology role gathers this source: node-metadata (each node reads its metadata
    service), controller (the controller asks the cloud's API: topology.live), ibnetdiscover
    (on one node of the fabric) or recorded (a file the user gives)."""
    if source == "ib":
        return "ibnetdiscover"
    if source in FABRIC_SOURCES:
        return "recorded"
    if registry.get(source).topology_metadata is not None:
        return "node-metadata"
    return "controller" if hasattr(registry.module(source, "topology"), "live") else "recorded"


class MetadataInfo(TypedDict):
    url: str
    headers: dict[str, str]
    document: str


class SourceInfo(TypedDict):
    name: str
    gather: str
    input: str
    metadata: MetadataInfo | None


def describe() -> list[SourceInfo]:
    """Every source as `gpufabric topology sources --json` prints it (the topology role reads
    it): name, how it is gathered, what --input holds, and the node metadata it reads."""
    out: list[SourceInfo] = []
    for source in sources():
        meta = None if source in FABRIC_SOURCES else registry.get(source).topology_metadata
        metadata = None
        if meta is not None:
            metadata = MetadataInfo(
                url=meta.url, headers=dict(meta.headers), document=meta.document
            )
        out.append(
            SourceInfo(
                name=source, gather=gather_of(source), input=input_of(source), metadata=metadata
            )
        )
    return out


def _needs_input(source: str) -> UserError:
    return UserError(
        Arg("source"), f" {source} needs ", Arg("input"), f" FILE (a recorded {input_of(source)})"
    )


def load(
    source: str,
    input_path: Path | None = None,
    names_path: Path | None = None,
    region: str | None = None,
    instance_ids: Sequence[str] | None = None,
    name_by: str = "instance-id",
) -> Topology:
    """Read a recorded response/output (or discover live where the source can)."""
    known = sources()
    if source not in known:
        raise ArgumentError("source", f"choose one of {', '.join(known)}", value=repr(source))
    if name_by not in ("instance-id", "private-dns"):
        raise ArgumentError("name_by", "choose instance-id or private-dns", value=repr(name_by))
    names = read_names(names_path) if names_path else None
    origin = str(input_path) if input_path else source
    if source not in FABRIC_SOURCES:
        cloud = registry.module(source, "topology")
        if input_path is not None:
            return cloud.load(read_data(input_path), names, origin)
        if not hasattr(cloud, "live"):
            raise _needs_input(source)
        return cloud.live(region, instance_ids, names, name_by)
    if source == "ib":
        text = read_text(input_path) if input_path else _run_ibnetdiscover()
        topology = ib.parse(text, origin)
    elif input_path is None:
        raise _needs_input(source)
    else:
        topology = file.parse(read_data(input_path), origin)
    return apply_names(topology, names) if names else topology


def _run_ibnetdiscover() -> str:
    exe = shutil.which("ibnetdiscover")
    if exe is None:
        raise UserError(
            "ibnetdiscover is not installed here; pass ", Arg("input"), " with its saved output"
        )
    try:
        done = subprocess.run([exe], capture_output=True, text=True, timeout=600, check=False)
    except subprocess.TimeoutExpired:
        raise UserError("ibnetdiscover did not finish within 600 s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(f"ibnetdiscover failed (exit {done.returncode}): {last}")
    return done.stdout


def node_reports(
    source: str, answers: Mapping[str, object], *, json_documents: bool
) -> dict[str, object]:
    """What each node reported about its place in the fabric (its metadata server's answer,
    keyed by node), checked before the topology role writes it down: a node's report is
    untrusted input. JSON documents are parsed strictly (gpufabric.inputs), then the whole set
    goes through the source's own parser and the topology model, so an id with a newline, a
    host name no scheduler can hold or a document of the wrong shape is refused naming the node
    and the field. Returns the reports (parsed where they were JSON) to write."""
    if source not in sources() or source in FABRIC_SOURCES:
        raise UserError(f"node reports: {source!r} is not a cloud topology source")
    reports: dict[str, object] = {}
    for node, answer in answers.items():
        where = f"node {node}: {source} instance metadata"
        if not isinstance(answer, str):
            raise UserError(f"{where}: no answer (got {type(answer).__name__})")
        reports[str(node)] = parse_json(answer, where=where) if json_documents else answer
    registry.module(source, "topology").load(reports, None, "node reports")
    return reports
