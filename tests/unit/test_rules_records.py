"""Small rules the readers and checks lean on, read exactly: the PCIe distance order of
`nvidia-smi topo -m` link kinds, the closest NIC of a GPU, the Ansible switches' refusal, the
parallel layout's edges, the config's subnets by role and reservations, and an NCCL row's
peak."""

from __future__ import annotations

import pytest

from gpufabric.config.model import CapacityConfig, NetworkConfig
from gpufabric.errors import UserError
from gpufabric.facts.models import GpuTopology, TopoGpu, TopoNic, link_rank
from gpufabric.nccl.model import Measurement, Row
from gpufabric.topology.parallel import Parallelism
from gpufabric.vocabulary import switch_problem


def test_link_kinds_rank_from_the_gpu_itself_to_across_sockets() -> None:
    kinds = ["X", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"]
    assert [link_rank(k) for k in kinds] == [0, 1, 2, 3, 4, 5, 6]
    assert link_rank("NV4") == link_rank("NV1") == 1  # any number of NVLinks
    # unknown kinds rank after every known one, a number after other letters included
    assert link_rank("NVX") == link_rank("AB12") == link_rank("nv4") == 7


def _topology(links: dict[str, str]) -> GpuTopology:
    nics = tuple(TopoNic(f"NIC{i}", i, f"mlx5_{i}") for i in range(3))
    return GpuTopology((TopoGpu("GPU0", 0, "0-7", 0, links),), nics)


def test_nearest_nic_is_the_closest_and_the_first_of_equals() -> None:
    assert _topology({"NIC0": "SYS", "NIC1": "PIX", "NIC2": "PXB"}).nearest_nic("GPU0") == "mlx5_1"
    assert _topology({"NIC0": "SYS", "NIC1": "SYS", "NIC2": "SYS"}).nearest_nic("GPU0") == "mlx5_0"
    # a NIC the GPU's row does not name is as far as SYS: the first of the two wins
    assert _topology({"NIC1": "SYS", "NIC2": "SYS"}).nearest_nic("GPU0") == "mlx5_0"
    assert _topology({"NIC0": "NODE", "NIC1": "??"}).nearest_nic("GPU0") == "mlx5_0"
    assert _topology({}).nearest_nic("GPU7") is None
    assert GpuTopology((TopoGpu("GPU0", 0, "", None),), ()).nearest_nic("GPU0") is None


def test_an_unknown_switch_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(UserError) as err:
        switch_problem("gpufabric_fabrik", "efa")
    assert str(err.value) == (
        "gpufabric_fabrik: not a gpufabric switch; known: gpufabric_fabric, gpufabric_encryption"
    )


def test_one_data_parallel_group_and_blocks_short_of_the_whole_allocation() -> None:
    assert Parallelism(tp=8).sizes(1) == {"tp": 8, "cp": 1, "ep": 1, "dp": 1, "pp": 1}
    # a dp group over all 4 nodes is the allocation itself: no block of it
    assert Parallelism(tp=8).block_sizes(4) == []
    assert Parallelism(tp=8, dp=2, pp=2).block_sizes(4) == [2]


def test_subnets_by_role_and_the_egress_subnet_only_with_nat() -> None:
    assert NetworkConfig().subnets() == {
        "fabric": "10.0.0.0/18",
        "storage": "10.0.64.0/24",
        "management": "10.0.65.0/24",
        "egress": "10.0.66.0/28",
    }
    assert list(NetworkConfig(egress="endpoints").subnets()) == ["fabric", "storage", "management"]


def test_reservation_targets_are_none_without_a_reservation() -> None:
    assert CapacityConfig().target_ids() == []
    one = CapacityConfig.model_validate({"type": "reservation", "reservationId": "cr-1"})
    assert one.target_ids() == ["cr-1"]


def test_a_rows_peak_is_the_better_of_its_two_measurements_and_zero_without_any() -> None:
    def row(out: float | None, inplace: float | None) -> Row:
        def m(bw: float | None) -> Measurement | None:
            return None if bw is None else Measurement(10.0, bw, bw, 0)

        return Row(1024, 256, "float", "sum", -1, m(out), m(inplace))

    assert row(5.0, 7.0).best_busbw() == 7.0
    assert row(None, 3.0).best_busbw() == 3.0
    assert row(None, None).best_busbw() == 0.0
