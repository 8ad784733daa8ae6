"""Errors a user can act on: the CLI prints them as one line and exits 2."""


class UserError(Exception):
    """Bad input from the user (config, flags, files). One line, no traceback."""

    exit_code = 2


class ConfigError(UserError):
    """A stack config value is wrong: names the key, the value and what is allowed."""

    def __init__(self, key: str, value: object, allowed: str) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        super().__init__(f"{key}: {value!r} is not valid; {allowed}")
