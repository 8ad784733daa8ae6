"""Bus-bandwidth ceilings per collective and cluster shape, and the rank count read back from a
table's busbw / algbw: the numbers the bandwidth verdict divides by."""

from __future__ import annotations

import pytest
from tests.conftest import capture

from gpufabric.nccl.gate.ceilings import Ceiling, ceiling, infer_ranks
from gpufabric.nccl.model import Measurement, Row
from gpufabric.nccl.parse.capture import parse_file

P5 = {"gpus_per_node": 8, "node_gbps": 3200, "nics": 32, "nvlink_gbytes_per_gpu": 900}
P5_BASIS = "2 nodes x 3200 Gbps = 400 GB/s per node"


@pytest.mark.parametrize(
    ("collective", "nodes", "expected"),
    [
        # NVLink: a ring reaches half the per-GPU rate, NVLS up to all of it
        ("all_reduce", 1, Ceiling(450.0, None, 900.0, "NVLink 900 GB/s/GPU / 2")),
        ("sendrecv", 1, Ceiling(450.0, None, 900.0, "NVLink 900 GB/s/GPU / 2")),
        # ring: the node's line rate; tree: B * k/(k-1) * (n-1)/n = 400 * 2 * 15/16
        ("all_reduce", 2, Ceiling(400.0, 750.0, 750.0, P5_BASIS)),
        # 4 nodes: 400 * 4/3 * 31/32
        ("all_reduce", 4, Ceiling(400.0, 400 * 4 / 3 * 31 / 32, 400 * 4 / 3 * 31 / 32, "")),
        # alltoall: B * (n-1) / (g * (n-g)) = 400 * 15 / 64
        ("alltoall", 2, Ceiling(93.75, None, 93.75, P5_BASIS + ", alltoall share")),
        ("alltoallv", 2, Ceiling(93.75, None, 93.75, P5_BASIS + ", alltoall share")),
        # sendrecv: one GPU's share of the node's NICs, 400 / min(8 GPUs, 32 NICs)
        ("sendrecv", 2, Ceiling(50.0, None, 400.0, P5_BASIS + ", one GPU's share 50 GB/s")),
        ("all_gather", 2, Ceiling(400.0, None, 400.0, P5_BASIS)),
        ("broadcast", 2, Ceiling(400.0, None, 400.0, P5_BASIS)),
    ],
)
def test_ceilings_on_p5(collective: str, nodes: int, expected: Ceiling) -> None:
    got = ceiling(collective, nodes, **P5)
    assert got.ring == pytest.approx(expected.ring)
    assert got.hierarchical == pytest.approx(expected.hierarchical)
    assert got.best == pytest.approx(expected.best)
    if expected.basis:
        assert got.basis == expected.basis


def test_sendrecv_share_on_fewer_nics_than_gpus() -> None:
    """p4d: 4 x 100G for 8 GPUs, so one GPU's share is the node's 50 GB/s over 4 NICs; a node
    with one NIC gives the whole line rate to the one pair."""
    p4d = ceiling("sendrecv", 2, 8, 400, 4, 600)
    assert (p4d.ring, p4d.best) == (12.5, 50.0)
    assert p4d.basis == "2 nodes x 400 Gbps = 50 GB/s per node, one GPU's share 12.5 GB/s"
    assert ceiling("sendrecv", 2, 8, 400, 1, 600).ring == 50.0


def test_fractional_line_rates_print_as_given() -> None:
    assert ceiling("all_gather", 2, 8, 100.5, 1, 600).basis == (
        "2 nodes x 100.5 Gbps = 12.5625 GB/s per node"
    )


def _row(algbw: float, busbw: float, in_place: bool = True) -> Row:
    m = Measurement(time_us=10.0, algbw=algbw, busbw=busbw, wrong=0)
    return Row(size=1 << 30, count=1 << 28, dtype="float", redop="sum", root=-1,
               out_of_place=m, in_place=m if in_place else None)  # fmt: skip


@pytest.mark.parametrize(
    ("collective", "algbw", "busbw", "ranks"),
    [
        ("all_reduce", 100.0, 175.0, 8),  # 2 * 7/8
        ("all_reduce", 100.0, 150.0, 4),  # 2 * 3/4
        ("all_reduce", 100.0, 100.0, 2),  # 2 * 1/2
        ("all_gather", 100.0, 93.75, 16),  # 15/16
        ("reduce_scatter", 100.0, 50.0, 2),
        ("all_reduce", 100.0, 199.0, None),  # 2 * 199/200: 200 ranks, but 199-201 all fit
        ("all_reduce", 100.0, 200.0, None),  # a factor of 2 is no rank count at all
        ("all_reduce", 100.0, 210.0, None),
        ("all_gather", 1.0, 0.99, None),  # the roundings allow a factor of exactly 1: no count
        ("all_reduce", 100.0, 0.0, None),  # busbw 0: one rank, no bus to read a count from
        ("sendrecv", 100.0, 100.0, None),  # factor 1 whatever the ranks
        ("broadcast", 100.0, 100.0, None),
        ("no_such_collective", 100.0, 93.75, None),  # no factor known: nothing guessed
        ("all_reduce", 1.0, 1.75, 8),  # the smallest algbw still read
        ("all_reduce", 0.99, 1.75, None),  # under 1 GB/s the rounding says too little
    ],
)
def test_ranks_read_back_from_busbw_over_algbw(
    collective: str, algbw: float, busbw: float, ranks: int | None
) -> None:
    assert infer_ranks(collective, (_row(algbw, busbw),)) == ranks


def test_ranks_read_from_the_best_measured_row() -> None:
    """The row with the highest algbw has the smallest rounding error: small rows at 1.5
    (4 ranks, rounded) do not outvote it."""
    rows = (_row(2.0, 3.0), _row(150.0, 262.5, in_place=False), _row(3.0, 4.5))
    assert infer_ranks("all_reduce", rows) == 8


def test_no_ranks_without_a_collective_or_a_measurement() -> None:
    assert infer_ranks(None, (_row(100.0, 175.0),)) is None
    assert infer_ranks("all_reduce", ()) is None
    empty = Row(size=8, count=2, dtype="float", redop="sum", root=-1, out_of_place=None,
                in_place=None)  # fmt: skip
    assert infer_ranks("all_reduce", (empty,)) is None


@pytest.mark.parametrize(
    ("rel", "ranks"),
    [
        ("nccl-tests/all_reduce_perf_p5_awsbatch_mpirun.txt", 8),  # one p5 node
        ("nccl-tests/all_reduce_perf_p5en_elided.txt", 128),  # 16 p5en nodes
    ],
)
def test_ranks_of_real_captures(rel: str, ranks: int) -> None:
    (result,) = parse_file(capture(rel)).results
    assert infer_ranks(result.collective, result.rows) == ranks
