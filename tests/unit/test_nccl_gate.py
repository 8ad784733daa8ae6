"""Gate verdicts on real captures, and on real captures with one marked defect injected."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, needs_captures

from gpufabric.catalog import catalog, lookup
from gpufabric.errors import UserError
from gpufabric.nccl.gate.thresholds import parse_thresholds, thresholds
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_file, parse_text

TESTS = FIXTURES / "nccl-tests"
DEBUG = FIXTURES / "nccl-debug"
P4D_LOG = TESTS / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"
GPUFABRIC = Path(sys.executable).parent / "gpufabric"


def by_check(report, check: str):
    return [v for v in report.verdicts if v.check == check]


@needs_captures
def test_socket_fallback_on_efa_fails_with_one_line_naming_it() -> None:
    report = gate([parse_file(DEBUG / "net_socket_eth0.txt")], lookup("p5.48xlarge"))
    assert not report.passed
    (verdict,) = by_check(report, "transport")
    assert verdict.status == "fail"
    assert "socket fallback" in verdict.message and "NET/Socket on eth0" in verdict.message
    assert "efa" in verdict.message and "\n" not in verdict.message


@needs_captures
def test_cli_gate_socket_fallback_exits_1() -> None:
    proc = subprocess.run(
        [
            str(GPUFABRIC),
            "nccl",
            "gate",
            str(DEBUG / "net_socket_eth0.txt"),
            "--instance-type",
            "p5.48xlarge",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    fail_lines = [line for line in proc.stdout.splitlines() if line.startswith("FAIL")]
    assert len(fail_lines) == 2 and "socket fallback" in fail_lines[0]
    assert "no nccl-tests results table: nothing measured" in fail_lines[1]


def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    for args in (
        ["--instance-type", "p5.48xlarg", str(DEBUG / "net_socket_eth0.txt")],
        ["--instance-type", "p5.48xlarge", str(tmp_path / "missing.txt")],
    ):
        proc = subprocess.run(
            [str(GPUFABRIC), "nccl", "gate", *args], capture_output=True, text=True, check=False
        )
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


@needs_captures
def test_p4d_full_log_passes_fabric_checks() -> None:
    report = gate([parse_file(P4D_LOG)], lookup("p4d.24xlarge"))
    assert report.passed and report.nodes == 2 and report.transport == "efa"
    assert by_check(report, "nics")[0].status == "pass"
    assert "0, 1, 2, 3" in by_check(report, "nics")[0].message
    assert by_check(report, "gdr")[0].status == "pass"
    bw = by_check(report, "bandwidth")[0]
    assert bw.status == "pass" and "43.8 GB/s" in bw.message and "0.88" in bw.message


@needs_captures
def test_fewer_nics_used_than_present_fails() -> None:
    # the real p4d log with its NIC 2 and 3 channel lines moved onto NIC 0 and 1
    text = (
        P4D_LOG.read_text()
        .replace("Libfabric/2/", "Libfabric/0/")
        .replace("Libfabric/3/", "Libfabric/1/")
    )
    report = gate([parse_text(text, P4D_LOG.name)], lookup("p4d.24xlarge"))
    (nics,) = by_check(report, "nics")
    assert nics.status == "fail" and "2 of the 4" in nics.message
    assert not report.passed


@needs_captures
def test_no_gdrdma_fails_on_efa() -> None:
    text = P4D_LOG.read_text().replace("/GDRDMA", "")
    report = gate([parse_text(text, P4D_LOG.name)], lookup("p4d.24xlarge"))
    assert by_check(report, "gdr")[0].status == "fail"


@needs_captures
def test_ib_log_on_efa_type_is_wrong_transport() -> None:
    report = gate([parse_file(DEBUG / "net_ib_8hca_ib.txt")], lookup("p5.48xlarge"))
    (t,) = by_check(report, "transport")
    assert t.status == "fail" and "NCCL used ib" in t.message


@needs_captures
def test_wrong_values_fail() -> None:
    file = TESTS / "all_gather_perf_gke_a3mega_tcpxo_2node.txt"
    lines = file.read_text().splitlines()
    # last column of the 1 MiB row: '0' -> '7'
    idx = next(i for i, line in enumerate(lines) if line.strip().startswith("1048576 "))
    lines[idx] = lines[idx][:-1] + "7"
    report = gate([parse_text("\n".join(lines), file.name)], lookup("p5.48xlarge"), nodes=2)
    (c,) = by_check(report, "correctness")
    assert c.status == "fail" and "#wrong = 7 at 1 MiB (in-place)" in c.message


@needs_captures
def test_cut_short_output_fails() -> None:
    text = (TESTS / "all_gather_perf_gke_a3ultra_gib_2node.txt").read_text()
    cut = text[: text.index("   134217728")]  # the run died after 64 MiB
    report = gate([parse_text(cut, "all_gather_perf_cut.txt")], lookup("p5en.48xlarge"))
    complete = by_check(report, "complete")
    assert complete[0].status == "fail" and "64 MiB" in complete[0].message
    assert "footer" in complete[0].message
    assert not report.passed


@needs_captures
def test_sweep_stopping_before_max_bytes_fails() -> None:
    text = (TESTS / "all_gather_perf_gke_a3ultra_gib_2node.txt").read_text()
    lines = [line for line in text.splitlines() if not line.strip().startswith("8589934592")]
    report = gate([parse_text("\n".join(lines), "all_gather_perf_x.txt")], lookup("p5en.48xlarge"))
    assert by_check(report, "complete")[0].status == "fail"
    assert "4 GiB of maxBytes 8 GiB" in by_check(report, "complete")[0].message


@needs_captures
def test_bandwidth_under_threshold_fails_on_a_faster_fabric() -> None:
    # 2x p4d-class numbers (43.8 GB/s) gated as if they came from p5 (400 GB/s per node)
    report = gate([parse_file(P4D_LOG)], lookup("p5.48xlarge"))
    bw = by_check(report, "bandwidth")[0]
    assert bw.status == "fail" and "0.11 of the 400.0 GB/s ring line rate" in bw.message


@needs_captures
def test_intra_node_run_uses_nvlink_bound() -> None:
    report = gate(
        [parse_file(TESTS / "all_reduce_perf_p5_awsbatch_mpirun.txt")], lookup("p5.48xlarge")
    )
    assert report.nodes == 1  # 8 ranks inferred from busbw/algbw = 1.75
    bw = by_check(report, "bandwidth")[0]
    assert bw.status == "pass" and "intra-node" in bw.message and "450.0" in bw.message


@needs_captures
def test_one_node_gated_as_two_is_flagged_above_ceiling() -> None:
    report = gate(
        [parse_file(TESTS / "all_reduce_perf_p5_awsbatch_mpirun.txt")],
        lookup("p4d.24xlarge"),
        nodes=2,
    )
    assert any(
        v.status == "warn" and "exceeds the best-case ceiling" in v.message
        for v in by_check(report, "bandwidth")
    )


@needs_captures
def test_forced_tree_uses_tree_bound() -> None:
    text = (
        "h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Tree\n"
        + (TESTS / "all_reduce_perf_2x_p5_eks_mpirun_elided.txt").read_text()
    )
    report = gate([parse_text(text, "all_reduce_perf_tree.txt")], lookup("p5.48xlarge"), nodes=2)
    bw = by_check(report, "bandwidth")[0]
    assert "tree bound" in bw.message and "750.0" in bw.message  # 400 * 2/1 * 15/16
    # 437.89 / 750 = 0.58: under the 0.60 tree efficiency, while it is 1.09 of the ring rate
    assert bw.status == "fail" and "= 0.58 of" in bw.message and "needs >= 0.60" in bw.message


@needs_captures
def test_fatal_nccl_warn_fails() -> None:
    report = gate([parse_file(DEBUG / "net_ib_azure_completion_error.txt")], lookup("p5.48xlarge"))
    warn = by_check(report, "nccl-warn")
    assert warn and warn[0].status == "fail" and "completion" in warn[0].message


@needs_captures
def test_roce_device_among_ib_hcas_warns_on_an_infiniband_type() -> None:
    ib_types = [name for name, t in catalog().items() if t.fabric == "infiniband"]
    if not ib_types:
        pytest.skip("no infiniband instance type in the catalog yet")
    report = gate([parse_file(DEBUG / "net_ib_8hca_plus_bond_roce.txt")], lookup(ib_types[0]))
    assert by_check(report, "transport")[0].status == "pass"
    assert any("mlx5_bond_0" in v.message and v.status == "warn" for v in by_check(report, "nics"))


def test_per_instance_override_applies() -> None:
    base = thresholds()
    assert base.efficiency_for("a3-highgpu-8g").ring == 0.45
    assert base.efficiency_for("p5.48xlarge").ring == base.efficiency.ring


def test_thresholds_yaml_rejects_unknown_keys() -> None:
    with pytest.raises(ValueError):
        parse_thresholds("large_message_bytes: 1\nbogus: 2\n")


@needs_captures
def test_unknown_instance_type_and_bad_nodes_are_user_errors() -> None:
    capture = parse_file(DEBUG / "net_socket_eth0.txt")
    with pytest.raises(UserError, match=r"did you mean 'p5\.48xlarge'"):
        gate([capture], lookup("p5.48xlarg"))
    with pytest.raises(UserError, match=r"^nodes: 0 is not valid"):
        gate([capture], lookup("p5.48xlarge"), nodes=0)


@needs_captures
def test_strict_turns_warnings_into_failure() -> None:
    capture = parse_file(TESTS / "all_reduce_perf_p5en_elided.txt")
    assert gate([capture], lookup("p5en.48xlarge")).passed
    assert not gate([capture], lookup("p5en.48xlarge"), strict=True).passed


@needs_captures
@pytest.mark.parametrize(
    ("fixture", "instance_type", "nodes", "expected"),
    [
        # TCPXO, 8 x 200G: 188.90 / 200
        ("all_gather_perf_gke_a3mega_tcpxo_2node.txt", "a3-megagpu-8g", 2, "= 0.94 of the 200.0"),
        # RoCE (gIB), 8 x 400G: 332.16 / 400
        ("all_gather_perf_gke_a3ultra_gib_2node.txt", "a3-ultragpu-8g", 2, "= 0.83 of the 400.0"),
        # TCPX, 4 x 200G: 71.35 / 100 against the per-type 0.45 threshold (thresholds.yaml)
        ("all_gather_perf_gke_a3high_tcpx_2node.txt", "a3-highgpu-8g", 2, "threshold 0.45"),
        # InfiniBand HDR, 8 x 200G: 188.70 / 200 (legacy format, 2 nodes) and 191.56 (4 nodes)
        (
            "all_reduce_perf_2x_dgx_a100_k8s_legacy_error_col.txt",
            "Standard_ND96asr_v4",
            None,
            "= 0.94 of the 200.0",
        ),
        (
            "all_reduce_perf_4x_dgx_a100_slurm_legacy_error_col.txt",
            "Standard_ND96asr_v4",
            None,
            "= 0.96 of the 200.0",
        ),
        # EFA p5en, 16 x 200G, 128 ranks inferred: 369.86 / 400
        ("all_reduce_perf_p5en_elided.txt", "p5en.48xlarge", None, "= 0.92 of the 400.0"),
    ],
)
def test_bandwidth_gate_across_clouds(
    fixture: str, instance_type: str, nodes: int | None, expected: str
) -> None:
    if instance_type not in catalog():
        pytest.skip(f"{instance_type} not in the catalog")
    report = gate([parse_file(TESTS / fixture)], lookup(instance_type), nodes)
    (bw,) = by_check(report, "bandwidth")
    assert bw.status == "pass" and expected in bw.message, bw.message


@needs_captures
def test_derived_bounds_only_warn() -> None:
    # the real sendrecv table gated as 2 p5 nodes (73.8 GB/s vs one GPU's 50 GB/s share = 1.48)
    # with a ring efficiency of 1.6 demanded: sendrecv is advisory, so it warns, not fails
    base = thresholds()
    strict = base.model_copy(
        update={"efficiency": base.efficiency.model_copy(update={"ring": 1.6})}
    )
    capture = parse_file(TESTS / "sendrecv_perf_a100_leonardo_intranode_nccl_info.txt")
    report = gate([capture], lookup("p5.48xlarge"), nodes=2, limits=strict)
    (bw,) = by_check(report, "bandwidth")
    assert bw.status == "warn" and "= 1.48 of the 50.0" in bw.message and "advisory" in bw.message
    all_reduce = parse_file(P4D_LOG)
    (bw2,) = by_check(gate([all_reduce], lookup("p4d.24xlarge"), limits=strict), "bandwidth")
    assert bw2.status == "fail"  # all_reduce is not advisory


@needs_captures
def test_nodes_flag_disagreeing_with_rank_lines_fails() -> None:
    """A node count other than the one the run recorded: the gate judges another run than the
    one asked for, so it cannot pass."""
    report = gate([parse_file(P4D_LOG)], lookup("p4d.24xlarge"), nodes=4)
    (v,) = by_check(report, "nodes")
    assert v.status == "fail" and not report.passed
    assert "--nodes 4 but the rank lines name 2 hosts: not the run asked for" in v.message
    assert gate([parse_file(P4D_LOG)], lookup("p4d.24xlarge"), nodes=2).passed


def test_collective_from_plain_output_names() -> None:
    from gpufabric.nccl.parse.tests_text import collective_from_name

    assert collective_from_name("/x/all_reduce.txt") == "all_reduce"
    assert collective_from_name("reduce_scatter_perf_8n.txt") == "reduce_scatter"
    assert collective_from_name("reduce.json") == "reduce"
    assert collective_from_name("results.txt") is None


def test_thresholds_name_only_catalog_types_and_fabrics() -> None:
    limits = thresholds()
    known = catalog()
    assert set(limits.instances) <= set(known)
    assert {t.fabric for t in known.values()} <= set(limits.fabrics)
