"""nccl-tests text output: header, rank lines, the results table (current and legacy), footer.

Column layout follows NVIDIA/nccl-tests src/util.cu (writeResultHeader / writeBenchmarkLine*):
size, count, type, redop, root, then time/algbw/busbw/#wrong out-of-place and in-place,
optionally per-iteration columns (i_min, i_max, i_p99, i_cv%) and a timestamp. Old releases
print no root column and an 'error' column instead of '#wrong' (fixtures: DeepOps DGX A100,
aws-efa-eks p4d). Rows are read by the header's column names, not by position on the line, so
uneven spacing (GKE A3 Mega fixture) does not matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpufabric.inputs.types import digits
from gpufabric.nccl.model import Measurement, RankInfo, Row, TestsResult
from gpufabric.nccl.parse.lines import nccl_line, strip_prefixes

# Binaries of nccl-tests (src/*.cu). Longest first so 'reduce_scatter' wins over 'reduce'.
COLLECTIVES: tuple[str, ...] = tuple(
    sorted(
        (
            "all_reduce",
            "all_gather",
            "reduce_scatter",
            "alltoall",
            "alltoallv",
            "sendrecv",
            "broadcast",
            "reduce",
            "gather",
            "scatter",
            "hypercube",
        ),
        key=len,
        reverse=True,
    )
)

_PARAM = re.compile(
    r"(nThread|nGpus|minBytes|maxBytes|step|warmup iters|agg iters|iters|validation|graph|unalign)"
    r":?\s+(\S+)"
)
_RANK = re.compile(
    r"^#\s+Rank\s+(\d+)(?:\s+Group\s+(\d+))?\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)"
    r"\s+\[([^\]]*)\]\s*(.*)$"
)
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?")
_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)\s*(OK|FAILED)?")
_TESTS_VERSION = re.compile(r"^#\s*nccl-tests version (\S+)")
# nccl-tests >= 2.17.4 (src/util.cu writeDeviceReport): "# nccl-tests version 2.19.6
# nccl-headers=22807 nccl-library=22807": the NCCL the binary was built with / runs with
_LIBRARY = re.compile(r"\bnccl-library=(\d+)")
_STARTING = re.compile(r"^#\s*Collective test starting:\s*(\S+)")
_NCCL_VERSION = re.compile(r"^NCCL version (\S+)")
_ERROR = re.compile(r"^#\s*error:\s*(.+)$")

# Layouts used when a table arrives without its column-name line (elided excerpts).
_CURRENT = [
    "size",
    "count",
    "type",
    "redop",
    "root",
    "time",
    "algbw",
    "busbw",
    "#wrong",
    "time",
    "algbw",
    "busbw",
    "#wrong",
]
_LEGACY = [
    "size",
    "count",
    "type",
    "redop",
    "time",
    "algbw",
    "busbw",
    "error",
    "time",
    "algbw",
    "busbw",
    "error",
]


def nccl_version_string(code: object) -> str | None:
    """NCCL_VERSION_CODE -> '2.28.7': major*10000 + minor*100 + patch since NCCL 2.9, and
    major*1000 + minor*100 + patch before it (nccl.h.in NCCL_VERSION), so 2708 is 2.7.8."""
    if not isinstance(code, int) or isinstance(code, bool) or code <= 0:
        return None
    if code < 10000:
        return f"{code // 1000}.{code // 100 % 10}.{code % 100}"
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}"


def collective_from_name(name: str) -> str | None:
    """'all_reduce_perf_2x_p5.txt', 'all_reduce_perf' or 'all_reduce.txt' -> 'all_reduce'."""
    base = name.rsplit("/", 1)[-1]
    stem = base.split(".", 1)[0]
    for coll in COLLECTIVES:
        if stem == coll or base.startswith(coll + "_perf"):
            return coll
    return None


def parse_params(line: str) -> dict[str, str]:
    """'# nThread 1 nGpus 8 minBytes ...' -> {'nThread': '1', 'nGpus': '8', ...}."""
    return {key.replace(" ", "_"): value for key, value in _PARAM.findall(line)}


def _number(text: str) -> float:
    return float(text)


def _measurement(names: list[str], values: list[str]) -> Measurement:
    cols = dict(zip(names, values, strict=True))
    wrong_text = cols.get("#wrong")
    wrong = None if wrong_text in (None, "N/A") else int(_number(wrong_text))
    error_text = cols.get("error")
    error = None if error_text in (None, "N/A") else _number(error_text)
    time_text = cols.get("time", cols.get("cputime", "nan"))
    return Measurement(
        time_us=_number(time_text),
        algbw=_number(cols["algbw"]),
        busbw=_number(cols["busbw"]),
        wrong=wrong,
        error=error,
    )


def parse_row(tokens: list[str], names: list[str]) -> Row | None:
    """A table row by column names; None when the token count does not fit the header."""
    if "timestamp" in names:  # 'YYYY-mm-dd HH:MM:SS' is two tokens
        names = [n for n in names if n != "timestamp"]
        tokens = tokens[: len(names)] if len(tokens) == len(names) + 2 else tokens
    if len(tokens) != len(names):
        return None
    times = [i for i, n in enumerate(names) if n in ("time", "cputime")]
    if len(times) != 2:
        return None
    first, second = times
    side = second - first
    try:
        out_of_place = _measurement(names[first:second], tokens[first:second])
        in_place = _measurement(names[second : second + side], tokens[second : second + side])
        root = int(tokens[names.index("root")]) if "root" in names else None
        return Row(
            size=int(tokens[0]),
            count=int(tokens[1]),
            dtype=tokens[2],
            redop=tokens[3],
            root=root,
            out_of_place=out_of_place,
            in_place=in_place,
        )
    except (ValueError, KeyError):
        return None


@dataclass
class _Builder:
    collective: str | None = None
    names: list[str] | None = None
    rows: list[Row] = field(default_factory=list)
    ranks: list[RankInfo] = field(default_factory=list)
    params: dict[str, str] = field(default_factory=dict)
    nccl_version: str | None = None
    tests_version: str | None = None
    avg: float | None = None
    avg_status: str | None = None
    oob: int | None = None
    oob_ok: bool | None = None
    legacy: bool = False
    elided: bool = False
    complete: bool = False
    errors: list[str] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)

    def touched(self) -> bool:
        return bool(self.rows or self.ranks or self.params or self.names or self.complete)

    def build(self) -> TestsResult:
        return TestsResult(
            collective=self.collective,
            rows=tuple(self.rows),
            ranks=tuple(self.ranks),
            params=dict(self.params),
            nccl_version=self.nccl_version,
            tests_version=self.tests_version,
            avg_busbw=self.avg,
            avg_busbw_status=self.avg_status,
            out_of_bounds=self.oob,
            out_of_bounds_ok=self.oob_ok,
            legacy_format=self.legacy,
            elided=self.elided,
            complete=self.complete,
            errors=tuple(self.errors),
            unparsed_rows=tuple(self.unparsed),
            source="text",
        )


def _is_row(tokens: list[str]) -> bool:
    return len(tokens) >= 8 and digits(tokens[0]) and digits(tokens[1])


def _header_names(line: str) -> list[str] | None:
    tokens = line.lstrip("#").split()
    if "size" in tokens and "count" in tokens and ("time" in tokens or "cputime" in tokens):
        return tokens
    return None


class _Parser:
    """Line-by-line state machine; a new header after rows starts a new result."""

    def __init__(self, collective: str | None) -> None:
        self.collective = collective
        self.results: list[TestsResult] = []
        self.cur = _Builder(collective=collective)

    def start_new(self) -> None:
        if self.cur.rows or self.cur.complete:
            self.results.append(self.cur.build())
            self.cur = _Builder(collective=self.collective)

    def feed(self, raw: str) -> None:
        line = strip_prefixes(raw)
        stripped = line.strip()
        if stripped in ("...", "\u2026"):
            self.cur.elided = True
            return
        if line.startswith("#"):
            self.header(line)
            return
        # `NCCL version X` bare (NCCL_DEBUG=VERSION) or as an INFO line's message (=INFO)
        info = nccl_line(stripped)
        match = _NCCL_VERSION.match(info.msg if info is not None else stripped)
        if match:
            self.cur.nccl_version = match[1]
            return
        tokens = stripped.split()
        if not _is_row(tokens):
            return
        if self.cur.complete:  # a table after a footer without a new header: new run
            self.start_new()
        cur = self.cur
        names = cur.names
        if names is None:
            names = _CURRENT if len(tokens) == len(_CURRENT) else _LEGACY
            cur.legacy = names is _LEGACY
        row = parse_row(tokens, names)
        if row is None:
            cur.unparsed.append(stripped)
        else:
            cur.rows.append(row)

    def header(self, line: str) -> None:
        if line.lstrip("# ").startswith("nThread"):
            if self.cur.rows:
                self.start_new()
            self.cur.params.update(parse_params(line))
            return
        if (m := _STARTING.match(line)) is not None:
            self.start_new()
            self.cur.collective = self.cur.collective or collective_from_name(m[1])
            return
        cur = self.cur
        if (m := _RANK.match(line)) is not None:
            group = int(m[2]) if m[2] is not None else None
            cur.ranks.append(
                RankInfo(int(m[1]), group, int(m[3]), m[4], int(m[5]), m[6], m[7].strip())
            )
        elif (m := _OOB.match(line)) is not None:
            cur.oob = int(m[1])
            cur.oob_ok = (m[2] or "OK") == "OK" and cur.oob == 0
        elif (m := _AVG.match(line)) is not None:
            try:
                cur.avg = float(m[1])
            except ValueError:
                cur.avg = None
            cur.avg_status = m[2]
            cur.complete = True
        elif (m := _TESTS_VERSION.match(line)) is not None:
            cur.tests_version = m[1]
            library = _LIBRARY.search(line)
            if library is not None and cur.nccl_version is None:
                cur.nccl_version = nccl_version_string(int(library[1]))
        elif (m := _ERROR.match(line)) is not None:
            cur.errors.append(m[1].strip())
        elif (names := _header_names(line)) is not None:
            if cur.rows:
                self.start_new()
                cur = self.cur
            cur.names = names
            cur.legacy = "root" not in names and "error" in names

    def finish(self) -> list[TestsResult]:
        if self.cur.touched():
            self.results.append(self.cur.build())
        return self.results


def parse_tests_text(text: str, collective: str | None = None) -> list[TestsResult]:
    """Every nccl-tests table in `text` (launcher prefixes and interleaved NCCL lines allowed)."""
    parser = _Parser(collective)
    for raw in text.splitlines():
        parser.feed(raw)
    return parser.finish()
