"""Ordered hostfiles for launchers (mpirun, torchrun, srun), one node per line in rank order."""

from __future__ import annotations

from collections.abc import Sequence

from gpufabric.errors import ArgumentError
from gpufabric.inputs import writers
from gpufabric.topology.model import Host

HOSTFILE_STYLES = ("plain", "mpirun", "torchrun", "srun")


def hostfile(order: Sequence[Host], style: str = "plain", slots: int = 8) -> str:
    """One line per node in rank order.

    plain / torchrun: the name (line i = --node-rank i); mpirun: `name slots=N` (Open MPI fills
    ranks by slot in file order); srun: the name once per task, for SLURM_HOSTFILE with
    `srun --distribution=arbitrary`.
    """
    if style not in HOSTFILE_STYLES:
        raise ArgumentError(
            "hostfile_style", f"choose one of {', '.join(HOSTFILE_STYLES)}", value=repr(style)
        )
    if slots < 1:
        raise ArgumentError("slots", "must be at least 1", value=str(slots))
    names = writers.hostfile(h.name for h in order)
    if style == "mpirun":
        lines = [f"{name} slots={slots}" for name in names]
    elif style == "srun":
        lines = [name for name in names for _ in range(slots)]
    else:
        lines = names
    return "\n".join(lines) + "\n"
