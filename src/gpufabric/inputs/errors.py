"""What the loading layer refuses: each a UserError whose text is one line naming the input."""

from __future__ import annotations

from gpufabric.errors import UserError


class InputError(UserError):
    """An input that cannot be read as what it should be. One line: `<where>: <problem>`."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {one_line(problem)}")


class NotRegularFileError(InputError):
    """A directory, FIFO, device or socket where a file was expected (refused unread)."""


class TooLargeError(InputError):
    """Over the size limit for this kind of input."""


class EncodingError(InputError):
    """Not UTF-8, a byte-order mark, binary data or a control character."""


class FormatError(InputError):
    """Not valid JSON / YAML, or valid but outside the strict rules (duplicate key, NaN, ...)."""


class ModelError(InputError):
    """Well-formed data whose values do not fit the expected model."""


def one_line(text: str, limit: int = 300) -> str:
    """`text` as one printable line: newlines and other controls shown escaped, long cut."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return out if len(out) <= limit else out[: limit - 3] + "..."
