"""python -m gpufabric.clouds.nebius.token: the SDK's token for the key file, printed alone;
a missing file or a refused exchange is one line, exit 2, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gpufabric.clouds.nebius.token import fetch
from gpufabric.errors import UserError


class FakeSDK:
    made: list[dict[str, Any]] = []

    def __init__(self, **kwargs: Any) -> None:
        FakeSDK.made.append(kwargs)

    def get_token_sync(self, timeout: float | None) -> Any:
        assert timeout == 60.0
        return SimpleNamespace(token="t1.abc")


def test_the_sdk_is_given_the_key_file_and_its_token_returned(tmp_path: Path) -> None:
    creds = tmp_path / "credentials.json"
    creds.write_text("{}")
    assert fetch(creds, FakeSDK) == "t1.abc"
    assert FakeSDK.made[-1] == {
        "credentials_file_name": str(creds),
        "user_agent_prefix": "gpufabric",
    }


def test_a_refused_exchange_is_one_line(tmp_path: Path) -> None:
    class Refusing(FakeSDK):
        def get_token_sync(self, timeout: float | None) -> Any:
            raise RuntimeError("UNAUTHENTICATED: bad key\ndetails")

    creds = tmp_path / "credentials.json"
    creds.write_text("{}")
    with pytest.raises(UserError) as err:
        fetch(creds, Refusing)
    assert str(err.value) == f"nebius token exchange for {creds}: UNAUTHENTICATED: bad key"


def test_the_real_sdk_refuses_a_key_file_that_is_not_one(tmp_path: Path) -> None:
    """The command as the pipeline runs it, with the installed nebius SDK (no network: the
    file is refused before any exchange)."""
    pytest.importorskip("nebius")
    creds = tmp_path / "credentials.json"
    creds.write_text('{"subject-credentials": {}}')
    result = subprocess.run(
        [sys.executable, "-m", "gpufabric.clouds.nebius.token", str(creds)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr


def test_a_missing_file_is_refused_before_the_sdk(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a regular file"):
        fetch(tmp_path / "missing.json", FakeSDK)
