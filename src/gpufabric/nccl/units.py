"""Sizes as people read them in NCCL output: 8 B, 64 KiB, 256 MiB, 16 GiB."""

from __future__ import annotations


def human_bytes(size: int) -> str:
    """The largest binary unit that divides `size` exactly; bytes otherwise."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"
