"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def ipsec_fast_kdf(monkeypatch: pytest.MonkeyPatch) -> None:
    """CA keys sealed with 1,000 PBKDF2 rounds instead of 600,000: the same code paths (a key
    under the current count is upgraded, one at it is left alone) in a fraction of the time.
    test_ipsec_ca_key.py checks the real count and does not use this."""
    from gpufabric.ipsec import keyfile

    monkeypatch.setattr(keyfile, "ITERATIONS", 1_000)
