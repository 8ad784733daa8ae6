"""One entry point from (source, recorded input) to a Topology."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from gpufabric.errors import UserError
from gpufabric.extras import require
from gpufabric.topology.files import read_data, read_names, read_text
from gpufabric.topology.model import Topology, apply_names
from gpufabric.topology.sources import aws, file, gcp, ib, nebius, oci

SOURCES = ("aws", "gcp", "oci", "nebius", "ib", "file")
RECORDED = {
    "gcp": "`gcloud compute instances list --format=json` or physical_host values",
    "oci": "OCI compute host list (ListComputeCapacityTopologyComputeBareMetalHosts / "
    "ListComputeHosts) or rdmaTopologyData per node",
    "nebius": "`nebius compute instance list --format json`, a GPU cluster, or IMDS instance-data",
    "file": "JSON/YAML topology",
}


def load(
    source: str,
    input_path: Path | None = None,
    names_path: Path | None = None,
    region: str | None = None,
    instance_ids: Sequence[str] | None = None,
    name_by: str = "instance-id",
) -> Topology:
    """Read a recorded response/output (or discover live for aws and ib)."""
    if source not in SOURCES:
        raise UserError(f"--source {source!r}: choose one of {', '.join(SOURCES)}")
    if name_by not in ("instance-id", "private-dns"):
        raise UserError(f"--name-by {name_by!r}: choose instance-id or private-dns")
    names = read_names(names_path) if names_path else None
    origin = str(input_path) if input_path else source
    if source == "aws":
        if input_path is not None:
            return aws.parse(read_data(input_path), names, origin)
        return _aws_live(region, instance_ids, names, name_by)
    if source in ("oci", "nebius"):  # ids too long or not node names: names apply in parse
        if input_path is None:
            raise UserError(f"--source {source} needs --input FILE (a recorded {RECORDED[source]})")
        parser = oci.parse if source == "oci" else nebius.parse
        return parser(read_data(input_path), names, origin)
    if source == "ib":
        text = read_text(input_path) if input_path else _run_ibnetdiscover()
        topology = ib.parse(text, origin)
    elif input_path is None:
        raise UserError(f"--source {source} needs --input FILE (a recorded {RECORDED[source]})")
    elif source == "gcp":
        topology = gcp.parse(read_data(input_path), origin)
    else:
        topology = file.parse(read_data(input_path), origin)
    return apply_names(topology, names) if names else topology


def _aws_live(
    region: str | None,
    instance_ids: Sequence[str] | None,
    names: dict[str, str] | None,
    name_by: str,
) -> Topology:
    require("boto3", "live AWS topology discovery (--source aws without --input)")
    import boto3  # only for live discovery: recorded input needs no AWS SDK session
    from botocore.exceptions import BotoCoreError

    try:
        client = boto3.client("ec2", region_name=region)
    except BotoCoreError as exc:
        raise UserError(f"aws: cannot create an EC2 client: {exc}") from None
    return aws.discover(client, instance_ids, None, names, name_by)


def _run_ibnetdiscover() -> str:
    exe = shutil.which("ibnetdiscover")
    if exe is None:
        raise UserError("ibnetdiscover is not installed here; pass --input with its saved output")
    try:
        done = subprocess.run([exe], capture_output=True, text=True, timeout=600, check=False)
    except subprocess.TimeoutExpired:
        raise UserError("ibnetdiscover did not finish within 600 s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError(f"ibnetdiscover failed (exit {done.returncode}): {last}")
    return done.stdout
