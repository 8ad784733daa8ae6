"""Parsers on real captured nccl-tests output and NCCL logs: exact figures from the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, needs_captures

from gpufabric.errors import UserError
from gpufabric.nccl.model import Measurement
from gpufabric.nccl.parse.capture import capture_to_dict, parse_file, parse_text
from gpufabric.nccl.parse.transport import transport

TESTS = FIXTURES / "nccl-tests"
DEBUG = FIXTURES / "nccl-debug"


def one(name: str):
    capture = parse_file(TESTS / name)
    assert len(capture.results) == 1
    return capture.results[0], capture.debug


@needs_captures
def test_every_nccl_tests_fixture_parses_every_row() -> None:
    files = sorted(TESTS.glob("*.txt"))
    assert len(files) >= 17
    for file in files:
        capture = parse_file(file)
        assert capture.results, file.name
        for result in capture.results:
            assert result.rows, file.name
            assert result.unparsed_rows == (), file.name
            assert result.collective in ("all_reduce", "all_gather", "sendrecv"), file.name


@needs_captures
def test_p5_efa_srun_prefix_exact_rows() -> None:
    result, _ = one("all_reduce_perf_2x_p5_efa_srun_prefix.txt")
    assert result.collective == "all_reduce"
    assert len(result.rows) == 32
    first, last = result.rows[0], result.rows[-1]
    assert (first.size, first.count, first.dtype, first.redop, first.root) == (
        8,
        2,
        "float",
        "sum",
        -1,
    )
    assert first.out_of_place == Measurement(69.12, 0.00, 0.00, 0)
    assert last.size == 17179869184
    assert last.out_of_place == Measurement(66132, 259.78, 487.09, 0)
    assert last.in_place == Measurement(66109, 259.87, 487.26, 0)
    assert not result.complete  # table only: the publisher cut the footer
    assert result.avg_busbw is None


@needs_captures
def test_p4de_efa_srun_prefix_exact_2gib() -> None:
    result, _ = one("all_reduce_perf_2x_p4de_efa_srun_prefix.txt")
    row = result.rows[-1]
    assert row.size == 2147483648
    assert row.out_of_place is not None and row.out_of_place.busbw == 78.33
    assert row.in_place is not None and row.in_place.algbw == 41.77


@needs_captures
def test_p5_awsbatch_mpirun_tags_and_footer() -> None:
    result, _ = one("all_reduce_perf_p5_awsbatch_mpirun.txt")
    assert len(result.rows) == 32
    assert result.rows[-1].out_of_place == Measurement(62239, 276.03, 483.05, 0)
    assert result.avg_busbw == 156.742
    assert result.out_of_bounds == 0 and result.out_of_bounds_ok is True
    assert result.complete


@needs_captures
def test_p5_eks_mpirun_elided() -> None:
    result, _ = one("all_reduce_perf_2x_p5_eks_mpirun_elided.txt")
    assert result.elided
    assert [r.size for r in result.rows] == [
        0,
        67108864,
        134217728,
        268435456,
        536870912,
        1073741824,
        2147483648,
    ]
    assert result.rows[0].out_of_place == Measurement(15.51, 0.0, 0.0, 0)  # 0-byte row kept
    assert result.rows[-1].in_place == Measurement(9195.2, 233.54, 437.89, 0)
    assert result.avg_busbw == 52.9753


@needs_captures
def test_p5en_elided_trailing_spaces() -> None:
    result, _ = one("all_reduce_perf_p5en_elided.txt")
    assert result.elided and result.complete
    assert result.rows[-1].out_of_place == Measurement(92173, 186.39, 369.86, 0)
    assert result.avg_busbw == 84.0569


@needs_captures
def test_gke_a3mega_tcpxo_shifted_columns_and_zero_byte_rows() -> None:
    result, _ = one("all_gather_perf_gke_a3mega_tcpxo_2node.txt")
    assert result.collective == "all_gather"
    assert len(result.rows) == 31
    assert [r.size for r in result.rows[:5]] == [0, 0, 0, 0, 0]
    assert result.rows[0].out_of_place == Measurement(0.30, 0.0, 0.0, 0)
    big = result.rows[-1]  # one of the rows published one column to the left
    assert (big.size, big.count, big.redop, big.root) == (8589934592, 134217728, "none", -1)
    assert big.out_of_place == Measurement(42668.7, 201.32, 188.73, 0)
    assert big.in_place == Measurement(42630.7, 201.50, 188.90, 0)
    assert result.avg_busbw == 53.8932


@needs_captures
def test_gke_a3high_tcpx_wrong_is_na_and_info_line() -> None:
    result, debug = one("all_gather_perf_gke_a3high_tcpx_2node.txt")
    assert len(result.rows) == 10
    assert result.rows[-1].out_of_place == Measurement(7098.6, 75.63, 70.90, None)
    assert result.avg_busbw == 30.9622
    assert debug.env == {"NCCL_P2P_PXN_LEVEL": "0"}


@needs_captures
def test_gke_a3ultra_gib_header_ranks_hosts_devices_version() -> None:
    result, debug = one("all_gather_perf_gke_a3ultra_gib_2node.txt")
    assert result.params["nThread"] == "1" and result.params["maxBytes"] == "8589934592"
    assert result.params["warmup_iters"] == "50" and result.params["iters"] == "100"
    assert result.n_ranks == 16
    assert result.hosts == ("nccl-test-host-1", "nccl-test-host-2")
    r9 = result.ranks[9]
    assert (r9.rank, r9.group, r9.pid, r9.host, r9.device, r9.bus_id, r9.device_name) == (
        9,
        0,
        13749,
        "nccl-test-host-2",
        1,
        "0000:90:00",
        "NVIDIA H200",
    )
    assert result.nccl_version == "2.26.6+cuda12.8"
    assert debug.nccl_version == "2.26.6+cuda12.8"
    assert result.rows[-1].out_of_place == Measurement(24739, 347.22, 325.52, 0)
    assert result.rows[-1].in_place == Measurement(24244, 354.31, 332.16, 0)
    assert result.avg_busbw == 121.902


@needs_captures
def test_gke_a3ultra_rdma_table_only() -> None:
    result, _ = one("all_gather_perf_gke_a3ultra_rdma_2node.txt")
    assert len(result.rows) == 24
    assert result.rows[-1].in_place == Measurement(23991, 358.05, 335.67, 0)
    assert result.avg_busbw == 120.248


@needs_captures
def test_skypilot_plus_mpirun_prefixes() -> None:
    result, _ = one("all_gather_perf_gke_a3ultra_skypilot_prefixed.txt")
    assert result.n_ranks == 16
    assert result.hosts == ("nc-d87e1263-head", "nc-d87e1263-worker1")
    assert result.params["warmup_iters"] == "5"
    assert result.rows[-1].out_of_place == Measurement(24724, 347.44, 325.72, 0)
    assert result.avg_busbw == 122.073


@needs_captures
def test_legacy_error_column_crlf() -> None:
    result, _ = one("all_reduce_perf_2x_dgx_a100_k8s_legacy_error_col.txt")
    assert result.legacy_format
    assert len(result.rows) == 30
    row = result.rows[-1]
    assert row.root is None
    assert row.out_of_place == Measurement(42715, 100.55, 188.53, None, 5e-07)
    assert result.rows[0].out_of_place == Measurement(38.63, 0.0, 0.0, None, 2e-07)
    assert result.avg_busbw == 53.7098


@needs_captures
def test_legacy_narrow_type_column_4_nodes() -> None:
    result, _ = one("all_reduce_perf_4x_dgx_a100_slurm_legacy_error_col.txt")
    assert result.legacy_format and len(result.rows) == 13
    assert result.rows[-1].in_place == Measurement(43440, 98.87, 191.56, None, 1e-06)
    assert result.avg_busbw == 113.289


@needs_captures
def test_gb300_elided_without_units_line() -> None:
    result, _ = one("all_reduce_perf_azure_gb300_mnnvl_elided.txt")
    assert result.elided and [r.size for r in result.rows] == [0, 1024, 17179869184]
    assert result.rows[-1].out_of_place == Measurement(18285.0, 939.58, 936.93, 0)
    assert result.avg_busbw == 487.265


@needs_captures
def test_oci_single_size_one_process_eight_gpus() -> None:
    result, _ = one("all_reduce_perf_oci_bm_gpu4_8_1node_10G.txt")
    assert result.params["nGpus"] == "8"
    assert result.n_ranks == 8 and result.hosts == ("compute-permanent-node-789",)
    assert result.ranks[4].bus_id == "0x8d"
    assert result.rows == result.rows[:1]
    assert result.rows[0].out_of_place == Measurement(79813, 134.53, 235.43, 0)
    result2, _ = one("all_reduce_perf_oci_bm_gpu4_8_2node_roce_10G.txt")
    assert result2.n_ranks == 16 and len(result2.hosts) == 2
    assert result2.rows[0].in_place == Measurement(89464, 120.02, 225.04, 0)
    assert result2.avg_busbw == 225.043


@needs_captures
def test_p4d_eks_full_debug_log_both_parsers() -> None:
    result, debug = one("all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt")
    assert result.legacy_format and result.n_ranks == 16
    assert result.ranks[0].group is None and result.ranks[0].device_name == "A100-SXM4-40GB"
    assert result.params["maxBytes"] == "4294967296"
    assert result.rows[-1].out_of_place == Measurement(183834, 23.36, 43.81, None, 5e-07)
    assert result.avg_busbw == 11.2432
    assert debug.nccl_version == "2.9.9+cuda11.2"
    assert debug.net_plugin == "aws-ofi-nccl"
    assert debug.ofi_provider == "efa"
    assert debug.network == "AWS Libfabric"
    assert debug.net_nics_used == ("0", "1", "2", "3")
    assert debug.gdr is True
    assert debug.n_ranks == 16
    assert debug.coll_channels == 8 and debug.ring_channels == 8
    assert set(debug.channel_paths) == {"NET/AWS Libfabric", "P2P/IPC"}
    assert debug.bootstrap is not None and debug.bootstrap.startswith("eth0:")
    assert transport(debug) == "efa"


@needs_captures
def test_sendrecv_leonardo_interleaved_info() -> None:
    result, debug = one("sendrecv_perf_a100_leonardo_intranode_nccl_info.txt")
    assert result.collective == "sendrecv" and len(result.rows) == 29
    assert result.rows[0].in_place == Measurement(9.90, 0.0, 0.0, None)  # in-place N/A
    assert result.rows[-1].out_of_place == Measurement(29935, 71.74, 71.74, 0)
    assert debug.nccl_version == "2.22.3+cuda12.2"
    assert debug.net_plugin == "internal" and debug.tuner == "internal"
    assert debug.network == "IB"
    assert [d.name for d in debug.net_devices] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
    assert (debug.n_ranks, debug.n_nodes) == (2, 1)
    assert debug.coll_channels == 8
    assert debug.env["NCCL_BUFFSIZE"] == "4194304"
    assert debug.channel_paths == ("P2P/direct pointer",)
    assert debug.gdr is None  # no NET channel on one node


@needs_captures
@pytest.mark.parametrize(
    ("name", "kind", "devices"),
    [
        ("net_socket_eth0.txt", "socket", ["eth0"]),
        ("net_socket_desktop_prefixed.txt", "socket", ["enp67s0"]),
        ("net_ib_8hca_ib.txt", "ib", [f"mlx5_{i}" for i in range(8)]),
        ("net_ib_8hca_plus_bond_roce.txt", "ib", [f"mlx5_{i}" for i in range(8)] + ["mlx5_bond_0"]),
        ("net_ib_azure_ib_plus_roce.txt", "ib", ["ibP111p0s0", "rdmaP1111p0s2"]),
        ("net_fastsocket_gcp_8nic.txt", "fastsocket", [f"ibs{i}" for i in range(108, 116)]),
    ],
)
def test_debug_fixtures_transport_and_nics(name: str, kind: str, devices: list[str]) -> None:
    capture = parse_file(DEBUG / name)
    assert capture.results == ()
    assert transport(capture.debug) == kind
    assert [d.name for d in capture.debug.net_devices] == devices


@needs_captures
def test_ib_device_link_layers() -> None:
    debug = parse_file(DEBUG / "net_ib_8hca_plus_bond_roce.txt").debug
    assert debug.net_devices[8].link == "RoCE" and debug.net_devices[0].link == "IB"
    assert debug.net_devices[0].port == 1
    socket = parse_file(DEBUG / "net_socket_eth0.txt").debug
    assert socket.net_devices[0].address == "10.0.0.23<0>"


@needs_captures
def test_warn_lines_collected() -> None:
    debug = parse_file(DEBUG / "net_ib_azure_completion_error.txt").debug
    assert len(debug.warnings) == 1
    assert debug.warnings[0].startswith(
        "NET/IB : Got completion from peer 10.2.0.5<33092> with error 12"
    )


def test_roce_only_device_list_is_roce() -> None:
    text = "host:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_bond_0:1/RoCE [RO]; OOB bond0:10.0.0.1<0>"
    assert transport(parse_text(text).debug) == "roce"


def test_ofi_tcp_provider_is_a_socket_fallback() -> None:
    # shape of aws-ofi-nccl's INFO line (src/nccl_ofi_net.c "Selected Provider is %s (found %d nics)")
    text = "h:1:1 [0] NCCL INFO NET/OFI Selected Provider is tcp (found 1 nics)\n"
    debug = parse_text(text).debug
    assert debug.ofi_nics_found == 1
    assert transport(debug) == "ofi-tcp"


def test_new_style_channel_with_proxy_rank() -> None:
    text = "h:1:1 [0] NCCL INFO Channel 02/0 : 3[3] -> 11[3] [send] via NET/IB/3(11)/GDRDMA\n"
    debug = parse_text(text).debug
    assert debug.net_nics_used == ("3",) and debug.gdr is True


@needs_captures
def test_capture_to_dict_is_json_ready() -> None:
    data = capture_to_dict(parse_file(TESTS / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"))
    text = json.dumps(data)
    assert data["debug"]["transport"] == "efa"
    assert data["results"][0]["n_ranks"] == 16
    assert "43.81" in text


def test_unreadable_and_empty_inputs_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="cannot read"):
        parse_file(tmp_path / "missing.txt")
    empty = tmp_path / "x.txt"
    empty.write_text("hello\n")
    with pytest.raises(UserError, match="no nccl-tests table"):
        parse_file(empty)


@needs_captures
def test_two_tables_in_one_file_are_two_results() -> None:
    text = (TESTS / "all_gather_perf_gke_a3ultra_gib_2node.txt").read_text()
    capture = parse_text(text + text, "all_gather_perf_twice.txt")
    assert len(capture.results) == 2
    assert capture.results[1].rows[-1].out_of_place == capture.results[0].rows[-1].out_of_place


def test_current_header_lines_per_iteration_and_timestamp_columns() -> None:
    # SYNTHETIC, laid out with the printf formats of nccl-tests src/util.cu (writeDeviceReport,
    # writeResultHeader with per-iteration timing and timestamps, writeResultFooter); no
    # published capture of these newer columns exists in the fixtures.
    text = (
        "\n".join(
            [
                "# nccl-tests version 2.17.6 nccl-headers=22707 nccl-library=22707",
                "# Collective test starting: reduce_scatter_perf",
                "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 "
                "iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0",
                "#",
                "#  Rank  0 Group  0 Pid   1001 on     node-a device  0 [0000:18:00] NVIDIA H100 80GB HBM3",
                "#  Rank  1 Group  0 Pid   1002 on     node-b device  0 [0000:18:00] NVIDIA H100 80GB HBM3",
                "#",
                "#        size         count      type   redop    root     time   algbw   busbw  #wrong"
                "    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max"
                "    i_p99    i_cv%           timestamp",
                "     1048576        131072     float     sum      -1    40.10   26.15   13.07       0"
                "    39.00    42.00    41.90     1.20    40.00   26.21   13.11       0    39.10    41.00"
                "    40.90     1.10 2026-11-29 10:00:01",
                "     2097152        262144     float     sum      -1    60.00   34.95   17.48       0"
                "    59.00    61.00    60.90     0.90    59.80   35.07   17.53       0    59.00    60.50"
                "    60.40     0.80 2026-11-29 10:00:02",
                "# Out of bounds values : 0 OK",
                "# Avg bus bandwidth    : 15.2975 OK",
                "#",
                "# Collective test concluded: reduce_scatter_perf",
            ]
        )
        + "\n"
    )
    (result,) = parse_text(text, "out.txt").results
    assert result.collective == "reduce_scatter" and result.tests_version == "2.17.6"
    assert result.params["unalign"] == "0" and result.hosts == ("node-a", "node-b")
    assert [r.size for r in result.rows] == [1048576, 2097152]
    assert result.rows[1].out_of_place == Measurement(60.00, 34.95, 17.48, 0)
    assert result.rows[1].in_place == Measurement(59.80, 35.07, 17.53, 0)
    assert result.avg_busbw == 15.2975 and result.avg_busbw_status == "OK" and result.complete
