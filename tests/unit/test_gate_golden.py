"""Every verdict line the gate prints, for every real capture and a set of defects, pinned.

A wording, threshold or rule change shows up as a diff of tests/unit/golden/gate_verdicts.json.
Regenerate after an intended change with GPUFABRIC_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES, capture, require_captures

from gpufabric.catalog import catalog, lookup
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_file, parse_text

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "gate_verdicts.json"
TESTS = FIXTURES / "nccl-tests"
DEBUG = FIXTURES / "nccl-debug"

# (fixture, instance type, --nodes, --strict)
REAL: list[tuple[str, str, int | None, bool]] = [
    ("all_gather_perf_gke_a3high_tcpx_2node.txt", "a3-highgpu-8g", 2, False),
    ("all_gather_perf_gke_a3mega_tcpxo_2node.txt", "a3-megagpu-8g", 2, False),
    ("all_gather_perf_gke_a3ultra_gib_2node.txt", "a3-ultragpu-8g", 2, False),
    ("all_gather_perf_gke_a3ultra_rdma_2node.txt", "a3-ultragpu-8g", None, False),
    ("all_gather_perf_gke_a3ultra_skypilot_prefixed.txt", "a3-ultragpu-8g", None, True),
    ("all_reduce_perf_2x_dgx_a100_k8s_legacy_error_col.txt", "Standard_ND96asr_v4", 2, False),
    ("all_reduce_perf_4x_dgx_a100_slurm_legacy_error_col.txt", "Standard_ND96asr_v4", 4, False),
    ("all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt", "p4d.24xlarge", None, False),
    ("all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt", "p5.48xlarge", None, False),
    ("all_reduce_perf_2x_p4de_efa_srun_prefix.txt", "p4de.24xlarge", 2, False),
    ("all_reduce_perf_2x_p5_efa_srun_prefix.txt", "p5.48xlarge", 2, False),
    ("all_reduce_perf_2x_p5_eks_mpirun_elided.txt", "p5.48xlarge", None, False),
    ("all_reduce_perf_p5_awsbatch_mpirun.txt", "p5.48xlarge", None, False),
    ("all_reduce_perf_p5en_elided.txt", "p5en.48xlarge", None, False),
    ("all_reduce_perf_p5en_elided.txt", "p5en.48xlarge", None, True),
    ("all_reduce_perf_oci_bm_gpu4_8_1node_10G.txt", "p4d.24xlarge", 1, False),
    ("sendrecv_perf_a100_leonardo_intranode_nccl_info.txt", "Standard_ND96asr_v4", 1, False),
]
# several files gated as one run: NCCL logs merged, tables judged together
MULTI: list[tuple[list[str], str, int | None]] = [
    (
        [
            "nccl-tests/all_reduce_perf_2x_dgx_a100_k8s_legacy_error_col.txt",
            "nccl-debug/net_ib_8hca_ib.txt",
        ],
        "Standard_ND96asr_v4",
        2,
    ),
    (
        [
            "nccl-debug/net_ib_8hca_plus_bond_roce.txt",
            "nccl-debug/net_ib_azure_completion_error.txt",
        ],
        "Standard_ND96isr_H100_v5",
        None,
    ),
    (
        [
            "nccl-tests/all_reduce_perf_2x_p5_efa_srun_prefix.txt",
            "nccl-tests/all_reduce_perf_p5_awsbatch_mpirun.txt",
            "nccl-tests/all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt",
        ],
        "p5.48xlarge",
        2,
    ),
]
DEBUG_TYPES = ["p5.48xlarge", "Standard_ND96isr_H100_v5", "a3-ultragpu-8g", "a3-megagpu-8g"]

HEADER = (
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
    "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
)
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.5 \n"


def _row(size: int, time: str = "20.0", busbw: str = "300.0", wrong: str = "0") -> str:
    return (
        f"{size:>12} {size // 4:>12}     float     sum      -1 {time:>8}  100.00 {busbw:>7}"
        f"  {wrong:>5} {time:>8}  100.00 {busbw:>7}      0\n"
    )


def _table(rows: list[str], footer: str = FOOTER, header: str = HEADER) -> str:
    return header + "".join(rows) + footer


GOOD = [_row(8 << k) for k in range(28)]
OFI = (
    "h:1:1 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found {n} nics)\n"
)
VIA = "h:1:1 [0] NCCL INFO Channel {c:02d}/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/{c}{gdr}\n"

# name -> (text, file name, instance type, --nodes, --strict)
SYNTHETIC: dict[str, tuple[str, str, str, int | None, bool]] = {
    "good one node": (_table(GOOD), "all_reduce_perf.txt", "p5.48xlarge", 1, False),
    "good two nodes": (_table(GOOD), "all_reduce_perf.txt", "p5.48xlarge", 2, False),
    "slow small sizes": (
        _table([_row(8 << k, time="300.0" if k < 14 else "20.0") for k in range(28)]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "nan busbw": (
        _table([*GOOD[:-1], _row(1 << 30, busbw="nan")]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "wrong values": (
        _table([*GOOD[:-1], _row(1 << 30, wrong="3")]),
        "all_gather_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "no footer": (_table(GOOD[:20], footer=""), "reduce_scatter_perf.txt", "p5.48xlarge", 1, False),
    "no rows": (_table([]), "all_reduce_perf.txt", "p5.48xlarge", 1, False),
    "unknown collective": (_table(GOOD), "results.txt", "p5.48xlarge", 1, False),
    "small sizes only": (_table(GOOD[:10]), "all_reduce_perf.txt", "p5.48xlarge", 1, False),
    "low bandwidth": (
        _table([_row(8 << k, busbw="10.0") for k in range(28)]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "alltoall low": (
        _table([_row(8 << k, busbw="10.0") for k in range(28)]),
        "alltoall_perf.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "out of bounds": (
        _table(GOOD, footer="# Out of bounds values : 5 FAILED\n# Avg bus bandwidth    : 100.5 \n"),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "nccl-tests error": (
        _table(GOOD) + "# error: test failed on rank 3\n",
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "min bw failed": (
        _table(
            GOOD, footer="# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 10.5 FAILED\n"
        ),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "header only": (_table([], footer=""), "all_reduce_perf.txt", "p5.48xlarge", 1, False),
    "sweep stopped": (_table(GOOD[:24]), "all_reduce_perf.txt", "p5.48xlarge", 1, False),
    "elided": (
        _table([*GOOD[:10], "...\n", *GOOD[20:]]),
        "all_gather_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "nodes unknown": (_table(GOOD), "all_reduce_perf.txt", "p5.48xlarge", None, False),
    "above ceiling": (
        _table([_row(8 << k, busbw="2000.0") for k in range(28)]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "nan at 4 KiB": (
        _table([*GOOD[:9], _row(4096, busbw="nan"), *GOOD[10:]]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "inf time at 64 MiB": (
        _table([*GOOD[:23], _row(64 << 20, time="inf"), *GOOD[24:]]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "negative at 8 B": (
        _table([_row(8, busbw="-1.0"), *GOOD[1:]]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    **{
        f"NCCL_ALGO {algo} {coll}": (
            f"h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to {algo}\n" + _table(GOOD),
            f"{coll}_perf.txt",
            "p5.48xlarge",
            2,
            False,
        )
        for algo, coll in (
            ("Tree", "all_reduce"),
            ("Ring", "all_reduce"),
            ("Ring,Tree", "all_reduce"),
            ("NVLSTree,Tree", "all_reduce"),
            ("allreduce:tree;allgather:ring", "all_reduce"),
            ("allreduce:tree;allgather:ring", "all_gather"),
            ("allgather:ring;allreduce:nvlstree", "all_reduce"),
            ("allgather:tree", "all_reduce"),
        )
    },
    "ofi tcp fallback": (
        "h:1:1 [0] NCCL INFO NET/OFI Selected Provider is tcp (found 2 nics)\n"
        "h:1:1 [0] NCCL INFO Using network AWS Libfabric\n",
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "ofi count only": (
        OFI.format(n=32) + "h:1:1 [0] NCCL INFO Using network AWS Libfabric\n",
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "nccl warnings": (
        OFI.format(n=32)
        + "".join(VIA.format(c=c, gdr="/GDRDMA") for c in range(8))
        + "h:1:1 [0] misc.cc:1 NCCL WARN Cuda failure 'out of memory' is not fatal here\n"
        + "h:1:1 [0] misc.cc:1 NCCL WARN NET/OFI Request timed out\n"
        + "h:1:1 [0] misc.cc:1 NCCL WARN Call to connect failed\n",
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "benign warning only": (
        OFI.format(n=32)
        + "".join(VIA.format(c=c, gdr="/GDRDMA") for c in range(8))
        + "h:1:1 [0] misc.cc:1 NCCL WARN Cuda driver is older than the runtime\n",
        "log.txt",
        "p5.48xlarge",
        2,
        True,
    ),
    "rank lines": (
        "".join(
            f"#  Rank {r:2d} Group  0 Pid  1234 on host{r // 8} device  {r % 8} [0x53] NVIDIA H100\n"
            for r in range(16)
        )
        + _table(GOOD),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        None,
        False,
    ),
    "rank lines disagree": (
        "".join(
            f"#  Rank {r:2d} Group  0 Pid  1234 on host{r // 8} device  {r % 8} [0x53] NVIDIA H100\n"
            for r in range(16)
        )
        + _table(GOOD),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        16,
        False,
    ),
    "nccl nNodes": (
        "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 32 nNodes 4 localRanks 8 localRank 0\n"
        + _table(GOOD),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        None,
        False,
    ),
    "four ranks": (
        "".join(
            f"#  Rank {r:2d} Group  0 Pid  1234 on host0 device  {r} [0x53] NVIDIA H100\n"
            for r in range(4)
        )
        + _table(GOOD),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        None,
        False,
    ),
    "two tables in one file": (
        _table(GOOD) + _table([_row(8 << k, busbw="10.0") for k in range(28)]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "efa 12 nics": (
        OFI.format(n=32) + "".join(VIA.format(c=c, gdr="/GDRDMA") for c in range(12)),
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "single node over NVLink": (
        "h:1:1 [0] NCCL INFO NCCL version 2.27.7+cuda12.9\n"
        "h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC/read\n",
        "log.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "network named, no devices": (
        "h:1:1 [0] NCCL INFO Using network IB\n",
        "log.txt",
        "Standard_ND96isr_H100_v5",
        2,
        False,
    ),
    "two RoCE devices among IB": (
        "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB "
        "[2]mlx5_bond_0:1/RoCE [3]mlx5_bond_1:1/RoCE [RO]; OOB eth0:10.2.0.4<0>\n",
        "log.txt",
        "Standard_ND96isr_H100_v5",
        2,
        False,
    ),
    "fatal warning in capitals": (
        OFI.format(n=32)
        + "".join(VIA.format(c=c, gdr="/GDRDMA") for c in range(8))
        + "h:1:1 [0] misc.cc:1 NCCL WARN Connection TIMED OUT\n",
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "in-place nan": (
        _table([*GOOD[:-1], _row(1 << 30).replace("  300.0      0\n", "    nan      0\n")]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "negative algbw": (
        _table([*GOOD[:-1], _row(1 << 30).replace("100.00", "-100.00", 1)]),
        "all_reduce_perf.txt",
        "p5.48xlarge",
        1,
        False,
    ),
    "efa 31 of 32": (
        OFI.format(n=31) + "".join(VIA.format(c=c, gdr="/GDRDMA") for c in range(8)),
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "efa no gdr": (
        OFI.format(n=32) + "".join(VIA.format(c=c, gdr="") for c in range(8)),
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
    "efa 4 nics used": (
        OFI.format(n=32) + "".join(VIA.format(c=c, gdr="/GDRDMA") for c in range(4)),
        "log.txt",
        "p5.48xlarge",
        2,
        False,
    ),
}


def _report(captures: list[Any], itype: str, nodes: int | None, strict: bool) -> dict[str, Any]:
    report = gate(captures, lookup(itype), nodes, strict=strict)
    return {
        "passed": report.passed,
        "nodes": report.nodes,
        "transport": report.transport,
        "peaks": {k: round(v, 3) for k, v in sorted(report.peaks.items())},
        "lines": [v.line() for v in report.verdicts],
        "statuses": [v.status for v in report.verdicts],
    }


def _actual() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, itype, nodes, strict in REAL:
        key = f"{name} {itype} x{nodes}{' strict' if strict else ''}"
        out[key] = _report([parse_file(TESTS / name)], itype, nodes, strict)
    for files, itype, nodes in MULTI:
        captures = [parse_file(FIXTURES / f) for f in files]
        out[f"{' + '.join(files)} {itype} x{nodes}"] = _report(captures, itype, nodes, False)
    for log in sorted(DEBUG.glob("*.txt")):
        for itype in DEBUG_TYPES:
            out[f"{log.name} {itype}"] = _report([parse_file(log)], itype, None, False)
    for name, (text, file, itype, nodes, strict) in SYNTHETIC.items():
        out[name] = _report([parse_text(text, file)], itype, nodes, strict)
    out["merged NCCL logs"] = _merged()
    return out


def _merged() -> dict[str, Any]:
    """merge_debug over several logs: first value of each field, unions of lists."""
    from dataclasses import asdict

    from gpufabric.nccl.gate.fabric import merge_debug

    out: dict[str, Any] = {}
    for files in (
        ["nccl-debug/net_ib_8hca_ib.txt", "nccl-debug/net_ib_azure_completion_error.txt"],
        [
            "nccl-tests/all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt",
            "nccl-debug/net_socket_eth0.txt",
            "nccl-tests/sendrecv_perf_a100_leonardo_intranode_nccl_info.txt",
        ],
        ["nccl-tests/all_reduce_perf_p5en_elided.txt"],
    ):
        merged = asdict(merge_debug([parse_file(FIXTURES / f) for f in files]))
        out[" + ".join(files)] = json.loads(json.dumps(merged, sort_keys=True))
    return out


def test_gate_verdicts_match_golden() -> None:
    require_captures()
    missing = {itype for _, itype, _, _ in REAL} - set(catalog())
    assert not missing, f"instance types not in the catalog: {missing}"
    actual = _actual()
    if os.environ.get("GPUFABRIC_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n")
    assert GOLDEN.is_file(), "no golden verdicts: run with GPUFABRIC_UPDATE_GOLDEN=1"
    golden = json.loads(GOLDEN.read_text())
    for key in sorted(set(golden) | set(actual)):
        assert actual.get(key) == golden.get(key), f"gate verdicts changed for {key!r}"


def test_a_fabric_without_a_rule_warns() -> None:
    import yaml

    from gpufabric.nccl.gate.thresholds import parse_thresholds

    text = capture("nccl-debug/net_ib_8hca_ib.txt").read_text()
    from importlib import resources

    doc = yaml.safe_load(
        resources.files("gpufabric.nccl.gate").joinpath("thresholds.yaml").read_text()
    )
    del doc["fabrics"]["infiniband"]
    report = gate(
        [parse_text(text, "log.txt")],
        lookup("Standard_ND96isr_H100_v5"),
        2,
        limits=parse_thresholds(yaml.safe_dump(doc)),
    )
    lines = [v.line() for v in report.verdicts]
    assert "WARN transport   fabric: no rule for fabric 'infiniband' in thresholds.yaml" in lines
    assert not any(v.check in ("nics", "gdr") for v in report.verdicts)
