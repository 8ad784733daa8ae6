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


class MissingConfigError(ConfigError):
    """A required stack config key is not set."""

    def __init__(self, key: str, allowed: str) -> None:
        UserError.__init__(self, f"{key}: not set; {allowed}")
        self.key, self.value, self.allowed = key, None, allowed
