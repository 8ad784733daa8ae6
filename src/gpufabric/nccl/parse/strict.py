"""The one strict check of parsed nccl-tests results: what makes a table unfit to judge.

Every capture goes through `check` when it is parsed (parse/capture.py), so the gate, the
report and `nccl parse` see the same problems. Each problem is one line; the gate fails on it.
"""

from __future__ import annotations

import math

from gpufabric.nccl.model import Row, TestsResult
from gpufabric.nccl.parse.tests_text import COLLECTIVES
from gpufabric.nccl.units import human_bytes


def _row_problem(row: Row) -> str | None:
    for side, m in (("out-of-place", row.out_of_place), ("in-place", row.in_place)):
        if m is None:
            continue
        for name, value in (("time", m.time_us), ("algbw", m.algbw), ("busbw", m.busbw)):
            if not math.isfinite(value) or value < 0:
                return f"{name} {value} at {human_bytes(row.size)} ({side}): not a measurement"
    if row.size < 0 or row.count < 0:
        return f"negative size {row.size} / count {row.count}"
    return None


def check(result: TestsResult) -> tuple[str, ...]:
    """Problems that make `result` unfit to gate; empty when it can be judged."""
    problems: list[str] = []
    if result.collective is None:  # names are read from known ones only (tests_text, --collective)
        problems.append(
            "collective unknown: name the file <collective>_perf*.txt or pass --collective "
            f"({', '.join(sorted(COLLECTIVES))})"
        )
    if not result.rows and (result.complete or result.params or result.ranks):
        what = "header and footer" if result.complete else "a header"
        problems.append(f"{what} but no result rows")
    if result.unparsed_rows:
        first = result.unparsed_rows[0][:80]
        problems.append(
            f"{len(result.unparsed_rows)} table rows could not be read (first: {first!r})"
        )
    for row in result.rows:
        problem = _row_problem(row)
        if problem is not None:
            problems.append(problem)
            break
    return tuple(problems)
