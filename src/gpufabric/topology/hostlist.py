"""Slurm hostlist expressions: compress names into `pre[1-3,7]suf` and expand them back.

Only the last run of digits in a name is ranged (what Slurm's own parser handles for node
names like `ip-10-1-2-3` or `srv1101`); names of different zero-padded widths stay apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpufabric.inputs.types import digits

_LAST_NUMBER = re.compile(r"^(.*?)(\d+)(\D*)$")
_BRACKET = re.compile(r"^(.*?)\[([^\]]+)\](.*)$")


def natural_key(name: str) -> tuple[object, ...]:
    """Sort key that orders `n2` before `n10`."""
    parts = re.split(r"(\d+)", name)
    return tuple((0, int(p), "") if digits(p) else (1, 0, p) for p in parts)


def _ranges(numbers: list[int], width: int) -> str:
    out: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(f"{start:0{width}d}" if start == prev else f"{start:0{width}d}-{prev:0{width}d}")
        if n is not None:
            start = prev = n
    return ",".join(out)


def compress(names: Iterable[str]) -> str:
    """One hostlist expression for `names` (order is not kept; duplicates are dropped)."""
    by_affix: dict[tuple[str, str], set[str]] = {}
    plain: set[str] = set()
    for name in names:
        m = _LAST_NUMBER.match(name)
        if m is None or m.group(3) or any(c in name for c in "[],"):
            plain.add(name)  # Slurm ranges only a trailing number: keep suffixed names whole
            continue
        pre, digits, suf = m.groups()
        by_affix.setdefault((pre, suf), set()).add(digits)
    groups: dict[tuple[str, str, int], set[int]] = {}
    for (pre, suf), all_digits in by_affix.items():
        padded = {len(d) for d in all_digits if d.startswith("0") and len(d) > 1}
        for digits in all_digits:
            width = len(digits) if len(digits) in padded else 1
            groups.setdefault((pre, suf, width), set()).add(int(digits))
    parts = list(plain)
    for (pre, suf, width), nums in groups.items():
        ordered = sorted(nums)
        if len(ordered) == 1:
            parts.append(f"{pre}{ordered[0]:0{width}d}{suf}")
        else:
            parts.append(f"{pre}[{_ranges(ordered, width)}]{suf}")
    return ",".join(sorted(parts, key=natural_key))


def expand(expression: str) -> list[str]:
    """The names in a hostlist expression (inverse of `compress`, in expression order)."""
    out: list[str] = []
    for part in _split_top(expression):
        m = _BRACKET.match(part)
        if m is None:
            out.append(part)
            continue
        pre, body, suf = m.groups()
        for item in body.split(","):
            lo, _, hi = item.partition("-")
            width = len(lo) if lo.startswith("0") else 1
            for n in range(int(lo), int(hi or lo) + 1):
                out.append(f"{pre}{n:0{width}d}{suf}")
    return out


def _split_top(expression: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    parts: list[str] = []
    depth = 0
    current = ""
    for c in expression:
        depth += c == "["
        depth -= c == "]"
        if c == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += c
    if current:
        parts.append(current)
    return parts
