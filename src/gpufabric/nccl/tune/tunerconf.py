"""NCCL's example tuner plugin config (CSV): writer, reader and validator.

The reader reads a line the way NVIDIA/nccl plugins/tuner/example/plugin.c (v2.30.7) does, and
its verdicts agree with what that plugin was observed to do (a recording of the
compiled plugin, nccl_tuner_example_observed.json, checked by tests/unit/test_nccl_tuner_conf.py):
- lines are read with fgets into a 256-byte buffer: 255 characters, the rest of a longer line
  comes back as another line; '#' in column 1 or an empty line is skipped
- fields split on ',' with strtok (empty fields vanish and shift the columns; a trailing comma
  is harmless), spaces/tabs trimmed; the first 10 fields are read, fewer than 8 = line ignored
- sizes are strtoull (base 10: '0x10' reads 0, '-1' and values past size_t read SIZE_MAX),
  the other numbers atoi ('4.5' reads 4)
- unknown collective -> allreduce, algorithm -> ring, protocol -> simple, all silently
- a line matches on collective, min <= nBytes <= max, nNodes, nRanks, numPipeOps, regBuff
  (-1 = any); the first match whose (algo, proto) NCCL has not marked IGNORE wins
  (ncclrules.ignored: e.g. nvls with ll is never used)
- getCollInfo leaves *nChannels at 1 when no line matches or the line says -1; a line's 0
  hands 0 to NCCL, which then uses its own per-size default (enqueue.cc: 0 = default). So
  every size of every collective needs a line, and channels 0 is the way to say "NCCL decides".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpufabric.inputs.types import digits
from gpufabric.nccl.tune.ncclrules import (
    ALGORITHM_COLLECTIVES,
    ALGORITHMS,
    COLLECTIVES,
    PROTOCOLS,
    ignored,
)

__all__ = ["ALGORITHMS", "ALGORITHM_COLLECTIVES", "COLLECTIVES", "PROTOCOLS"]

MAX_CHANNELS = 64  # MAXCHANNELS in NCCL src/include/device.h
MAX_LINE_CHARS = 255  # fgets(line, 256): 255 characters, then the rest as another line
MAX_FIELDS = 10
SIZE_MAX = 2**64 - 1  # size_t; strtoull saturates to it

# nccl-tests binary name -> tuner collective name
FROM_TESTS = {
    "all_reduce": "allreduce",
    "all_gather": "allgather",
    "reduce_scatter": "reducescatter",
    "broadcast": "broadcast",
    "reduce": "reduce",
}

_C_NUMBER = re.compile(r"^[ \t\n\v\f\r]*([+-]?)(\d*)")


def strtoull(text: str) -> int:
    """C strtoull(text, NULL, 10): leading digits; none -> 0; '-n' wraps; overflow saturates,
    with a minus sign too (glibc: ULLONG_MAX, not its negation)."""
    m = _C_NUMBER.match(text)
    assert m is not None  # the pattern matches any string
    sign, digits = m.groups()
    value = int(digits) if digits else 0
    if value > SIZE_MAX:
        return SIZE_MAX
    return SIZE_MAX + 1 - value if sign == "-" and value else value


def atoi(text: str) -> int:
    """C atoi(text): leading digits with their sign; none -> 0."""
    m = _C_NUMBER.match(text)
    assert m is not None
    sign, digits = m.groups()
    return (-int(digits) if sign == "-" else int(digits)) if digits else 0


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


def plugin_fields(text: str) -> tuple[list[str], bool]:
    """The fields the plugin reads from one line (no newline), and whether strtok dropped an
    empty field before the last non-empty one (a column shift)."""
    raw = text.split(",")
    while raw and raw[-1] == "":
        raw.pop()  # trailing commas: strtok finds nothing after them
    shifted = "" in raw
    return [t.strip(" \t") for t in raw if t != ""][:MAX_FIELDS], shifted


def read_rule(text: str) -> TunerRule | None:
    """The rule the plugin builds from one line, or None when it ignores the line."""
    fields, _ = plugin_fields(text)
    if len(fields) < 8:
        return None
    coll = fields[0] if fields[0] in COLLECTIVES else "allreduce"
    algo = fields[3] if fields[3] in ALGORITHMS else "ring"
    proto = fields[4] if fields[4] in PROTOCOLS else "simple"
    ints = [atoi(f) for f in fields[5:]] + [-1] * (MAX_FIELDS - len(fields))
    return TunerRule(coll, strtoull(fields[1]), strtoull(fields[2]), algo, proto, *ints)


def choose(
    rules: list[TunerRule],
    collective: str,
    n_bytes: int,
    n_nodes: int,
    n_ranks: int,
    num_pipe_ops: int = 1,
    reg_buff: int = 0,
    collnet: bool = False,
    nccl_rules: bool = True,
) -> tuple[str, str, int]:
    """(algorithm, protocol, nChannels) the plugin hands NCCL; ("none", "none", 1) unmatched.

    `nccl_rules=False`: every cost-table entry valid (how the plugin was recorded)."""
    for r in rules:
        if (
            r.collective == collective
            and r.min_bytes <= n_bytes <= r.max_bytes
            and r.n_nodes in (-1, n_nodes)
            and r.n_ranks in (-1, n_ranks)
            and r.num_pipe_ops in (-1, num_pipe_ops)
            and r.reg_buff in (-1, reg_buff)
            and not (
                nccl_rules
                and ignored(collective, r.algorithm, r.protocol, n_nodes, n_ranks, collnet)
            )
        ):
            return r.algorithm, r.protocol, 1 if r.channels == -1 else r.channels
    return "none", "none", 1


def parse_rule(
    text: str, line_no: int, problems: list[Problem], caveat: bool = True
) -> TunerRule | None:
    """One config line -> the rule the plugin reads, appending to `problems` what it misreads.

    With `caveat`, channels = -1 is an error (it means one channel, see the module docstring);
    without, a warning (the README documents -1 as "keep NCCL's choice").
    """

    def say(severity: str, msg: str) -> None:
        problems.append(Problem(line_no, severity, msg))

    fields, shifted = plugin_fields(text)
    if shifted:
        say("error", "empty field: strtok skips it and every later column shifts left")
        return None
    if len(fields) < 8:
        say("error", f"{len(fields)} fields; the plugin needs 8 to 10 and ignores this line")
        return None
    if len(text.split(",")) > MAX_FIELDS and text.split(",")[MAX_FIELDS:] != [""]:
        say("warning", "more than 10 fields: the plugin reads the first 10 and ignores the rest")
    rule = read_rule(text)
    assert rule is not None
    coll, lo, hi, algo, proto = fields[:5]
    ok = True
    for given, known, fallback, what in (
        (coll, COLLECTIVES, "allreduce", "collective"),
        (algo, ALGORITHMS, "ring", "algorithm"),
        (proto, PROTOCOLS, "simple", "protocol"),
    ):
        if given not in known:
            say("error", f"{what} {given!r} unknown: the plugin silently reads it as {fallback}")
            ok = False
    for name, given, value in (
        ("min_bytes", lo, rule.min_bytes),
        ("max_bytes", hi, rule.max_bytes),
    ):
        if not digits(given):
            severity = "warning" if re.match(r"^\+?\d", given) else "error"
            say(severity, f"{name} {given!r}: strtoull reads it as {value}")
            ok = ok and severity == "warning"
        elif int(given) > SIZE_MAX:
            say("warning", f"{name} {given} exceeds size_t: strtoull reads {SIZE_MAX}")
    if rule.min_bytes > rule.max_bytes:
        say("error", f"min_bytes {rule.min_bytes} > max_bytes {rule.max_bytes}: never matches")
        ok = False
    for name, given in zip(
        ("channels", "nNodes", "nRanks", "numPipeOps", "regBuff"), fields[5:], strict=False
    ):
        if not re.match(r"^-?\d+$", given):
            if re.match(r"^[+-]?\d", given):
                say("warning", f"{name} {given!r}: atoi reads it as {atoi(given)}")
            else:
                say("error", f"{name} {given!r} is not an integer (atoi reads {atoi(given)})")
                ok = False
    ch = rule.channels
    if ch == -1:
        msg = (
            "channels -1: the example tuner then leaves nChannels at 1 (channel caveat); "
            "write 0 for NCCL's own default or an explicit count"
        )
        say("error" if caveat else "warning", msg)
        ok = ok and not caveat
    elif ch < -1:
        say("error", f"channels {ch}: use 0 (NCCL's default), -1 or 1..{MAX_CHANNELS}")
        ok = False
    elif ch > MAX_CHANNELS:
        say("warning", f"channels {ch} above MAXCHANNELS {MAX_CHANNELS}: NCCL runs at most 64")
    for name, v in (
        ("nNodes", rule.n_nodes),
        ("nRanks", rule.n_ranks),
        ("numPipeOps", rule.num_pipe_ops),
    ):
        if v != -1 and v < 1:
            say("error", f"{name} {v}: use -1 (any) or a positive count")
            ok = False
    if rule.reg_buff not in (-1, 0, 1):
        say("error", f"regBuff {rule.reg_buff}: use -1 (any), 0 or 1")
        ok = False
    if not ok:
        return None
    why = ignored(rule.collective, rule.algorithm, rule.protocol, rule.n_nodes, rule.n_ranks)
    if why is not None:
        say("warning", f"{why}: NCCL marks it IGNORE and the next matching line applies")
    return rule


def _coverage_gaps(rules: list[TunerRule], coll: str, nodes: int, ranks: int) -> list[str]:
    spans = sorted(
        (r.min_bytes, r.max_bytes)
        for r in rules
        if r.collective == coll
        and r.n_nodes in (-1, nodes)
        and r.n_ranks in (-1, ranks)
        and r.num_pipe_ops == -1
        and r.reg_buff == -1
        and ignored(coll, r.algorithm, r.protocol, nodes, ranks) is None
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
            rest = line[MAX_LINE_CHARS:]
            if rest.strip(" \t\r"):
                problems.append(
                    Problem(
                        no,
                        "error",
                        f"{len(line)} characters: fgets(256) cuts the line after "
                        f"{MAX_LINE_CHARS} and reads {rest[:20]!r}... as another line",
                    )
                )
                continue
            problems.append(
                Problem(no, "warning", f"{len(line)} characters: blanks after {MAX_LINE_CHARS} cut")
            )
            line = line[:MAX_LINE_CHARS]
        if line.endswith("\r"):
            problems.append(
                Problem(no, "warning", "CRLF line ending: the '\\r' stays in the last field")
            )
            line = line[:-1]
        if line.lstrip(" \t").startswith("#") and "," not in line:
            problems.append(
                Problem(no, "warning", "comment not in column 1: read as a 1-field line, ignored")
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
                and ignored(
                    rule.collective,
                    earlier.algorithm,
                    earlier.protocol,
                    earlier.n_nodes,
                    earlier.n_ranks,
                )
                is None
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
