"""Reading the files and streams a user names: regular files only, bounded, decoded strictly.

`read_bytes(path, what=...)` / `read_text(path, what=...)` are the only way gpufabric opens an
input (tests/unit/test_inputs_boundary.py greps for any other). `-` is standard input, readable
once per command. Refused at once, without reading or blocking: a directory, a FIFO, a device,
a socket (the file is stat'ed first and opened with O_NONBLOCK); a file over `max_bytes` (also
standard input and files that grow: at most max_bytes + 1 bytes are ever read). `read_text`
refuses what is not UTF-8, a byte-order mark, NUL bytes and control characters other than
tab, newline and carriage return, each named with the file and line.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

from gpufabric.inputs.errors import EncodingError, InputError, NotRegularFileError, TooLargeError

STDIN = "-"
MiB = 1024 * 1024
DEFAULT_MAX_BYTES = 64 * MiB  # the largest NCCL_DEBUG log or report worth reading
# C0 and C1 controls, DEL and a BOM inside the text; tab, LF and CR pass (real captures have CRLF)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff]")

_stdin_used = False


def is_stdin(path: str | Path) -> bool:
    return str(path) == STDIN


def reset_stdin() -> None:
    """For tests that run several commands in one process."""
    global _stdin_used
    _stdin_used = False


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "is a character device"
    if stat.S_ISBLK(mode):
        return "is a block device"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "is not a regular file"


def _size(n: int) -> str:
    return f"{n / MiB:.1f} MiB" if n >= MiB else f"{n} bytes"


def _read_limited(fd: int, where: str, what: str, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        try:
            chunk = os.read(fd, min(MiB, max_bytes + 1 - total))
        except BlockingIOError:  # a non-blocking stream with nothing yet: wait for it
            os.set_blocking(fd, True)
            continue
        except OSError as exc:
            raise InputError(where, f"cannot read ({exc.strerror or exc})") from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise TooLargeError(where, f"more than {_size(max_bytes)}, too large for {what}")


def _read_stdin(what: str, max_bytes: int) -> bytes:
    global _stdin_used
    where = "- (standard input)"
    if _stdin_used:
        raise InputError(where, "already read; name standard input once per command")
    _stdin_used = True
    try:
        fd = sys.stdin.fileno()
        st = os.fstat(fd)
    except (OSError, ValueError, AttributeError):  # replaced by a stream (a test runner's)
        return _read_stream(where, what, max_bytes)
    if stat.S_ISDIR(st.st_mode):
        raise NotRegularFileError(where, f"is a directory, expected {what}")
    if os.isatty(fd):
        raise InputError(where, f"is a terminal; pipe {what} in or name a file")
    if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
        raise TooLargeError(where, f"{_size(st.st_size)}, too large for {what}")
    return _read_limited(fd, where, what, max_bytes)


def _read_stream(where: str, what: str, max_bytes: int) -> bytes:
    stream = sys.stdin
    if stream is None:
        raise InputError(where, f"closed, expected {what}")
    buffer = getattr(stream, "buffer", None)
    data = buffer.read(max_bytes + 1) if buffer is not None else stream.read(max_bytes + 1)
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if len(raw) > max_bytes:
        raise TooLargeError(where, f"more than {_size(max_bytes)}, too large for {what}")
    return raw


def read_bytes(path: str | Path, *, what: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of the regular file `path` (or standard input for `-`); InputError otherwise.

    `what` says what the file should be ("a NCCL log", "a stack file"): errors end with it."""
    if is_stdin(path):
        return _read_stdin(what, max_bytes)
    where = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(where, f"cannot read: no such file, expected {what}") from None
    except OSError as exc:
        raise InputError(where, f"cannot read ({exc.strerror or exc})") from None
    kind = _kind(st.st_mode)
    if kind is not None:
        raise NotRegularFileError(where, f"{kind}, expected {what}")
    if st.st_size > max_bytes:
        raise TooLargeError(where, f"{_size(st.st_size)}, too large for {what}")
    try:
        # O_NONBLOCK: a file swapped for a FIFO after the stat cannot hang the open; O_NOCTTY:
        # nor can one swapped for a terminal become ours (Python opens every descriptor
        # close-on-exec already, PEP 446)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise InputError(where, f"cannot read ({exc.strerror or exc})") from None
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotRegularFileError(where, f"{kind}, expected {what}")
        return _read_limited(fd, where, what, max_bytes)
    finally:
        os.close(fd)


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def decode_text(data: bytes, where: str, what: str) -> str:
    """`data` as UTF-8 text; InputError naming the line of a bad byte or control character."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise EncodingError(
            where, "starts with a byte-order mark (BOM); save it as UTF-8 without one"
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise EncodingError(where, f"not UTF-8 (a UTF-16 byte-order mark), expected {what}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise EncodingError(
            where, f"line {line}: not UTF-8 (byte 0x{data[exc.start]:02x}), expected {what}"
        ) from None
    check_controls(text, where, what)
    return text


def check_controls(text: str, where: str, what: str) -> None:
    """Refuse NUL (binary data) and control characters other than tab, LF and CR, by line."""
    nul = text.find("\0")
    if nul >= 0:
        raise EncodingError(
            where, f"line {_line_of(text, nul)}: binary data (NUL byte), expected {what}"
        )
    bad = _CONTROLS.search(text)
    if bad is not None:
        code = ord(bad.group())
        name = "byte-order mark" if code == 0xFEFF else "control character"
        raise EncodingError(
            where, f"line {_line_of(text, bad.start())}: {name} U+{code:04X}, expected {what}"
        )


def read_text(path: str | Path, *, what: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """UTF-8 text of `path` (or standard input for `-`), checked by `decode_text`."""
    where = "- (standard input)" if is_stdin(path) else str(path)
    return decode_text(read_bytes(path, what=what, max_bytes=max_bytes), where, what)
