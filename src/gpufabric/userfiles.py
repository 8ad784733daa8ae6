"""Old name of the loading layer's file reader: use gpufabric.inputs.files (with `what=`).

Kept so that code written against it still reads through the one layer (one standard-input
flag, the same refusals)."""

from __future__ import annotations

from pathlib import Path

from gpufabric.inputs import files
from gpufabric.inputs.files import STDIN, is_stdin, reset_stdin

__all__ = ["STDIN", "is_stdin", "read_bytes", "read_text", "reset_stdin"]


def read_bytes(path: str | Path) -> bytes:
    return files.read_bytes(path, what="a file")


def read_text(path: str | Path) -> str:
    return files.read_text(path, what="a file")
