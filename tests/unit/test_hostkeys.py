"""Host keys pinned from the console's cloud-init block: real keys from ssh-keygen, wrapped
the way serial consoles wrap them, read back exactly; anything damaged is refused."""

from __future__ import annotations

import base64
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpufabric import hostkeys
from gpufabric.errors import UserError


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    out = []
    for kind, bits in (("ed25519", []), ("ecdsa", ["-b", "384"]), ("rsa", ["-b", "3072"])):
        path = tmp_path_factory.mktemp(kind) / "key"
        subprocess.run(["ssh-keygen", "-q", "-t", kind, *bits, "-N", "", "-C", "root@node-7",
                        "-f", str(path)], check=True, timeout=60)  # fmt: skip
        out.append(path.with_suffix(".pub").read_text().strip())
    return out


def console(keys: list[str], width: int | None) -> str:
    body = "\n".join(textwrap.fill(k, width) if width else k for k in keys)
    return ("<14>Jun  3 17:07:52 ec2: ####\r\n-----BEGIN SSH HOST KEY KEYS-----\n"
            f"{body}\n-----END SSH HOST KEY KEYS-----\r\n[  OK  ] Reached target")  # fmt: skip


@pytest.mark.parametrize("width", [None, 80, 64, 33])
def test_keys_are_read_back_exactly_however_the_console_wraps_them(
    keys: list[str], width: int | None
) -> None:
    found = hostkeys.parse_console(console(keys, width).replace("\n", "\r\n"), "node-7")
    assert [f"{kind} {blob}" for kind, blob in found] == [" ".join(k.split()[:2]) for k in keys]


def test_known_hosts_lines_name_the_host_and_its_address(keys: list[str]) -> None:
    found = hostkeys.parse_console(console(keys[:1], 80), "node-7")
    assert hostkeys.known_hosts(["node-7", "10.0.0.7"], found) == [
        "node-7,10.0.0.7 " + " ".join(keys[0].split()[:2])
    ]


def test_a_damaged_key_or_a_missing_block_is_refused(keys: list[str]) -> None:
    kind, blob = keys[0].split()[:2]
    damaged = console([f"{kind} {blob[:30]}"], None)
    with pytest.raises(UserError, match=r"node-7: the ssh-ed25519 host key .* is damaged"):
        hostkeys.parse_console(damaged, "node-7")
    with pytest.raises(UserError, match="node-7: no SSH HOST KEY KEYS block"):
        hostkeys.parse_console("booting...", "node-7")


def test_cli_prints_known_hosts_or_one_line(
    keys: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "console.txt"
    log.write_text(console(keys, 80))
    ok = _cli(f"node-7,10.0.0.7={log}")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.count("node-7,10.0.0.7 ") == 3
    missing = _cli(f"node-7={tmp_path / 'missing'}")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert missing.stderr.startswith("error: ") and "Traceback" not in missing.stderr
    usage = _cli()  # no node: the project's one usage line, not a box
    assert usage.returncode == 2 and usage.stderr.count("\n") == 1, usage.stderr


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufabric.hostkeys", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_comment_run_into_an_unpadded_blob_is_left_out(keys: list[str]) -> None:
    """An ed25519 blob is 68 base64 characters with no padding: a console that wraps the line
    glues the comment's first letters to it ("ab" of "ab@node-7"), 70 characters in all."""
    kind, blob = keys[0].split()[:2]
    assert kind == "ssh-ed25519" and len(blob) == 68 and not blob.endswith("=")
    text = console([f"{kind} {blob}\nab@node-7"], None)
    assert hostkeys.parse_console(text, "node-7") == [(kind, blob)]


def _ed25519_blob(second_length: int) -> str:
    raw = struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", second_length) + b"k" * 32
    return base64.b64encode(raw).decode()


def test_a_field_length_past_the_blob_is_refused() -> None:
    """A length read as unsigned (RFC 4251 uint32): 0xFFFFFFFF runs past the blob, never back."""
    assert hostkeys.parse_console(console([f"ssh-ed25519 {_ed25519_blob(32)}"], None), "n") == [
        ("ssh-ed25519", _ed25519_blob(32))
    ]
    for length in (0xFFFFFFFF, 0x80000000, 33):
        text = console([f"ssh-ed25519 {_ed25519_blob(length)}"], None)
        with pytest.raises(UserError) as err:
            hostkeys.parse_console(text, "n")
        assert str(err.value) == "n: the ssh-ed25519 host key in the console output is damaged"


def test_a_block_without_a_key_says_so() -> None:
    with pytest.raises(UserError) as err:
        hostkeys.parse_console(console(["nothing here"], None), "node-7")
    assert str(err.value) == "node-7: the SSH HOST KEY KEYS block holds no key"
