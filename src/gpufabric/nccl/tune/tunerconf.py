"""NCCL's example tuner plugin config (CSV): writer and validator.

The rules are those of NVIDIA/nccl plugins/tuner/example/plugin.c (v2.30.7) and its README:
- lines are read with fgets into a 256-byte buffer; '#' in column 1 or an empty line is skipped
- fields split on ',' with strtok (empty fields vanish and shift the columns), spaces/tabs trimmed
- 8, 9 or 10 fields: collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks
  [,numPipeOps[,regBuff]]; other counts are ignored silently
- unknown collective -> allreduce, algorithm -> ring, protocol -> simple, all silently
- a line matches on collective, min <= nBytes <= max, nNodes, nRanks, numPipeOps, regBuff
  (-1 = any); the first match whose (algo, proto) NCCL has not marked IGNORE wins
- getCollInfo sets *nChannels = 1 before matching and NCCL treats any non-zero value as an
  override, so channels = -1 or no matching line leaves the collective on ONE channel
  (cloud-facts.md F.3 "channel caveat", read from the code, not run). This writer therefore
  always writes an explicit channel count and covers every collective over every size.
"""

from __future__ import annotations

from dataclasses import dataclass

COLLECTIVES = ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")
ALGORITHMS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat")
PROTOCOLS = ("ll", "ll128", "simple")
MAX_CHANNELS = 64  # MAXCHANNELS in NCCL src/include/device.h
MAX_LINE_CHARS = 254  # fgets(line, 256): 254 characters + '\n' + NUL
SIZE_MAX = 2**64 - 1  # size_t; strtoull accepts it

# Which collectives each algorithm implements (NCCL src/enqueue.cc algorithm tables, summarised).
# A combination outside this table is IGNORE in NCCL's cost table: the line is skipped.
ALGORITHM_COLLECTIVES: dict[str, tuple[str, ...]] = {
    "ring": COLLECTIVES,
    "tree": ("allreduce",),
    "collnet_direct": ("allreduce", "allgather", "reducescatter"),
    "collnet_chain": ("allreduce",),
    "nvls": ("allreduce", "allgather", "reducescatter"),
    "nvls_tree": ("allreduce",),
    "pat": ("allgather", "reducescatter"),
}

# nccl-tests binary name -> tuner collective name
FROM_TESTS = {
    "all_reduce": "allreduce",
    "all_gather": "allgather",
    "reduce_scatter": "reducescatter",
    "broadcast": "broadcast",
    "reduce": "reduce",
}


@dataclass(frozen=True)
class TunerRule:
    collective: str
    min_bytes: int
    max_bytes: int
    algorithm: str
    protocol: str
    channels: int
    n_nodes: int = -1
    n_ranks: int = -1
    num_pipe_ops: int = -1
    reg_buff: int = -1

    def csv(self) -> str:
        fields = [
            self.collective,
            self.min_bytes,
            self.max_bytes,
            self.algorithm,
            self.protocol,
            self.channels,
            self.n_nodes,
            self.n_ranks,
        ]
        if self.num_pipe_ops != -1 or self.reg_buff != -1:
            fields += [self.num_pipe_ops, self.reg_buff]
        return ",".join(str(f) for f in fields)


def render(rules: list[TunerRule], comments: list[str]) -> str:
    """The config file: '#' comment lines (column 1), then one CSV line per rule."""
    head = [f"# {c}" if c else "#" for c in comments]
    head.append("# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks")
    return "\n".join(head + [r.csv() for r in rules]) + "\n"


@dataclass(frozen=True)
class Problem:
    line: int  # 1-based; 0 for whole-file problems
    severity: str  # "error" | "warning"
    message: str

    def text(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        return f"{self.severity}: {where}: {self.message}"


def _int(text: str) -> int | None:
    body = text[1:] if text.startswith("-") else text
    return int(text) if body.isdigit() else None


def parse_rule(
    text: str, line_no: int, problems: list[Problem], caveat: bool = True
) -> TunerRule | None:
    """One config line -> TunerRule, appending what the plugin would misread to `problems`.

    With `caveat`, channels = -1 is an error (it means one channel, see the module docstring);
    without, a warning (the README documents -1 as "keep NCCL's choice").
    """

    def err(msg: str) -> None:
        problems.append(Problem(line_no, "error", msg))

    raw_fields = text.split(",")
    if any(not f.strip(" \t") for f in raw_fields):
        err("empty field: strtok skips it and every later column shifts left")
        return None
    fields = [f.strip(" \t") for f in raw_fields]
    if not 8 <= len(fields) <= 10:
        err(f"{len(fields)} fields; the plugin needs 8, 9 or 10 and ignores this line otherwise")
        return None
    coll, lo, hi, algo, proto = fields[:5]
    ok = True
    if coll not in COLLECTIVES:
        err(f"collective {coll!r} unknown: the plugin silently reads it as allreduce")
        ok = False
    if algo not in ALGORITHMS:
        err(f"algorithm {algo!r} unknown: the plugin silently reads it as ring")
        ok = False
    if proto not in PROTOCOLS:
        err(f"protocol {proto!r} unknown: the plugin silently reads it as simple")
        ok = False
    lo_v, hi_v = (int(x) if x.isdigit() else None for x in (lo, hi))
    if lo_v is None or hi_v is None:
        err("min_bytes and max_bytes must be unsigned integers (strtoull)")
        ok = False
    elif hi_v > SIZE_MAX:
        err(f"max_bytes {hi_v} exceeds size_t")
        ok = False
    elif lo_v > hi_v:
        err(f"min_bytes {lo_v} > max_bytes {hi_v}: the line never matches")
        ok = False
    ints = [_int(x) for x in fields[5:]]
    if any(v is None for v in ints):
        err("channels, nNodes, nRanks, numPipeOps and regBuff must be integers (atoi)")
        return None
    values = [v for v in ints if v is not None]
    ch, nodes, ranks = values[:3]
    pipe = values[3] if len(values) > 3 else -1
    reg = values[4] if len(values) > 4 else -1
    if ch == -1:
        msg = (
            "channels -1: the example tuner then leaves nChannels at its default of 1 "
            "(channel caveat); write an explicit channel count"
        )
        problems.append(Problem(line_no, "error" if caveat else "warning", msg))
        ok = ok and not caveat
    elif not 1 <= ch <= MAX_CHANNELS:
        err(f"channels {ch} outside 1..{MAX_CHANNELS} (MAXCHANNELS)")
        ok = False
    for name, v in (("nNodes", nodes), ("nRanks", ranks), ("numPipeOps", pipe)):
        if v != -1 and v < 1:
            err(f"{name} {v}: use -1 (any) or a positive count")
            ok = False
    if reg not in (-1, 0, 1):
        err(f"regBuff {reg}: use -1 (any), 0 or 1")
        ok = False
    if not ok or lo_v is None or hi_v is None:
        return None
    if coll not in ALGORITHM_COLLECTIVES[algo]:
        problems.append(
            Problem(
                line_no,
                "warning",
                f"{algo} does not implement {coll}: NCCL marks it IGNORE and the "
                "next matching line applies",
            )
        )
    return TunerRule(coll, lo_v, hi_v, algo, proto, ch, nodes, ranks, pipe, reg)


def _coverage_gaps(rules: list[TunerRule], coll: str, nodes: int, ranks: int) -> list[str]:
    spans = sorted(
        (r.min_bytes, r.max_bytes)
        for r in rules
        if r.collective == coll
        and r.n_nodes in (-1, nodes)
        and r.n_ranks in (-1, ranks)
        and r.num_pipe_ops == -1
        and r.reg_buff == -1
        and coll in ALGORITHM_COLLECTIVES[r.algorithm]
    )
    gaps: list[str] = []
    nxt = 0
    for lo, hi in spans:
        if lo > nxt:
            gaps.append(f"{nxt}..{lo - 1}")
        nxt = max(nxt, hi + 1)
        if nxt > SIZE_MAX:
            break
    if nxt <= SIZE_MAX:
        gaps.append(f"{nxt}..{SIZE_MAX}")
    return gaps


def validate(text: str, nodes: int = -1, ranks: int = -1, caveat: bool = True) -> list[Problem]:
    """Everything the example tuner would misread, plus (with `caveat`) what the channel caveat
    needs: explicit channels and every collective covered over every size.

    `nodes` / `ranks` say which communicator to check coverage for (-1: only wildcard lines count).
    """
    problems: list[Problem] = []
    rules: list[tuple[int, TunerRule]] = []
    for no, line in enumerate(text.split("\n"), start=1):
        if line == "" or line.startswith("#"):
            continue
        if len(line) > MAX_LINE_CHARS:
            problems.append(
                Problem(
                    no,
                    "error",
                    f"{len(line)} characters: fgets(256) cuts the line "
                    "and reads the rest as another line",
                )
            )
            continue
        if line.endswith("\r"):
            problems.append(
                Problem(no, "warning", "CRLF line ending: the '\\r' stays in the last field")
            )
            line = line[:-1]
        if line.lstrip(" \t").startswith("#"):
            problems.append(
                Problem(
                    no, "error", "comment not in column 1: the plugin parses it as a config line"
                )
            )
            continue
        if not line.strip(" \t"):
            problems.append(Problem(no, "warning", "whitespace-only line: counted, then ignored"))
            continue
        rule = parse_rule(line, no, problems, caveat)
        if rule is None:
            continue
        for earlier_no, earlier in rules:
            if (
                (
                    earlier.collective,
                    earlier.n_nodes,
                    earlier.n_ranks,
                    earlier.num_pipe_ops,
                    earlier.reg_buff,
                )
                == (rule.collective, rule.n_nodes, rule.n_ranks, rule.num_pipe_ops, rule.reg_buff)
                and earlier.min_bytes <= rule.min_bytes
                and rule.max_bytes <= earlier.max_bytes
                and rule.collective in ALGORITHM_COLLECTIVES[earlier.algorithm]
            ):
                problems.append(
                    Problem(
                        no, "warning", f"never used: line {earlier_no} matches the same sizes first"
                    )
                )
                break
        rules.append((no, rule))
    if caveat:
        plain = [r for _, r in rules]
        for coll in COLLECTIVES:
            for gap in _coverage_gaps(plain, coll, nodes, ranks):
                problems.append(
                    Problem(
                        0,
                        "error",
                        f"{coll} bytes {gap} match no line: NCCL would "
                        "run them on 1 channel (channel caveat)",
                    )
                )
    return problems


def errors(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]
