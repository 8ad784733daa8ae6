"""gpufabric.inputs.files: regular files only, bounded reads, strict decoding named by line."""

from __future__ import annotations

import io
import os
import socket
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufabric.errors import UserError
from gpufabric.inputs import files
from gpufabric.inputs.errors import EncodingError, NotRegularFileError, TooLargeError

WHAT = "a test file"


@pytest.fixture(autouse=True)
def _fresh_stdin() -> None:
    files.reset_stdin()


def test_regular_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"line 1\r\nline 2\ttab\n")
    assert files.read_text(path, what=WHAT) == "line 1\r\nline 2\ttab\n"
    assert files.read_bytes(str(path), what=WHAT) == b"line 1\r\nline 2\ttab\n"


def test_missing_file_names_path_and_what(tmp_path: Path) -> None:
    with pytest.raises(
        UserError, match=f"^{tmp_path}/nope: cannot read: no such file, expected a test file$"
    ):
        files.read_text(tmp_path / "nope", what=WHAT)


def test_directory_refused(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFileError, match=f"^{tmp_path}: is a directory, expected"):
        files.read_bytes(tmp_path, what=WHAT)


def test_fifo_refused_at_once_without_a_writer(tmp_path: Path) -> None:
    """A FIFO nobody writes to would block an open() forever; the stat refuses it first."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result: list[BaseException | bytes] = []
    thread = threading.Thread(
        target=lambda: result.append(_catch(lambda: files.read_bytes(fifo, what=WHAT))),
        daemon=True,
    )
    thread.start()
    thread.join(timeout=5)
    assert not thread.is_alive(), "read_bytes blocked on a FIFO"
    assert isinstance(result[0], NotRegularFileError)
    assert "is a FIFO" in str(result[0])


def _catch(fn: object) -> BaseException | bytes:
    try:
        return fn()  # type: ignore[operator]
    except BaseException as exc:  # handed back to the test thread
        return exc


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_character_device_refused_unread(device: str) -> None:
    with pytest.raises(NotRegularFileError, match=f"^{device}: is a character device"):
        files.read_bytes(device, what=WHAT)


def test_socket_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(NotRegularFileError, match="is a socket"):
            files.read_bytes(path, what=WHAT)


def test_symlink_to_regular_file_is_read_and_to_device_refused(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    (tmp_path / "ok").symlink_to(tmp_path / "real")
    (tmp_path / "dev").symlink_to("/dev/zero")
    assert files.read_text(tmp_path / "ok", what=WHAT) == "x"
    with pytest.raises(NotRegularFileError, match="character device"):
        files.read_text(tmp_path / "dev", what=WHAT)


def test_size_limit_from_stat(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 101)
    assert files.read_bytes(path, what=WHAT, max_bytes=101) == b"x" * 101
    with pytest.raises(TooLargeError, match=f"^{path}: 101 bytes, too large for a test file$"):
        files.read_bytes(path, what=WHAT, max_bytes=100)


class _Stdin:
    """sys.stdin stand-in over a real file descriptor (what read_bytes reads)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = io.BytesIO()

    def fileno(self) -> int:
        return self.fd


def _stdin_from(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    read, write = os.pipe()
    os.set_blocking(write, True)

    def feed() -> None:
        try:
            os.write(write, data)
        except OSError:
            pass
        finally:
            os.close(write)

    threading.Thread(target=feed, daemon=True).start()
    monkeypatch.setattr(sys, "stdin", _Stdin(read))


def test_stdin_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin_from(monkeypatch, b"hello\n")
    assert files.read_text("-", what=WHAT) == "hello\n"
    with pytest.raises(UserError, match=r"^- \(standard input\): already read"):
        files.read_text("-", what=WHAT)


def test_stdin_size_limit_stops_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """`< /dev/zero`: refused after max_bytes + 1 bytes, never read whole."""
    with open("/dev/zero", "rb") as zero:
        monkeypatch.setattr(sys, "stdin", _Stdin(zero.fileno()))
        with pytest.raises(TooLargeError, match=r"^- \(standard input\): more than 1.0 MiB"):
            files.read_bytes("-", what=WHAT, max_bytes=files.MiB)


def test_stdin_directory_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        monkeypatch.setattr(sys, "stdin", _Stdin(fd))
        with pytest.raises(NotRegularFileError, match="is a directory"):
            files.read_bytes("-", what=WHAT)
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xef\xbb\xbfa: 1\n", "starts with a byte-order mark"),
        (b"\xff\xfea\x00", "not UTF-8 (a UTF-16 byte-order mark)"),
        (b"ok\nok\ncaf\xe9\n", "line 3: not UTF-8 (byte 0xe9)"),
        (b"ok\n\x00\x01", "line 2: binary data (NUL byte)"),
        (b"a\nb\nc\x1b[31m\n", "line 3: control character U+001B"),
        (b"x\x7f", "line 1: control character U+007F"),
        ("a\n\u0085".encode(), "line 2: control character U+0085"),
        ("a\nb\u2028\ufeff".encode(), "line 2: byte-order mark U+FEFF"),
    ],
)
def test_decoding_names_the_line(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    with pytest.raises(EncodingError) as info:
        files.read_text(path, what=WHAT)
    assert str(info.value).startswith(f"{path}: {message}")
    assert "\n" not in str(info.value)


@given(
    st.text(alphabet=st.characters(blacklist_categories=["Cc", "Cs"]) | st.sampled_from("\t\n\r"))
)
def test_clean_text_round_trips(text: str) -> None:
    text = text.lstrip("\ufeff").replace("\ufeff", "")
    assert files.decode_text(text.encode(), "w", WHAT) == text


@given(st.binary(max_size=200))
def test_any_bytes_give_text_or_one_line_error(data: bytes) -> None:
    try:
        text = files.decode_text(data, "w", WHAT)
    except EncodingError as exc:
        assert str(exc).startswith("w: ")
        assert "\n" not in str(exc) and "\r" not in str(exc)
    else:
        assert text.encode() == data
