"""Parse `nvidia-smi topo -m`: GPUs, NICs, the link kind between each pair, CPU/NUMA affinity.

Handles the shapes seen in real captures (nvidia-smi-topo/): with or without NIC columns and
NIC Legend, tab- or space-separated, a header with or without leading indentation, the newer
"GPU NUMA ID" column, and trailing spaces.
"""

from __future__ import annotations

import re

from gpufabric.errors import UserError
from gpufabric.facts.models import GpuTopology, TopoGpu, TopoNic
from gpufabric.inputs.types import digits

_DEVICE = re.compile(r"^(GPU|NIC)(\d+)$")
_LEGEND = re.compile(r"^\s*(NIC\d+):\s*(\S+)\s*$")
_TRAILING = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")


def parse(text: str) -> GpuTopology:
    """Parse the matrix; an empty text (no nvidia-smi) gives an empty topology."""
    lines = text.splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.split()[:1] == ["GPU0"]), None)
    if header_at is None:
        if text.strip():
            raise UserError("nvidia-smi topo -m: no header row starting with GPU0 found")
        return GpuTopology(gpus=(), nics=())
    header = lines[header_at]
    columns = [tok for tok in header.split() if _DEVICE.match(tok)]
    extras = [name for name in _TRAILING if name in header]
    legend = {m.group(1): m.group(2) for line in lines if (m := _LEGEND.match(line))}

    gpus: list[TopoGpu] = []
    nics: list[TopoNic] = []
    for line in lines[header_at + 1 :]:
        tokens = line.split()
        if not tokens:
            continue
        m = _DEVICE.match(tokens[0])
        if m is None:
            break  # the Legend (or anything after the matrix) ends it
        cells = tokens[1 : 1 + len(columns)]
        if len(cells) != len(columns):
            raise UserError(
                f"nvidia-smi topo -m: row {tokens[0]} has {len(cells)} link cells, "
                f"expected {len(columns)}"
            )
        links = {col: cell for col, cell in zip(columns, cells, strict=True) if col != tokens[0]}
        if m.group(1) == "GPU":
            rest = dict(zip(extras, tokens[1 + len(columns) :], strict=False))
            gpus.append(
                TopoGpu(
                    name=tokens[0],
                    index=int(m.group(2)),
                    cpu_affinity=rest.get("CPU Affinity", ""),
                    numa_node=_numa(rest.get("NUMA Affinity")),
                    links=links,
                )
            )
        else:
            nics.append(
                TopoNic(
                    name=tokens[0],
                    index=int(m.group(2)),
                    device=legend.get(tokens[0], tokens[0]),
                    links=links,
                )
            )
    return GpuTopology(gpus=tuple(gpus), nics=tuple(nics))


def _numa(value: str | None) -> int | None:
    """NUMA Affinity is a single node ("0"), a range ("0-1") or a list; keep the first node.
    N/A, or the column missing, is None."""
    first = (value or "").split("-")[0].split(",")[0]
    return int(first) if digits(first) else None
