"""Parse throughput of a large NCCL log: gpufabric's parser vs a naive reader, side by side.

    GPUFABRIC_FIXTURES=DIR .venv/bin/python benchmarks/nccl_parse.py [--copies 200] [--repeat 5]

DIR is the folder of real captures the tests read (CONTRIBUTING.md, "Real captures"). The
input is the real 596-line aws-efa-eks p4d log (nccl-tests table interleaved with
NCCL_DEBUG=INFO from 16 ranks) repeated --copies times. The naive reader splits every line
and converts the table rows to floats (roughly what a grep-and-split gate does); it finds
no transport, NICs or ranks. Ratios, not absolute times, are the figures (noisy machines).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from gpufabric.nccl.parse.capture import parse_text
from gpufabric.nccl.parse.debuglog import parse_debug_lines
from gpufabric.nccl.parse.tests_text import parse_tests_text

LOG = Path("nccl-tests") / "all_reduce_perf_2x_p4d_eks_efa_full_debug_log.txt"


def naive(text: str) -> int:
    rows = 0
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 12 and parts[0].split(">:")[-1].isdigit():
            try:
                [float(p) for p in parts[-8:]]
                rows += 1
            except ValueError:
                pass
    return rows


def best_of(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    root = os.environ.get("GPUFABRIC_FIXTURES")
    if not root or not (Path(root) / LOG).is_file():
        sys.exit(f"error: set GPUFABRIC_FIXTURES to the folder of real captures holding {LOG}")
    text = (Path(root) / LOG).read_text() * args.copies
    lines = text.count("\n")
    capture = parse_text(text, LOG.name)
    assert len(capture.results) == args.copies and capture.debug.net_nics_used == (
        "0",
        "1",
        "2",
        "3",
    )
    t_naive = best_of(lambda: naive(text), args.repeat)
    t_full = best_of(lambda: parse_text(text, LOG.name), args.repeat)
    t_table = best_of(lambda: parse_tests_text(text, "all_reduce"), args.repeat)
    t_debug = best_of(lambda: parse_debug_lines(text.splitlines()), args.repeat)
    print(f"input: {lines} lines ({len(text) / 1e6:.1f} MB), {args.copies} x {LOG.name}")
    print(f"naive split reader        : 1.00 (reference, {lines / t_naive / 1e3:.0f} k lines/s)")
    print(f"tables only / naive       : {t_table / t_naive:.2f}")
    print(f"NCCL_DEBUG only / naive   : {t_debug / t_naive:.2f}")
    print(
        f"full parse / naive        : {t_full / t_naive:.2f}  "
        f"({lines / t_full / 1e3:.0f} k lines/s; tables + transport, NICs, ranks, channels)"
    )


if __name__ == "__main__":
    main()
