"""Megatron-style parallel layout: which ranks form which groups.

Ranks are laid out in Megatron-Core's default order "tp-cp-ep-dp-pp" (TP varies fastest), and
rank r runs on node r // gpus_per_node of the launch order. Here world = tp*cp*ep*dp*pp, i.e.
`dp` counts data-parallel replicas per expert group (Megatron's data-parallel size is ep*dp).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufabric.errors import Arg, UserError

DIMENSIONS = ("tp", "cp", "ep", "dp", "pp")


@dataclass(frozen=True)
class Parallelism:
    tp: int = 1
    cp: int = 1
    ep: int = 1
    dp: int | None = None  # default: whatever fills the nodes
    pp: int = 1
    gpus_per_node: int = 8

    def sizes(self, nodes: int) -> dict[str, int]:
        """Size of each dimension for `nodes` nodes, validated."""
        for dim in ("tp", "cp", "ep", "pp", "gpus_per_node"):
            if getattr(self, dim) < 1:
                raise UserError(Arg(dim), " must be at least 1")
        world = nodes * self.gpus_per_node
        fixed = self.tp * self.cp * self.ep * self.pp
        dp = self.dp if self.dp is not None else world // fixed
        if dp < 1 or fixed * dp != world:
            raise UserError(
                f"tp*cp*ep*dp*pp = {fixed}*{dp} does not equal {nodes} nodes x "
                f"{self.gpus_per_node} GPUs = {world} ranks"
            )
        return {"tp": self.tp, "cp": self.cp, "ep": self.ep, "dp": dp, "pp": self.pp}

    def block_sizes(self, nodes: int) -> list[int]:
        """Nested blocks of consecutive nodes that hold whole groups, largest first.

        tp, tp*cp, tp*cp*ep and tp*cp*ep*dp (one pipeline stage) consecutive ranks form the
        groups whose traffic should stay low in the tree. Groups smaller than a node stay inside
        one node (a node must hold a whole number of them); larger ones must be whole nodes.
        """
        s = self.sizes(nodes)
        gpn = self.gpus_per_node
        out: list[int] = []
        span = 1
        for dim in ("tp", "cp", "ep", "dp"):
            span *= s[dim]
            if span < gpn:
                if gpn % span:
                    raise UserError(
                        f"a {dim} group spans {span} GPUs, which does not divide "
                        f"{gpn} GPUs per node"
                    )
                continue
            if span % gpn:
                raise UserError(
                    f"a {dim} group spans {span} GPUs, not a whole number of {gpn}-GPU nodes"
                )
            block = span // gpn
            if 1 < block < nodes and block not in out:
                out.append(block)
        return sorted(out, reverse=True)

    def groups(self, nodes: int, dim: str) -> list[list[int]]:
        """Each group of dimension `dim` as the list of its nodes' positions, in rank order
        (consecutive duplicates removed, so a group inside one node has one entry)."""
        s = self.sizes(nodes)
        strides: dict[str, int] = {}
        stride = 1
        for d in DIMENSIONS:
            strides[d] = stride
            stride *= s[d]
        world = stride
        out: list[list[int]] = []
        for base in range(world):
            if (base // strides[dim]) % s[dim]:
                continue  # not the first member of its group
            seq: list[int] = []
            for k in range(s[dim]):
                node = (base + k * strides[dim]) // self.gpus_per_node
                if not seq or seq[-1] != node:
                    seq.append(node)
            out.append(seq)
        return out
