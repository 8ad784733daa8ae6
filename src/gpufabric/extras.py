"""Optional installs: each cloud's SDKs come with an extra (`pip install 'gpufabric[<cloud>]'`).

Code that needs one checks for it first, so a missing SDK is one line naming the extra to
install, never an ImportError traceback. The extras themselves are listed in pyproject.toml;
tests/unit/test_extras.py keeps this table and that list in step.
"""

from __future__ import annotations

from importlib.util import find_spec

from gpufabric.errors import UserError


def extras() -> dict[str, tuple[str, ...]]:
    """extra -> the importable modules it provides: each registered cloud's (its CloudSpec)."""
    from gpufabric.clouds import registry

    return {spec.extra: spec.extra_modules for spec in registry.specs()}


def extra_for(module: str) -> str:
    """The extra that installs `module`."""
    for extra, modules in extras().items():
        if module in modules:
            return extra
    raise KeyError(module)


def require(module: str, purpose: str) -> None:
    """Raise a one-line UserError when `module` is not installed, naming the extra to install."""
    try:
        spec = find_spec(module)
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        spec = None
    if spec is None:
        extra = extra_for(module)
        raise UserError(
            f"{purpose} needs the {extra} extra ({module} is not installed): "
            f"pip install 'gpufabric[{extra}]'"
        )
