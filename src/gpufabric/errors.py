"""Errors a user can act on: the CLI prints them as one line and exits 2.

The library names the values it was given by their own names (nodes, label_scheme), never by a
CLI flag: an ArgumentError says which argument is wrong, and a message that mentions another
argument (`pass the input`) holds it as an `Arg`. Whoever asked for the values says them under
its own keys: the CLI as its flags (--nodes, `cli.conventions.error_line`), an Ansible filter as
its variables. `str(error)` is the library's own wording.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Arg:
    """An argument of the call, mentioned inside a message: `name` in the library's words,
    the flag that set it in the CLI's."""

    name: str

    def __str__(self) -> str:
        return f"`{self.name}`"


Part = str | Arg


def say(parts: tuple[object, ...], name: Callable[[Arg], str] = str) -> str:
    """The message `parts` with every mentioned argument said as `name` says it."""
    return "".join(name(p) if isinstance(p, Arg) else str(p) for p in parts)


class UserError(Exception):
    """Bad input from the user (config, flags, files). One line, no traceback.

    The message is its parts joined: text, and `Arg`s where it mentions an argument."""

    exit_code = 2

    def __init__(self, *parts: Part) -> None:
        super().__init__(*parts)

    @property
    def parts(self) -> tuple[object, ...]:
        """The message's pieces (the exception's args: rewriting them rewrites the message)."""
        return self.args

    def __str__(self) -> str:
        return say(self.parts)

    def said(self, name: Callable[[Arg], str]) -> str:
        """The message with every mentioned argument said as `name` says it (the CLI: its
        flag)."""
        return say(self.parts, name)


class ArgumentError(UserError):
    """A value given to a library function is wrong. The message names the argument by its own
    name (nodes, collective); whoever asked for the value says it under its own key: the CLI as
    its flag (--nodes), an Ansible filter as its variable. `value`, where given, is said right
    after the argument (`label_scheme 'eks': choose one of ...`)."""

    def __init__(self, argument: str, *detail: Part, value: str | None = None) -> None:
        self.argument = argument
        self.value = value
        self.detail_parts = detail
        self.detail = say(detail)
        lead = argument if value is None else f"{argument} {value}"
        super().__init__(lead, ": ", *detail)

    def said(self, name: Callable[[Arg], str]) -> str:
        lead = name(Arg(self.argument))
        if self.value is not None:
            lead = f"{lead} {self.value}"
        return f"{lead}: {say(self.detail_parts, name)}"


class ConfigError(UserError):
    """A stack config value is wrong: names the key, the value and what is allowed."""

    def __init__(self, key: str, value: object, allowed: str) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        super().__init__(f"{key}: {value!r} is not valid; {allowed}")


class MissingConfigError(ConfigError):
    """A required stack config key is not set."""

    def __init__(self, key: str, allowed: str) -> None:
        UserError.__init__(self, f"{key}: not set; {allowed}")
        self.key, self.value, self.allowed = key, None, allowed
