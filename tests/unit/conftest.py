"""Fixtures shared by the unit tests."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator

import pytest


@pytest.fixture
def ipsec_fast_kdf(monkeypatch: pytest.MonkeyPatch) -> None:
    """CA keys sealed with 1,000 PBKDF2 rounds instead of 600,000: the same code paths (a key
    under the current count is upgraded, one at it is left alone) in a fraction of the time.
    test_ipsec_ca_key.py checks the real count and does not use this."""
    from gpufabric.ipsec import keyfile

    monkeypatch.setattr(keyfile, "ITERATIONS", 1_000)


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bytes], None]]:
    """Standard input as the input layer reads it, afresh for the test: call the fixture with
    the bytes to feed (the layer reads `-` once per process, so it is reset before and after)."""
    from gpufabric.inputs import files

    def feed(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    files.reset_stdin()
    yield feed
    files.reset_stdin()
