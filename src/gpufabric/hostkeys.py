"""Pin SSH host keys from the cloud's record of a node, not from a first connection.

cloud-init prints each host's public keys to the serial console between
`-----BEGIN SSH HOST KEY KEYS-----` and `-----END SSH HOST KEY KEYS-----` (each cloud's
command that saves a node's console output: docs/security.md). Consoles wrap long lines and add `\\r`, so a key is read by its wire format
(RFC 4253 section 6.6: a sequence of length-prefixed fields), not by line:

    python -m gpufabric.hostkeys NAME[,ADDRESS...]=CONSOLE_FILE ... > known_hosts

Bad input (no key block, a damaged key): one line on stderr naming the node, exit 2.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from typing import Annotated

import typer

from gpufabric.errors import UserError
from gpufabric.inputs.files import MiB, read_bytes

BLOCK = re.compile(r"-----BEGIN SSH HOST KEY KEYS-----(.*?)-----END SSH HOST KEY KEYS-----", re.S)
# fields of each key type's public blob, the type name included (RFC 4253 6.6, RFC 5656 3.1,
# RFC 8709 4)
FIELDS = {"ssh-ed25519": 2, "ssh-rsa": 3, "ecdsa-sha2-nistp256": 3, "ecdsa-sha2-nistp384": 3,
          "ecdsa-sha2-nistp521": 3}  # fmt: skip
_TYPE = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, FIELDS)) + r")\s")
_B64 = re.compile(r"[A-Za-z0-9+/]*=*")


def _blob_length(blob: bytes, fields: int) -> int:
    """Bytes taken by `fields` length-prefixed fields (ValueError or struct.error when cut
    short): the blob's own framing, so text run into it from a wrapped comment is left out."""
    offset = 0
    for _ in range(fields):
        (size,) = struct.unpack(">I", blob[offset : offset + 4])
        offset += 4 + size
    if offset > len(blob):
        raise ValueError
    return offset


def parse_console(text: str, node: str) -> list[tuple[str, str]]:
    """(key type, base64 blob) of every host key in the console text's key block."""
    block = BLOCK.search(text)
    if block is None:
        raise UserError(f"{node}: no SSH HOST KEY KEYS block in the console output (yet?)")
    body = block.group(1)
    keys: list[tuple[str, str]] = []
    for match in _TYPE.finditer(body):
        kind = match.group(1)
        # the rest of the block, line breaks and \r out: the blob's own framing says where the
        # key ends (a wrapped comment or the next key may run into an unpadded blob)
        chars = re.sub(r"\s+", "", body[match.end() :])
        text = _B64.match(chars).group()  # type: ignore[union-attr]  # `*`: always matches
        try:
            raw = base64.b64decode(text[: len(text) - len(text) % 4])
            raw = raw[: _blob_length(raw, FIELDS[kind])]
            (size,) = struct.unpack(">I", raw[:4])
            if raw[4 : 4 + size].decode() != kind:
                raise ValueError
        except (ValueError, binascii.Error, struct.error, UnicodeDecodeError):
            raise UserError(
                f"{node}: the {kind} host key in the console output is damaged"
            ) from None
        keys.append((kind, base64.b64encode(raw).decode()))
    if not keys:
        raise UserError(f"{node}: the SSH HOST KEY KEYS block holds no key")
    return keys


def known_hosts(names: list[str], keys: list[tuple[str, str]]) -> list[str]:
    return [f"{','.join(names)} {kind} {blob}" for kind, blob in keys]


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def pin(
    consoles: Annotated[
        list[str], typer.Argument(metavar="NAME[,ADDRESS...]=CONSOLE_FILE ...", show_default=False)
    ],
) -> None:
    """Print known_hosts lines for each node from its saved serial console output."""
    lines: list[str] = []
    for arg in consoles:
        names, sep, path = arg.partition("=")
        if not sep or not names or not path:
            raise UserError(f"{arg!r}: expected NAME[,ADDRESS...]=CONSOLE_FILE")
        # a console log holds terminal escapes and stray bytes: read through the layer
        # (regular file, size), decoded leniently
        raw = read_bytes(path, what="a console log", max_bytes=64 * MiB)
        text = raw.decode("utf-8", errors="replace")
        lines += known_hosts(names.split(","), parse_console(text, names.split(",")[0]))
    print("\n".join(lines))


if __name__ == "__main__":
    from gpufabric.cli.main import run

    run(app, "python -m gpufabric.hostkeys")
