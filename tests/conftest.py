"""Shared test helpers: the repo root and the real captured tool output (kept out of the repo).

Real captures (nccl-tests logs, ibnetdiscover, mlnx_qos, ... as published by their authors) are
third-party text and are not committed here. Tests that read them find them through ONE setting,
the environment variable GPUFABRIC_FIXTURES (default: `shared/fixtures` beside the checkout), and
skip where that folder is absent, so a bare clone runs every other test:

    from tests.conftest import capture, needs_captures

    def test_x():                       # a path inside the test: skips when absent
        text = capture("nccl-tests/all_reduce_perf_p5.txt").read_text()

    @needs_captures                     # module constants built on FIXTURES: skip first
    def test_y(): ...

Every skip comes from the one line in `require_captures`, so pytest -ra reports them together.
Recordings of real clients (GPUFABRIC_REALCLIENTS, default `shared/realclients` beside the
checkout) work the same way through `realclient(rel)`.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests (hypothesis) run the same examples on every run and write no database, so that
# `make test` stays fast and a failure reproduces; HYPOTHESIS_PROFILE=thorough searches wider.
settings.register_profile(
    "gpufabric", derandomize=True, database=None, deadline=None, max_examples=40
)
settings.register_profile("thorough", database=None, deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "gpufabric"))


def _fresh_event_loop() -> None:
    """A forked child (mutmut runs each mutant in one, forked after its stats run planned
    stacks in-process) inherits the event loop whose default executor's threads did not survive
    the fork: Pulumi's `_sync_await` would wait for them forever, and every plan test of the
    mutant would "time out" after minutes. The child gets a loop of its own."""
    asyncio.set_event_loop(asyncio.new_event_loop())


os.register_at_fork(after_in_child=_fresh_event_loop)

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(os.environ.get("GPUFABRIC_FIXTURES") or REPO.parent / "shared" / "fixtures")
CAPTURES_ABSENT = (
    f"real tool captures not found at {FIXTURES}: set GPUFABRIC_FIXTURES to a copy of them "
    "to run these tests (CONTRIBUTING.md, 'Real captures')"
)
# What real clients (NCCL's example tuner, topograph, Kueue's CRD) were recorded doing
REALCLIENTS = Path(
    os.environ.get("GPUFABRIC_REALCLIENTS") or REPO.parent / "shared" / "realclients"
)
REALCLIENTS_ABSENT = (
    f"real-client recordings not found at {REALCLIENTS}: set GPUFABRIC_REALCLIENTS to a copy "
    "of them to run these tests (CONTRIBUTING.md, 'Real captures')"
)


def require_captures() -> Path:
    """The captures folder; skips the calling test where it is absent."""
    if not FIXTURES.is_dir():
        pytest.skip(CAPTURES_ABSENT)
    return FIXTURES


def capture(rel: str) -> Path:
    """Path of the capture `rel` (e.g. "mlnx_qos/x.txt"); skips the test where the folder is
    absent, fails naming the file where the folder is there but the file is not."""
    path = require_captures() / rel
    if not path.exists():
        pytest.fail(f"real capture {rel} missing from {FIXTURES}")
    return path


needs_captures = pytest.mark.captures  # for tests whose module constants name captures


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "captures: reads the real captures (skips without them)")
    # programs the tests start (the CLI, Ansible's filter plugins) import this checkout's
    # library, whichever checkout the environment's editable install points at
    src = str(REPO / "src")
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != src]
    os.environ["PYTHONPATH"] = os.pathsep.join([src, *rest])


def pytest_runtest_setup(item: pytest.Item) -> None:
    # a hook, not a fixture: pytest reports a fixture's skip at each test's own line, and the
    # point is one line for all of them
    if item.get_closest_marker("captures"):
        require_captures()


def realclient(rel: str) -> Path:
    """Path of the real-client recording `rel`; skips the test where the folder is absent."""
    if not REALCLIENTS.is_dir():
        pytest.skip(REALCLIENTS_ABSENT)
    path = REALCLIENTS / rel
    if not path.exists():
        pytest.fail(f"real-client recording {rel} missing from {REALCLIENTS}")
    return path


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The captures folder (skips where absent; prefer `capture(rel)`)."""
    return require_captures()
