"""Output folders the commands write into: made when missing, refused when they cannot be."""

from __future__ import annotations

from pathlib import Path

from gpufabric.errors import ArgumentError


def prepare(path: Path, argument: str = "out") -> Path:
    """Make `path` (given as `argument`) a folder to write into, or say in one line why it
    cannot be."""
    if path.exists() and not path.is_dir():
        raise ArgumentError(argument, "exists and is not a folder", value=str(path))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArgumentError(
            argument, f"cannot create the folder ({exc.strerror or exc})", value=str(path)
        ) from None
    return path
