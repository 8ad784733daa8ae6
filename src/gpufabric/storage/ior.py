"""IOR and mdtest summaries (hpc/ior), read where those tools are installed.

Shapes (hpc/ior src/ior-output.c and src/mdtest.c; real output of 3.3.0, 4.0.0 and master in
tests/unit/storage_data/hpc-ior):
- IOR text: a line "Summary of all tests:", then a header starting "Operation  Max(MiB)
  Min(MiB)  Mean(MiB) ...", then one row per operation ("write", "read") whose columns follow
  the header (master adds Stonewall columns: read by name). Bandwidths are MiB/s, already
  aggregated over every task of the MPI job.
- IOR JSON (-O summaryFormat=JSON): "summary": [{"operation": "write", "bwMeanMIB": ...}].
  3.3.0 writes segmentCount, blockSize and transferSize twice into each summary object, with
  the same value: a key repeated with the very same value is read, a different one refused.
- mdtest: a "SUMMARY rate" heading, a header "Operation  Max  Min  Mean  Std Dev", then one
  row per operation in operations per second (parse_mdtest lists the layouts).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from gpufabric.errors import UserError
from gpufabric.inputs.formats import parse_json

MIB = 1 << 20
# "SUMMARY rate: (of 3 iterations)" (3.3.0, 4.0.0), "SUMMARY rate (in ops/sec): (of 3 ...)" (master)
_MDTEST_RATE = re.compile(r"^SUMMARY rate(?: \(in ops/sec\))?:")
_NUM = r"(?:[-+0-9.eE]+|NA)"
_MDTEST_ROW = re.compile(
    rf"^\s*(?P<op>[A-Za-z][A-Za-z ()]*?)\s*:?\s+(?P<nums>{_NUM}(?:\s+{_NUM})*)\s*$"
)


@dataclass(frozen=True)
class IorResult:
    source: str
    mean_gbps: dict[str, float]  # operation -> mean bandwidth, GB/s (10**9 B/s)
    max_gbps: dict[str, float]


def _finite(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise UserError(f"{where}: {text!r} is not a non-negative number")
    return value


def parse_ior(text: str, source: str) -> IorResult:
    """The 'Summary of all tests' of an IOR run (text or JSON summary)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _parse_ior_json(stripped, source)
    lines = text.splitlines()
    try:
        at = next(i for i, line in enumerate(lines) if line.startswith("Summary of all tests:"))
    except StopIteration:
        raise UserError(f"{source}: no 'Summary of all tests:' in it (IOR cut short?)") from None
    header_at = at + 1  # every version prints the header on the next line
    if header_at == len(lines) or "Max(MiB)" not in lines[header_at]:
        raise UserError(f"{source}: IOR summary without its header line")
    columns = lines[header_at].split()
    lacking = [c for c in ("Max(MiB)", "Mean(MiB)") if c not in columns]
    if lacking:
        raise UserError(f"{source}: IOR summary header without {' and '.join(lacking)}")
    mean: dict[str, float] = {}
    top: dict[str, float] = {}
    for number, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        cells = line.split()
        if not cells or cells[0] not in ("write", "read"):
            break
        if len(cells) < 4:
            raise UserError(f"{source}:{number}: IOR summary row cut short")
        row = dict(zip(columns, cells, strict=False))
        where = f"{source}:{number}"
        mean[cells[0]] = _finite(row["Mean(MiB)"], where) * MIB / 1e9
        top[cells[0]] = _finite(row["Max(MiB)"], where) * MIB / 1e9
    if not mean:
        raise UserError(f"{source}: IOR summary has no write or read row")
    return IorResult(source, mean, top)


def _parse_ior_json(text: str, source: str) -> IorResult:
    # strict: NaN refused, and a key given twice unless with the very same value (3.3.0)
    data = parse_json(text, where=source, duplicates="identical")
    rows = data.get("summary")  # text starting with "{" parses to an object
    if not isinstance(rows, list) or not rows:
        raise UserError(f"{source}: IOR JSON without a 'summary' list")
    mean: dict[str, float] = {}
    top: dict[str, float] = {}
    for index, row in enumerate(rows):
        where = f"{source}: summary[{index}]"
        if not isinstance(row, dict) or row.get("operation") not in ("write", "read"):
            raise UserError(f"{where}: operation must be write or read")
        op = row["operation"]
        mean[op] = _json_gbps(row, "bwMeanMIB", where)
        top[op] = _json_gbps(row, "bwMaxMIB", where)
    return IorResult(source, mean, top)


def _json_gbps(row: dict[str, Any], key: str, where: str) -> float:
    """One MiB/s figure of an IOR JSON summary row, in GB/s."""
    value = row.get(key)
    if value is None:
        raise UserError(f"{where}: no {key}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(f"{where}: {key} {value!r} is not a number")
    return _finite(str(value), f"{where}: {key}") * MIB / 1e9


def parse_mdtest(text: str, source: str) -> dict[str, float]:
    """Mean rate (operations per second) per mdtest operation, e.g. 'File creation'.

    Every layout in use: 3.3.0 "SUMMARY rate: (of N iterations)" with rows "File creation :
    max min mean sd"; 4.0.0 the same heading, rows without the colon, and with
    --showRankStatistics three per-rank columns first (max min mean, then the four); master
    (4.1.0+dev) "SUMMARY rate (in ops/sec): (of N iterations)". The table ends at its first line
    that is not a row (-P prints a "SUMMARY time" table after a blank line). The mean over iterations is always the last
    column but one (3.3.0's stonewall row "NA NA rate NA" too)."""
    lines = text.splitlines()
    try:
        at = next(i for i, line in enumerate(lines) if _MDTEST_RATE.match(line))
    except StopIteration:
        raise UserError(
            f"{source}: no 'SUMMARY rate' in it (mdtest cut short, or run with -T / times only?)"
        ) from None
    rates: dict[str, float] = {}
    for number, line in enumerate(lines[at + 1 :], start=at + 2):
        if line.lstrip().startswith(("Operation", "---")):
            continue
        match = _MDTEST_ROW.match(line)
        if match is None:
            break  # a blank line or "-- finished at" ends the table
        numbers = match["nums"].split()
        if len(numbers) not in (4, 7):
            raise UserError(
                f"{source}:{number}: mdtest row needs max, min, mean, std dev (and, with "
                f"--showRankStatistics, three per-rank columns first); got {len(numbers)} numbers"
            )
        rates[match["op"].strip()] = _finite(numbers[-2], f"{source}:{number}")
    if not rates:
        raise UserError(f"{source}: mdtest summary has no rows")
    return rates
