"""One command timed by GNU time (/usr/bin/time, Debian package `time`), for the benchmarks.

GNU time reports the whole process tree it waits for: user + system CPU seconds of the command
and every child it reaped (ansible-playbook with its forks and ssh clients), and the largest
resident set of any one of them (a child's own peak, not this process's inherited through fork).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GNU_TIME = "/usr/bin/time"


@dataclass(frozen=True)
class Timed:
    wall: float
    """Seconds from start to exit, by this process's monotonic clock."""
    cpu: float
    """User + system seconds of the whole process tree."""
    peak_mib: float
    rc: int
    stdout: str
    stderr: str


def require() -> None:
    """Stop the benchmark with one line when GNU time is missing."""
    if shutil.which(GNU_TIME) is None:
        raise SystemExit(f"{GNU_TIME} not found: install Debian's `time` package")


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> Timed:
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        start = time.monotonic()
        proc = subprocess.run(
            [GNU_TIME, "-f", "%U %S %M", "-o", report.name, *argv],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            check=False,
        )
        wall = time.monotonic() - start
        # GNU time writes "Command exited with non-zero status N" above its line on failure
        user, system, peak_kib = report.read().split()[-3:]
    return Timed(
        wall=wall,
        cpu=float(user) + float(system),
        peak_mib=int(peak_kib) / 1024,
        rc=proc.returncode,
        stdout=proc.stdout,
        stderr=proc.stderr,
    )
