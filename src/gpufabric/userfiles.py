"""Reading the files a user names on the command line; `-` is standard input.

Standard input can be read once per command: a second `-` is a user error rather than a
silent empty file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gpufabric.errors import UserError

STDIN = "-"
_stdin_used = False


def is_stdin(path: str | Path) -> bool:
    return str(path) == STDIN


def read_bytes(path: str | Path) -> bytes:
    """The bytes of `path`, or of standard input for `-`; UserError (one line) otherwise."""
    global _stdin_used
    if is_stdin(path):
        if _stdin_used:
            raise UserError("-: standard input is already read; name it once")
        _stdin_used = True
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: cannot read: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: cannot read: a directory, expected a file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_text(path: str | Path) -> str:
    """UTF-8 text of `path` (or standard input for `-`)."""
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text") from None


def reset_stdin() -> None:
    """For tests that run several commands in one process."""
    global _stdin_used
    _stdin_used = False
