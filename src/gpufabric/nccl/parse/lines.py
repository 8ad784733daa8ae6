"""Line anatomy: launcher prefixes and the NCCL log-line header.

Launchers prepend their own tags to every line of every rank; these are removed before any
parsing. The table is data: add a launcher by adding a row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (name, pattern matched at the start of a line). Applied repeatedly, so stacked prefixes
# (SkyPilot around Open MPI) come off one after the other.
LAUNCHER_PREFIXES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Open MPI --tag-output: '[1,0]<stdout>:' (fixtures: p5 under Batch, p5 and p4d under EKS)
    ("mpirun", re.compile(r"\[\d+,\d+\]<(?:stdout|stderr)>:")),
    # srun --label: '0: ' (fixtures: awsome-distributed-training p4de / p5)
    ("srun", re.compile(r"\d+: ")),
    # SkyPilot: '(head, rank=0, pid=3808) ' / '(worker1, rank=1, pid=2769, ip=10.0.0.1) '
    ("skypilot", re.compile(r"\((?:head|worker\d*), rank=\d+, pid=\d+(?:, ip=[^)]*)?\) ")),
)

# 'host:pid:tid [dev] NCCL INFO msg', optionally with 'file.cc:123 ' before 'NCCL WARN',
# or a bare 'NCCL INFO msg' when the publisher cut the host part.
NCCL_LINE = re.compile(
    r"^(?:(?P<host>[^\s:]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>\d+)\] )?"
    r"(?:\S+:\d+ )?NCCL (?P<level>INFO|WARN|TRACE|ABORT) ?(?P<msg>.*)$"
)


# One alternation of every launcher prefix, repeated: one regex call per line.
_ANY_PREFIX = re.compile("(?:" + "|".join(p.pattern for _, p in LAUNCHER_PREFIXES) + ")+")
_PREFIX_START = frozenset("[(0123456789")


def strip_prefixes(line: str) -> str:
    """The line without launcher tags and without trailing whitespace / CR."""
    line = line.rstrip()
    if line[:1] in _PREFIX_START:
        match = _ANY_PREFIX.match(line)
        if match:
            return line[match.end() :]
    return line


@dataclass(frozen=True)
class NcclLine:
    host: str | None
    level: str
    msg: str


def nccl_line(line: str) -> NcclLine | None:
    """Split an NCCL log line into host, level and message; None for any other line."""
    if "NCCL " not in line:
        return None
    match = NCCL_LINE.match(line)
    if match is None:
        return None
    return NcclLine(match["host"], match["level"], match["msg"].strip())
