"""What every `gpufabric` command does alike: exit codes in --help, usage errors as one
`error: ...` line (never Typer's box), a quiet closed pipe.

Exit codes are one table here, shown as each command's --help epilog; a command not listed
gets DEFAULT. tests/unit/test_cli_conventions.py checks that every command has one.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from gpufabric.errors import Arg, UserError

USAGE = "2 usage error or bad input (one line on stderr, nothing half done)"
DEFAULT = f"0 done; {USAGE}"
EXIT_CODES: dict[str, str] = {
    "plan": f"0 done; 1 a policy is violated (with --policy); {USAGE}",
    "nccl gate": f"0 every check passed; 1 a check failed; {USAGE}",
    "nccl report": f"0 written, the gate passed; 1 written, the gate failed or no bandwidth "
    f"was measured; {USAGE}",
    "nccl tuner-check": f"0 no errors (warnings allowed); 1 the file has errors; {USAGE}",
    "nccl tune pick": f"0 written; 1 written, the tuner file breaks the plugin's rules; {USAGE}",
    "nccl tune run": f"0 written; 1 written, the tuner file breaks the plugin's rules; {USAGE}; "
    "130 interrupted (finished trials are kept: the same command resumes)",
    "health run": f"0 every host is healthy; 1 a host is bad; {USAGE}",
    "certify compare": f"0 compared; {USAGE}",
    "storage gate": f"0 every check passed; 1 a check failed; {USAGE}",
    "storage report": f"0 written, the gate passed; 1 written, the gate failed; {USAGE}",
    "capacity check": f"0 every node landed on the planned capacity; 1 a node landed outside; "
    f"{USAGE}",
}


def leaf_commands(command: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every runnable command under `command` (Typer's click objects: Typer carries its own
    copy of click, so by shape, not by class), keyed by its path ("nccl tune run")."""
    if getattr(command, "commands", None):
        out: dict[str, Any] = {}
        for name, sub in command.commands.items():
            out.update(leaf_commands(sub, (*path, name)))
        return out
    return {" ".join(path): command}


def add_exit_code_epilogs(root: Any) -> None:
    for path, command in leaf_commands(root).items():
        command.epilog = f"Exit codes: {EXIT_CODES.get(path, DEFAULT)}."
    root.epilog = f"Exit codes: {DEFAULT}; each command's --help lists its own."


def flag(argument: Arg) -> str:
    """The option that sets a library function's argument: nodes -> --nodes, label_scheme ->
    --label-scheme (each command names its parameters after the arguments it passes on)."""
    return f"--{argument.name.replace('_', '-')}"


def error_line(exc: UserError) -> str:
    """The one line a UserError prints. A library error names its arguments (nodes); the CLI
    says each as the option that set it (--nodes)."""
    return f"error: {exc.said(flag)}"


def usage_line(exc: Any) -> str | None:
    """One line for a usage error Typer / click raised (bad option value, unknown option,
    missing argument), naming the command and where its help is; None for the bare command
    that shows its help instead (no arguments given)."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        return None
    message = " ".join(str(exc.format_message()).split())
    ctx = getattr(exc, "ctx", None)
    where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return f"error: {message}{where}"


def stdout_file() -> tuple[int, int] | None:
    """(device, inode) of what file descriptor 1 is now, or None where it is closed."""
    try:
        st = os.fstat(1)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _devnull() -> tuple[int, int]:
    st = os.stat(os.devnull)
    return (st.st_dev, st.st_ino)


def closed_pipe(stdout_at_start: tuple[int, int] | None) -> bool:
    """Whether the command stopped because its reader went away (`gpufabric ... | head`).

    Both libraries that write our output stop on EPIPE with exit 1 and say so only by what they
    leave behind: rich points file descriptor 1 at /dev/null (Console.on_broken_pipe); click
    (and Typer's copy of its main loop) wraps sys.stdout in PacifyFlushWrapper."""
    if type(sys.stdout).__name__ == "PacifyFlushWrapper":
        return True
    return stdout_at_start != _devnull() and stdout_file() == _devnull()


def quiet_exit_on_closed_pipe() -> None:
    """Exit 0 without a word: point stdout at /dev/null so the final flush cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os._exit(0)  # nothing left to do; a normal exit would flush the dead pipe again
