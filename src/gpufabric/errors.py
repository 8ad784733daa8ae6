"""Errors a user can act on: the CLI prints them as one line and exits 2."""


class UserError(Exception):
    """Bad input from the user (config, flags, files). One line, no traceback."""

    exit_code = 2


class ArgumentError(UserError):
    """A value given to a library function is wrong. The message names the argument by its own
    name (nodes, collective); whoever asked for the value says it under its own key: the CLI as
    its flag (--nodes), an Ansible filter as its variable."""

    def __init__(self, argument: str, detail: str) -> None:
        self.argument = argument
        self.detail = detail
        super().__init__(f"{argument}: {detail}")


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
