"""gpufabric.inputs.files, word for word: each refusal is the line a user reads (the file, or
`- (standard input)`, what is wrong, what was expected); limits hold at their exact edge, and a
refused stream is read no further than its limit + 1 byte."""

from __future__ import annotations

import io
import os
import stat
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpufabric.errors import UserError
from gpufabric.inputs import files

WHAT = "a test file"
STDIN = "- (standard input)"


@pytest.fixture(autouse=True)
def _fresh_stdin() -> None:
    files.reset_stdin()


def _error(call: Callable[[], Any]) -> str:
    with pytest.raises(UserError) as err:
        call()
    return str(err.value)


class _Fd:
    """sys.stdin over a real file descriptor, as a shell redirection gives it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd


def _in_thread(call: Callable[[], Any]) -> Any:
    """`call()`'s result or exception, failing the test if it blocks for 5 s."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(call())
        except BaseException as exc:  # handed back to the test
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=5)
    assert not thread.is_alive(), "the read blocked"
    return out[0]


# --- files that are not regular ---------------------------------------------------------


def test_each_kind_of_non_regular_file_is_named(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert str(_in_thread(lambda: files.read_bytes(fifo, what=WHAT))) == (
        f"{fifo}: is a FIFO (named pipe), expected a test file"
    )
    assert files._kind(stat.S_IFBLK | 0o660) == "is a block device"
    assert files._kind(stat.S_IFSOCK | 0o660) == "is a socket"
    assert files._kind(0) == "is not a regular file"  # a mode no stat of Linux gives


def test_a_file_swapped_for_a_fifo_after_the_stat_is_refused_unblocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stat said regular file, then a FIFO (with no writer) took its place: the open must
    not wait for a writer, and the descriptor's own stat refuses it."""
    regular = os.stat(__file__)
    fifo = tmp_path / "swapped"
    os.mkfifo(fifo)
    real_stat = os.stat
    monkeypatch.setattr(
        os, "stat", lambda p, *a, **k: regular if str(p) == str(fifo) else real_stat(p, *a, **k)
    )
    result = _in_thread(lambda: files.read_bytes(fifo, what=WHAT))
    assert str(result) == f"{fifo}: is a FIFO (named pipe), expected a test file"


def test_a_file_removed_after_the_stat_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rotated away between the stat and the open (the open's own error is the one shown)."""
    regular = os.stat(__file__)
    gone = tmp_path / "rotated.log"
    real_stat = os.stat
    monkeypatch.setattr(
        os, "stat", lambda p, *a, **k: regular if str(p) == str(gone) else real_stat(p, *a, **k)
    )
    assert _error(lambda: files.read_bytes(gone, what=WHAT)) == (
        f"{gone}: cannot read (No such file or directory)"
    )


def test_a_file_that_grows_past_the_limit_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log still being written: small when stat'ed, over the limit when read."""
    path = tmp_path / "growing.log"
    path.write_bytes(b"x" * 20)
    real = os.stat(path)
    small = os.stat_result((*real[:6], 5, *real[7:]))  # st_size 5
    real_stat = os.stat
    monkeypatch.setattr(
        os, "stat", lambda p, *a, **k: small if str(p) == str(path) else real_stat(p, *a, **k)
    )
    assert _error(lambda: files.read_bytes(path, what=WHAT, max_bytes=10)) == (
        f"{path}: more than 10 bytes, too large for a test file"
    )


def test_a_path_through_a_file_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    path = tmp_path / "f" / "x"
    assert _error(lambda: files.read_bytes(path, what=WHAT)) == (
        f"{path}: cannot read (Not a directory)"
    )


def test_a_file_over_one_read_comes_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "big"
    data = bytes(range(256)) * (files.MiB // 256) + b"tail"
    path.write_bytes(data)
    assert files.read_bytes(path, what=WHAT) == data


# --- standard input ---------------------------------------------------------------------


def _pipe_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes, delay: float = 0.0) -> int:
    """A pipe as standard input, `data` written by a thread after `delay`; the read end."""
    read, write = os.pipe()

    def feed() -> None:
        time.sleep(delay)
        try:
            os.write(write, data)
        finally:
            os.close(write)

    threading.Thread(target=feed, daemon=True).start()
    monkeypatch.setattr(sys, "stdin", _Fd(read))
    return read


def _rest(fd: int) -> int:
    count = 0
    while chunk := os.read(fd, 65536):
        count += len(chunk)
    os.close(fd)
    return count


def test_a_stream_over_the_limit_is_read_no_further_than_limit_plus_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read = _pipe_stdin(monkeypatch, b"x" * 200_000)
    assert _error(lambda: files.read_bytes("-", what=WHAT, max_bytes=100_000)) == (
        f"{STDIN}: more than 100000 bytes, too large for a test file"
    )
    assert _rest(read) == 200_000 - 100_001


def test_a_non_blocking_stdin_with_nothing_yet_is_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read = _pipe_stdin(monkeypatch, b"late\n", delay=0.3)
    os.set_blocking(read, False)
    assert _in_thread(lambda: files.read_text("-", what=WHAT)) == "late\n"
    os.close(read)


def test_stdin_that_cannot_be_read_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)  # `0> file`: open for writing
    try:
        monkeypatch.setattr(sys, "stdin", _Fd(fd))
        assert _error(lambda: files.read_bytes("-", what=WHAT)) == (
            f"{STDIN}: cannot read (Bad file descriptor)"
        )
    finally:
        os.close(fd)


def test_stdin_from_a_directory_or_a_terminal_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fd = os.open(tmp_path, os.O_RDONLY)
    monkeypatch.setattr(sys, "stdin", _Fd(fd))
    assert _error(lambda: files.read_bytes("-", what=WHAT)) == (
        f"{STDIN}: is a directory, expected a test file"
    )
    os.close(fd)
    files.reset_stdin()
    leader, follower = os.openpty()
    monkeypatch.setattr(sys, "stdin", _Fd(follower))
    assert _error(lambda: files.read_bytes("-", what=WHAT)) == (
        f"{STDIN}: is a terminal; pipe a test file in or name a file"
    )
    os.close(leader)
    os.close(follower)


@pytest.mark.parametrize(("size", "refused"), [(10, False), (11, True)])
def test_a_file_as_stdin_is_sized_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int, refused: bool
) -> None:
    path = tmp_path / "in"
    path.write_bytes(b"y" * size)
    with path.open("rb") as fh:
        monkeypatch.setattr(sys, "stdin", _Fd(fh.fileno()))
        if refused:
            assert _error(lambda: files.read_bytes("-", what=WHAT, max_bytes=10)) == (
                f"{STDIN}: 11 bytes, too large for a test file"
            )
        else:
            assert files.read_bytes("-", what=WHAT, max_bytes=10) == b"y" * 10


def test_a_replaced_stdin_stream_is_read_as_bytes_within_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A test runner's or an embedding program's sys.stdin: no descriptor, maybe no buffer."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("h\u00e9llo"))
    assert files.read_bytes("-", what=WHAT, max_bytes=6) == "h\u00e9llo".encode()
    files.reset_stdin()
    binary = io.TextIOWrapper(io.BytesIO(b"caf\xe9\n" + b"z" * 4))
    monkeypatch.setattr(sys, "stdin", binary)
    assert _error(lambda: files.read_text("-", what=WHAT, max_bytes=9)) == (
        f"{STDIN}: line 1: not UTF-8 (byte 0xe9), expected a test file"
    )
    files.reset_stdin()
    over = io.TextIOWrapper(io.BytesIO(b"z" * 100))
    monkeypatch.setattr(sys, "stdin", over)
    assert _error(lambda: files.read_bytes("-", what=WHAT, max_bytes=10)) == (
        f"{STDIN}: more than 10 bytes, too large for a test file"
    )
    assert over.buffer.tell() == 11  # read no further than the limit + 1
    files.reset_stdin()
    text = io.StringIO("z" * 100)
    monkeypatch.setattr(sys, "stdin", text)
    assert _error(lambda: files.read_bytes("-", what=WHAT, max_bytes=10)).endswith(
        "too large for a test file"
    )
    assert text.tell() == 11


def test_a_closed_stdin_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    assert _error(lambda: files.read_bytes("-", what=WHAT)) == (
        f"{STDIN}: closed, expected a test file"
    )


# --- decoding ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xef\xbb\xbfa", "starts with a byte-order mark (BOM); save it as UTF-8 without one"),
        (b"\xfe\xff\x00a", "not UTF-8 (a UTF-16 byte-order mark), expected a test file"),
        (b"\n\xe9", "line 2: not UTF-8 (byte 0xe9), expected a test file"),
        (b"\x00abc\n\n", "line 1: binary data (NUL byte), expected a test file"),
        (b"a\x00\nb\x00", "line 1: binary data (NUL byte), expected a test file"),
        (b"\n\x1b", "line 2: control character U+001B, expected a test file"),
    ],
)
def test_decoding_refusals_word_for_word(data: bytes, message: str) -> None:
    assert _error(lambda: files.decode_text(data, "f.txt", WHAT)) == f"f.txt: {message}"
