"""Output folders the commands write into: made when missing, refused when they cannot be."""

from __future__ import annotations

from pathlib import Path

from gpufabric.errors import UserError


def prepare(path: Path, flag: str = "--out") -> Path:
    """Make `path` a folder to write into, or say in one line why it cannot be."""
    if path.exists() and not path.is_dir():
        raise UserError(f"{flag} {path}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"{flag} {path}: cannot create the folder ({exc.strerror or exc})"
        ) from None
    return path
