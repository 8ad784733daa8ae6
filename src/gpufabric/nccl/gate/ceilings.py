"""Bus-bandwidth ceilings: what the hardware allows, per collective and algorithm.

Definitions (NVIDIA/nccl-tests doc/PERFORMANCE.md): busbw = algbw x factor, factor 2(n-1)/n
for all_reduce, (n-1)/n for all_gather / reduce_scatter / alltoall, 1 for broadcast, reduce,
sendrecv. k nodes, g GPUs per node, n = k*g ranks, B = node fabric line rate in GB/s.

- ring, k > 1: per-node wire bytes = factor x S, so busbw <= B (docs/sources.md 1.2).
- tree / NVLS-tree all_reduce, k > 1: busbw <= B * k/(k-1) * (n-1)/n (anchors 1.2; 1.875 B at
  k=2, g=8). NCCL picks tree or NVLS-tree on 2 nodes by default (nccl-tests #196), so a default
  run may legitimately exceed B.
- alltoall, k > 1: a node sends g*S*(n-g)/n bytes, so busbw <= B*(n-1)/(g*(n-g)) (my arithmetic).
- sendrecv, k > 1: one rank pair per node boundary, on its GPU's share of the NICs:
  B / min(g, NICs) (my arithmetic; PXN can spread wider, so measurements may exceed it).
- k = 1: NVLink; ring busbw <= NVLink GB/s per GPU / 2 (anchors 7.5: 450 for 900 GB/s H100);
  NVLS reduces in the switch and can exceed it, up to the full per-GPU NVLink rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufabric.nccl.model import Row

# busbw / algbw per collective (nccl-tests src/*.cu *GetBw) is a*(n-1)/n on n ranks, with
# a = 0 meaning a factor of 1 whatever n (so no rank count can be read back from it).
_FACTOR: dict[str, int] = {
    "all_reduce": 2,
    "all_gather": 1,
    "reduce_scatter": 1,
    "alltoall": 1,
    "alltoallv": 1,
    "gather": 1,
    "scatter": 1,
    "broadcast": 0,
    "reduce": 0,
    "sendrecv": 0,
    "hypercube": 0,
}


def infer_ranks(collective: str | None, rows: tuple[Row, ...]) -> int | None:
    """Rank count from busbw/algbw of the best-measured row; None when it cannot tell.

    nccl-tests prints 2 decimals, so each value is known to +-0.005: the rank count must be
    the one integer inside the interval those roundings allow.
    """
    a = _FACTOR.get(collective or "", 0)
    if a == 0:
        return None
    measured = [m for r in rows for m in (r.out_of_place, r.in_place) if m is not None]
    measured = [m for m in measured if m.algbw >= 1.0]
    if not measured:
        return None
    m = max(measured, key=lambda x: x.algbw)
    lo = (m.busbw - 0.005) / (m.algbw + 0.005)
    hi = (m.busbw + 0.005) / (m.algbw - 0.005)
    if hi >= a:
        return None
    n_lo, n_hi = a / (a - lo), a / (a - hi)  # ratio = a(n-1)/n  ->  n = a/(a-ratio)
    candidates = [n for n in range(max(2, int(n_lo)), int(n_hi) + 1) if n_lo <= n <= n_hi]
    return candidates[0] if len(candidates) == 1 else None


@dataclass(frozen=True)
class Ceiling:
    """busbw ceilings in GB/s for one collective on one cluster shape."""

    ring: float  # what a ring (or the only algorithm) can reach: the gate's conservative bound
    hierarchical: float | None  # tree / NVLS-tree all_reduce bound, k > 1
    best: float  # the highest any algorithm can reach (for the "too good to be true" check)
    basis: str  # one line: where the number comes from


def ceiling(
    collective: str,
    nodes: int,
    gpus_per_node: int,
    node_gbps: float,
    nics: int,
    nvlink_gbytes_per_gpu: float,
) -> Ceiling:
    """Ceilings for `collective` on `nodes` x `gpus_per_node` with a node fabric of `node_gbps`."""
    if nodes <= 1:
        ring = nvlink_gbytes_per_gpu / 2
        return Ceiling(
            ring, None, float(nvlink_gbytes_per_gpu), f"NVLink {nvlink_gbytes_per_gpu} GB/s/GPU / 2"
        )
    b = node_gbps / 8  # GB/s
    k, g = nodes, gpus_per_node
    n = k * g
    basis = f"{k} nodes x {node_gbps:g} Gbps = {b:g} GB/s per node"
    if collective == "all_reduce":
        tree = b * k / (k - 1) * (n - 1) / n
        return Ceiling(b, tree, tree, basis)
    if collective in ("alltoall", "alltoallv"):
        bound = b * (n - 1) / (g * (n - g)) if n > g else b
        return Ceiling(bound, None, bound, basis + ", alltoall share")
    if collective == "sendrecv":
        rail = b / max(1, min(g, nics))
        return Ceiling(rail, None, b, basis + f", one GPU's share {rail:g} GB/s")
    return Ceiling(b, None, b, basis)
