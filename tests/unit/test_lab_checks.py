"""Root and system-package checks, and the summary's parsers (pure; no root)."""

from __future__ import annotations

import pytest

from gpufabric.errors import UserError
from gpufabric.lab.lab import (
    INOTIFY_FLOOR,
    check_root,
    check_tools,
    inotify_raises,
    missing_packages,
)
from gpufabric.lab.summary import parse_managed, parse_recap


def test_not_root() -> None:
    with pytest.raises(UserError, match=r"^the lab needs root"):
        check_root(euid=1000)
    check_root(euid=0)


def test_missing_packages_named_once_each() -> None:
    present = {"debootstrap", "ip", "tc", "nsenter", "unshare"}

    def which(tool: str) -> str | None:
        return f"/usr/bin/{tool}" if tool in present else None

    assert missing_packages(which) == ["netcat-openbsd", "openssh-client", "systemd-container"]
    with pytest.raises(UserError, match=r"openssh-client, systemd-container; `make lab-deps`"):
        check_tools(which)
    check_tools(lambda t: f"/bin/{t}")


RECAP = """PLAY [x] ***
TASK [Gathering Facts] ***
ok: [h1]

PLAY RECAP *********************************************************************
h1                         : ok=4    changed=1    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0
h2                         : ok=3    changed=0    unreachable=1    failed=1    skipped=0    rescued=0    ignored=0
"""


def test_recap() -> None:
    r = parse_recap(RECAP)
    assert r["h1"] == {
        "ok": 4,
        "changed": 1,
        "unreachable": 0,
        "failed": 0,
        "skipped": 2,
        "rescued": 0,
        "ignored": 0,
    }
    assert (r["h2"]["failed"], r["h2"]["unreachable"]) == (1, 1)
    assert parse_recap("no recap here") == {}


def test_managed_files() -> None:
    files = parse_managed("== /etc/a.conf\nx = 1\ny = 2\n== /etc/b.conf\n")
    assert [(f.path, f.settings) for f in files] == [
        ("/etc/a.conf", ["x = 1", "y = 2"]),
        ("/etc/b.conf", []),
    ]


def test_inotify_limits_only_raised() -> None:
    low = {k: 128 for k in INOTIFY_FLOOR}
    assert inotify_raises(low) == INOTIFY_FLOOR
    high = {k: v * 2 for k, v in INOTIFY_FLOOR.items()}
    assert inotify_raises(high) == {}
    key = next(iter(INOTIFY_FLOOR))
    assert inotify_raises({**high, key: 1}) == {key: INOTIFY_FLOOR[key]}
