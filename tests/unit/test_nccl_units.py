"""Sizes in verdict lines read as nccl-tests users say them: the largest binary unit that
divides the size exactly, else bytes."""

from __future__ import annotations

import pytest

from gpufabric.nccl.units import human_bytes


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 B"),
        (8, "8 B"),
        (1023, "1023 B"),
        (1024, "1 KiB"),  # a unit at exactly its size
        (1536, "1536 B"),  # 1.5 KiB: no unit divides it
        (65536, "64 KiB"),
        ((1 << 20) - 1024, "1023 KiB"),
        (1 << 20, "1 MiB"),
        ((1 << 20) + 1024, "1025 KiB"),
        (3 << 20, "3 MiB"),
        (1 << 30, "1 GiB"),
        ((1 << 30) + (1 << 20), "1025 MiB"),
        (16 << 30, "16 GiB"),
        (1 << 40, "1024 GiB"),  # no unit above GiB
    ],
)
def test_human_bytes(size: int, text: str) -> None:
    assert human_bytes(size) == text
