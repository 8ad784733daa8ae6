"""What NCCL itself accepts: the (collective, algorithm, protocol) combinations it can run.

NCCL marks the others IGNORE in its cost table (NVIDIA/nccl src/graph/tuning.cc
ncclTopoTuneModel, src/enqueue.cc updateCollCostTable; same rules at v2.27.7-1 and v2.30.7):
a tuner line naming one is skipped, and a forced NCCL_ALGO/NCCL_PROTO run of one fails. The sweep
planner and the tuner-file check both ask `ignored`, so neither plans nor accepts what NCCL
cannot run.
"""

from __future__ import annotations

# Names of NVIDIA/nccl plugins/tuner/example/plugin.c (parseCollType / parseAlgorithm /
# parseProtocol).
COLLECTIVES = ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")
ALGORITHMS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat")
PROTOCOLS = ("ll", "ll128", "simple")

# Which collectives each algorithm implements (tuning.cc: the per-collective algorithm loops).
ALGORITHM_COLLECTIVES: dict[str, tuple[str, ...]] = {
    "ring": COLLECTIVES,
    "tree": ("allreduce",),
    "collnet_direct": ("allreduce", "allgather", "reducescatter"),
    "collnet_chain": ("allreduce",),
    "nvls": ("allreduce", "allgather", "reducescatter"),
    "nvls_tree": ("allreduce",),
    "pat": ("allgather", "reducescatter"),
}

# tuning.cc: NVLS, NVLS-tree, PAT and CollNet run the Simple protocol only.
SIMPLE_ONLY = frozenset({"nvls", "nvls_tree", "pat", "collnet_direct", "collnet_chain"})


def ignored(
    collective: str,
    algorithm: str,
    protocol: str,
    n_nodes: int = -1,
    n_ranks: int = -1,
    collnet: bool = False,
) -> str | None:
    """Why NCCL marks (collective, algorithm, protocol) IGNORE on this communicator, or None.

    `n_nodes` / `n_ranks` of -1 mean "any": the rules that depend on them are not applied.
    `collnet`: CollNet (SHARP in the network, with its plugin) is enabled.
    """
    if collective not in ALGORITHM_COLLECTIVES.get(algorithm, ()):
        return f"{algorithm} does not implement {collective}"
    if algorithm in SIMPLE_ONLY and protocol != "simple":
        return f"{algorithm} runs the simple protocol only, not {protocol}"
    if algorithm.startswith("collnet") and not collnet:
        return f"{algorithm} needs CollNet (SHARP in the network and its plugin)"
    if algorithm == "nvls_tree" and n_nodes == 1:
        return "nvls_tree is off on a single node"
    if algorithm == "nvls" and n_nodes > 1 and not collnet:
        return "nvls across nodes needs CollNet (SHARP); NCCL turns it off without"
    if algorithm == "pat" and n_nodes > 0 and n_ranks > 0 and n_ranks != n_nodes:
        return f"pat needs one rank per node ({n_ranks} ranks on {n_nodes} nodes)"
    return None
