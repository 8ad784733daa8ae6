"""`nccl gate` judges runs on RDMA shapes (OCI, Nebius) against the catalog's line rates.

A real OCI capture (2 x BM.GPU4.8, RoCE v2) and that capture re-labelled with the published
2-node figures for the newer shapes (OQ-hpc Troubleshooting.md: 2 x BM.GPU.H100.8 avg 464.1 GB/s;
nebius-solution-library soperator threshold 420 GB/s), plus runs well under the line rate.
"""

from __future__ import annotations

import re

import pytest
from tests.conftest import capture

from gpufabric.catalog import lookup
from gpufabric.nccl.gate.verdict import gate
from gpufabric.nccl.parse.capture import parse_file, parse_text

OCI_2NODE = "nccl-tests/all_reduce_perf_oci_bm_gpu4_8_2node_roce_10G.txt"
ROW = re.compile(r"^(\s*10737418240\s+\d+\s+float\s+sum\s+-1\s+)(.*)$", re.M)


def _capture() -> str:
    return capture(OCI_2NODE).read_text()  # skips where the real captures are absent


def _with_busbw(text: str, gpu: str, busbw: float) -> str:
    """The capture's ranks on `gpu`, its 10 GiB row at `busbw` (algbw, time consistent)."""
    algbw = busbw / (2 * 15 / 16)
    usec = 10737418240 / (algbw * 1e9) * 1e6
    row = f"{usec:8.0f}  {algbw:6.2f}  {busbw:6.2f}      0  {usec:8.0f}  {algbw:6.2f}  {busbw:6.2f}      0"
    text = text.replace("NVIDIA A100-SXM4-40GB", gpu)
    text = ROW.sub(lambda m: m.group(1) + row, text)
    return re.sub(r"Avg bus bandwidth\s+: [0-9.]+", f"Avg bus bandwidth    : {busbw:.3f}", text)


def _bandwidth(report) -> str:  # type: ignore[no-untyped-def]
    (verdict,) = [v for v in report.verdicts if v.check == "bandwidth"]
    return f"{verdict.status} {verdict.message}"


def test_real_oci_capture_passes_on_its_shape() -> None:
    report = gate([parse_file(capture(OCI_2NODE))], lookup("BM.GPU4.8"))
    assert report.passed
    assert "2 nodes x 1600 Gbps" in _bandwidth(report)


@pytest.mark.parametrize(
    ("instance_type", "gpu", "busbw", "status"),
    [
        ("BM.GPU.H100.8", "NVIDIA H100 80GB HBM3", 464.1, "pass"),  # OQ-hpc published average
        ("BM.GPU.H100.8", "NVIDIA H100 80GB HBM3", 250.0, "fail"),
        ("BM.GPU.H200.8", "NVIDIA H200", 440.0, "pass"),  # OQ-hpc ncclscout node-pair threshold
        ("BM.GPU.B200.8", "NVIDIA B200", 300.0, "fail"),
        ("gpu-h100-sxm/8gpu-128vcpu-1600gb", "NVIDIA H100 80GB HBM3", 420.0, "pass"),  # soperator
        ("gpu-h200-sxm/8gpu-128vcpu-1600gb", "NVIDIA H200", 280.0, "fail"),
    ],
)
def test_line_rates_judge_runs(instance_type: str, gpu: str, busbw: float, status: str) -> None:
    text = _with_busbw(_capture(), gpu, busbw)
    report = gate([parse_text(text, "all_reduce_perf_run.txt")], lookup(instance_type))
    verdict = _bandwidth(report)
    assert verdict.startswith(status), verdict
    assert "2 nodes x 3200 Gbps" in verdict
