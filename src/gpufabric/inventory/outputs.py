"""The stack outputs the inventory needs (src/gpufabric/clouds/outputs.py shape), validated."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gpufabric.errors import UserError


class Discovery(BaseModel):
    model_config = ConfigDict(extra="allow")

    filters: dict[str, str] = Field(default_factory=dict)
    hostname: Literal["private-ip-address", "private-dns-name", "instance-id"] = (
        "private-ip-address"
    )


class InventoryInfo(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    cloud: Literal["aws", "gcp", "azure"]
    region: str = ""
    zone: str = ""
    cluster: str = Field(min_length=1)
    instance_type: str = Field(alias="instanceType", default="")
    fabric: Literal["efa", "infiniband", "roce", "tcpxo", "lab"]
    encryption: Literal["provider-native", "ipsec", "none"]
    gpus_per_node: int = Field(alias="gpusPerNode", default=0)
    discovery: Discovery = Field(default_factory=Discovery)
    leaves: dict[str, str] = Field(default_factory=dict)  # address/host -> leaf, where known


class StackOutputs(BaseModel):
    model_config = ConfigDict(extra="allow")

    addresses: list[str] = Field(default_factory=list)
    inventory: InventoryInfo


def parse(data: Any, origin: str = "stack outputs") -> StackOutputs:
    """Validate decoded outputs; a bad or missing key is one line naming it."""
    if not isinstance(data, dict):
        raise UserError(f"{origin}: expected a JSON object of stack outputs")
    try:
        return StackOutputs.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise UserError(f"{origin}: {where}: {err['msg']}") from None


def load_file(path: str | Path) -> StackOutputs:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise UserError(f"outputs file {p}: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"outputs file {p}: not JSON ({exc.msg} at line {exc.lineno})") from None
    return parse(data, f"outputs file {p}")


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


def with_leaves(outputs: StackOutputs, leaves: dict[str, str]) -> StackOutputs:
    """The outputs with a leaf map merged in (the map wins over the outputs' own)."""
    info = outputs.inventory.model_copy(update={"leaves": {**outputs.inventory.leaves, **leaves}})
    return outputs.model_copy(update={"inventory": info})


def load_stack(stack: str, cwd: str | Path | None = None) -> StackOutputs:
    """Run `pulumi stack output --json -s STACK` (needs the Pulumi CLI and a logged-in backend)."""
    pulumi = shutil.which("pulumi")
    if pulumi is None:
        raise UserError(
            "stack: the pulumi CLI is not installed; pass an outputs file instead "
            "(pulumi stack output --json > outputs.json)"
        )
    proc = subprocess.run(
        [pulumi, "stack", "output", "--json", "--stack", stack],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        timeout=120,
    )
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["no output"])[0]
        raise UserError(f"stack {stack}: pulumi stack output failed: {first}")
    return parse(json.loads(proc.stdout), f"stack {stack}")
